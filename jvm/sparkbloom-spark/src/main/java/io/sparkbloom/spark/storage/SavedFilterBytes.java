package io.sparkbloom.spark.storage;

import java.io.EOFException;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.Arrays;

/**
 * A saved filter's FORMAT bytes, read from a {@code saveAsObjectFile} record without decoding
 * them: {@link ObjectFileRecords#deserializeEncoded} reads the core's serial proxy
 * ({@code io.sparkbloom.Ser}, whose persisted form is its class descriptor with no fields, then
 * the FORMAT bytes as block data: an {@code int} length and the bytes) as this class. The
 * broadcast dedup ships these bytes as they are: a filter sized for 10,000 items holding 200 is
 * ~2 KB of them but 18 KB of bits once decoded.
 */
final class SavedFilterBytes implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The core's serial proxy for {@code BloomFilter}, which this class stands in for. */
  static final String PROXY_CLASS = "io.sparkbloom.Ser";

  static final ObjectStreamClass DESCRIPTOR = ObjectStreamClass.lookup(SavedFilterBytes.class);

  /** What a block-data read allocates before bytes arrive (a per-user filter's fit). */
  private static final int INITIAL_READ = 64 << 10;

  private transient byte[] bytes;

  /**
   * Whether a stream's class descriptor is the proxy's persisted form this class reads: its name,
   * {@code serialVersionUID} 1 and no fields. Any other form is left to the proxy itself.
   */
  static boolean standsFor(ObjectStreamClass streamDescriptor) {
    return streamDescriptor.getName().equals(PROXY_CLASS)
        && streamDescriptor.getSerialVersionUID() == 1L
        && streamDescriptor.getFields().length == 0;
  }

  /** For deserialization (which calls no constructor of this class). */
  SavedFilterBytes() {}

  byte[] bytes() {
    return bytes;
  }

  // Declared so that the descriptor says "custom data follows", as the proxy's does; writes the
  // proxy's form.
  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      throw new InvalidObjectException(PROXY_CLASS + ": truncated: the filter's length is cut short");
    }
    if (length < 0) {
      throw new InvalidObjectException(PROXY_CLASS + ": negative filter length " + length);
    }
    // Grown as bytes arrive, so a forged length cannot allocate more than twice what is there.
    byte[] buffer = new byte[Math.min(length, INITIAL_READ)];
    int filled = 0;
    while (filled < length) {
      if (filled == buffer.length) {
        buffer = Arrays.copyOf(buffer, (int) Math.min(length, 2L * buffer.length));
      }
      int n = in.read(buffer, filled, buffer.length - filled);
      if (n < 0) {
        throw new InvalidObjectException(
            PROXY_CLASS + ": truncated: expected " + length + " filter bytes, got " + filled);
      }
      filled += n;
    }
    bytes = buffer;
  }
}
