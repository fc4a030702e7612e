package io.sparkbloom;

import java.io.EOFException;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamException;
import java.util.Arrays;

/**
 * What the serial proxies {@link Ser} ({@link BloomFilter}) and {@link CountingSer} ({@link
 * CountingBloomFilter}) share: Java serialization writes a proxy instead of the filter ({@code
 * writeReplace}), carrying the filter's FORMAT.md bytes and never a native handle, and turns it
 * back into a filter on reading ({@code readResolve}, every field checked by the decoder).
 *
 * <p>Deliberately <i>not</i> {@code Serializable}: a serializable superclass would add its class
 * descriptor to every stream. The persisted form (Spark's {@code saveAsObjectFile}) is the
 * subclass's own descriptor (no fields), then, in the proxy's block data (the stream's 1024-byte
 * blocks), the length of the FORMAT.md bytes as an {@code int} and the bytes, written from and
 * read into a reused {@link SerialBuffer}: no array as large as the filter is allocated. Each
 * subclass keeps its name and {@code serialVersionUID} and declares the private {@code
 * writeObject}/{@code readObject} that Java serialization looks up on the class itself, as
 * one-line calls to the methods here.
 */
abstract class SerialProxy {
  /** FORMAT.md bytes to write ({@link #writeBytes}); null on the reading side. */
  private byte[] bytes;

  /** The filter read back: what {@link #readResolve} returns. */
  private Object resolved;

  /** For deserialization: it calls the no-argument constructor of a non-serializable superclass. */
  SerialProxy() {}

  SerialProxy(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Writes the FORMAT.md bytes given to the constructor. */
  final void writeBytes(ObjectOutputStream out) throws IOException {
    writeBlock(out, bytes, bytes.length);
  }

  /** The filter decoded from its FORMAT.md bytes. */
  abstract Object decode(byte[] bytes) throws CorruptFilterException;

  /**
   * The filter decoded from the first {@code length} bytes of {@code buffer}; a subclass with a
   * native decoder for a prefix overrides this to skip the copy.
   */
  Object decodePrefix(byte[] buffer, int length) throws CorruptFilterException {
    return decode(Arrays.copyOf(buffer, length));
  }

  /** The block-data form: {@code length} as an int, then the first {@code length} bytes. */
  static void writeBlock(ObjectOutputStream out, byte[] buffer, int length) throws IOException {
    out.defaultWriteObject();
    out.writeInt(length);
    out.write(buffer, 0, length);
  }

  /** Reads the length and the bytes and decodes the filter; a bad stream is an InvalidObjectException. */
  final void read(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    String name = getClass().getName();
    int length;
    try {
      length = in.readInt();
    } catch (EOFException e) {
      throw invalid(name + ": truncated: the filter's length is cut short", e);
    }
    if (length < 0) {
      throw new InvalidObjectException(name + ": negative filter length " + length);
    }
    // Grown as bytes arrive, so a forged length cannot allocate more than twice what is there.
    byte[] buffer = SerialBuffer.take(Math.min(length, SerialBuffer.MAX_KEPT));
    int filled = 0;
    while (filled < length) {
      if (filled == buffer.length) {
        buffer = Arrays.copyOf(buffer, (int) Math.min(length, 2L * buffer.length));
      }
      int n = in.read(buffer, filled, Math.min(length, buffer.length) - filled);
      if (n < 0) {
        throw new InvalidObjectException(
            name + ": truncated: expected " + length + " filter bytes, got " + filled);
      }
      filled += n;
    }
    try {
      resolved = decodePrefix(buffer, length);
    } catch (CorruptFilterException e) {
      throw invalid(e.getMessage(), e);
    } finally {
      SerialBuffer.give(buffer);
    }
  }

  private static InvalidObjectException invalid(String message, Exception cause) {
    InvalidObjectException invalid = new InvalidObjectException(message);
    invalid.initCause(cause);
    return invalid;
  }

  /** Inherited by the subclasses (package access): Java serialization calls it on them. */
  final Object readResolve() throws ObjectStreamException {
    if (resolved == null) {
      // Only a proxy that was never read (readObject always sets it or throws).
      throw new InvalidObjectException(getClass().getName() + ": no filter was read");
    }
    return resolved;
  }
}
