package io.sparkbloom.spark;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;

/**
 * A saved filter's FORMAT bytes, read from a {@code saveAsObjectFile} record without decoding
 * them: {@link ObjectFileRecords#deserializeEncoded} reads the core's serial proxy
 * ({@code io.sparkbloom.Ser}, whose persisted form is its class descriptor with no fields, then
 * the FORMAT bytes as one unshared {@code byte[]}) as this class, which has the same form. The
 * broadcast dedup ships these bytes as they are: a filter sized for 10,000 items holding 200 is
 * ~2 KB of them but 18 KB of bits once decoded.
 */
final class SavedFilterBytes implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The core's serial proxy for {@code BloomFilter}, which this class stands in for. */
  static final String PROXY_CLASS = "io.sparkbloom.Ser";

  static final ObjectStreamClass DESCRIPTOR = ObjectStreamClass.lookup(SavedFilterBytes.class);

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

  byte[] bytes() {
    return bytes;
  }

  // Declared so that the descriptor says "custom data follows", as the proxy's does.
  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    out.writeUnshared(bytes);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    Object read = in.readUnshared();
    if (!(read instanceof byte[])) {
      throw new InvalidObjectException(PROXY_CLASS + ": expected the filter's bytes, found "
          + (read == null ? "null" : read.getClass().getName()));
    }
    bytes = (byte[]) read;
  }
}
