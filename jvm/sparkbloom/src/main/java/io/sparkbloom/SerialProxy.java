package io.sparkbloom;

import java.io.EOFException;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamException;
import java.io.StreamCorruptedException;
import java.util.Arrays;

/**
 * What the serial proxies {@link Ser} ({@link BloomFilter}) and {@link CountingSer} ({@link
 * CountingBloomFilter}) share: Java serialization writes a proxy instead of the filter ({@code
 * writeReplace}), carrying the filter's FORMAT.md bytes and never a native handle, and turns it
 * back into a filter on reading ({@code readResolve}, every field checked by the decoder).
 *
 * <p>Deliberately <i>not</i> {@code Serializable}: a serializable superclass would add its class
 * descriptor to every stream. The persisted form (Spark's {@code saveAsObjectFile}) is the
 * subclass's own descriptor (no fields), then the FORMAT.md bytes in one of two forms, both
 * read by {@link #read}:
 *
 * <ul>
 *   <li><b>array</b> (streams of earlier builds, still read): one
 *       unshared {@code byte[]} object, written by {@link #write};
 *   <li><b>block data</b> (what both proxies write): the length as an {@code int}, then the
 *       bytes, in the proxy's own block data (the stream's 1024-byte blocks), written from and
 *       read into a reused {@link SerialBuffer}: no array as large as the filter is allocated.
 * </ul>
 *
 * A reader tells them apart by what follows the (empty) default fields: block data or an object
 * ({@code read()} returns -1 before an object).
 * Each subclass keeps its name and {@code serialVersionUID} and declares the private {@code
 * writeObject}/{@code readObject} that Java serialization looks up on the class itself, as
 * one-line calls to the methods here.
 */
abstract class SerialProxy {
  /** FORMAT.md bytes to write ({@link #write}); null on the reading side. */
  private byte[] bytes;

  /** The filter read back: what {@link #readResolve} returns. */
  private Object resolved;

  /** For deserialization: it calls the no-argument constructor of a non-serializable superclass. */
  SerialProxy() {}

  SerialProxy(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The FORMAT.md bytes given to the constructor, to write. */
  final byte[] bytes() {
    return bytes;
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

  /** The array form: the bytes as one unshared {@code byte[]}. */
  final void write(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject(); // no fields: writes nothing, keeps the stream evolvable
    // Unshared: the stream's handle table does not keep the array alive until reset().
    out.writeUnshared(bytes);
  }

  /** The block-data form: {@code length} as an int, then the first {@code length} bytes. */
  static void writeBlock(ObjectOutputStream out, byte[] buffer, int length) throws IOException {
    out.defaultWriteObject();
    out.writeInt(length);
    out.write(buffer, 0, length);
  }

  /** Reads either form and decodes the filter; a bad stream is an InvalidObjectException. */
  final void read(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    // In the block-data form this is the length's first byte; in the array form an object
    // follows and read() returns -1 without consuming it (it only peeks at the type code).
    // Not available(): it answers 0 whenever the underlying stream does (Spark's streams).
    int first = in.read();
    if (first >= 0) {
      readBlock(in, first);
    } else {
      readArray(in);
    }
  }

  private void readBlock(ObjectInputStream in, int first) throws IOException {
    String name = getClass().getName();
    int length;
    try {
      length = first << 24 | in.readUnsignedByte() << 16 | in.readUnsignedShort();
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

  private void readArray(ObjectInputStream in) throws IOException, ClassNotFoundException {
    String name = getClass().getName();
    Object read;
    try {
      read = in.readUnshared();
    } catch (RuntimeException | EOFException | StreamCorruptedException e) {
      // A tampered stream makes ObjectInputStream itself throw NegativeArraySizeException,
      // ClassCastException, NullPointerException, or run out of bytes before the length it
      // declares: an invalid stream, not a bug to crash on.
      throw invalid(name + ": unreadable filter bytes: " + e, e);
    } catch (OutOfMemoryError e) {
      // ObjectInputStream allocates the array length the stream declares before reading a
      // byte of it, and gives no hook in between. An array the heap cannot hold at all is a
      // lying length (or a filter this JVM cannot read): the stream's fault, not the JVM's.
      // The block-data form never gets here: it grows its buffer as bytes arrive.
      throw invalid(
          name
              + ": the filter's byte array declared by the stream does not fit this heap"
              + " (max "
              + Runtime.getRuntime().maxMemory()
              + " bytes): a corrupt length, or a filter too large for this JVM",
          null);
    }
    if (!(read instanceof byte[])) {
      throw new InvalidObjectException(
          name
              + ": expected the filter's bytes, found "
              + (read == null ? "null" : read.getClass().getName()));
    }
    try {
      resolved = decode((byte[]) read);
    } catch (CorruptFilterException e) {
      throw invalid(e.getMessage(), e);
    }
  }

  private static InvalidObjectException invalid(String message, Exception cause) {
    InvalidObjectException invalid = new InvalidObjectException(message);
    if (cause != null) {
      invalid.initCause(cause);
    }
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
