package io.sparkbloom;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamException;

/**
 * What the serial proxies {@link Ser} ({@link BloomFilter}) and {@link CountingSer} ({@link
 * CountingBloomFilter}) share: Java serialization writes a proxy instead of the filter ({@code
 * writeReplace}), carrying the filter's FORMAT.md bytes and never a native handle, and turns it
 * back into a filter on reading ({@code readResolve}, every field checked by the decoder).
 *
 * <p>Deliberately <i>not</i> {@code Serializable}: a serializable superclass would add its class
 * descriptor to every stream, and the persisted form (Spark's {@code saveAsObjectFile}) is the
 * subclasses' own descriptor (no fields), then the bytes as one unshared {@code byte[]}. Each
 * subclass keeps its name and {@code serialVersionUID} and declares the private {@code
 * writeObject}/{@code readObject} that Java serialization looks up on the class itself, as
 * one-line calls to {@link #write} and {@link #read}.
 */
abstract class SerialProxy {
  /** FORMAT.md bytes; written by {@link #write} as an unshared array, not as a field. */
  private byte[] bytes;

  /** For deserialization: it calls the no-argument constructor of a non-serializable superclass. */
  SerialProxy() {}

  SerialProxy(byte[] bytes) {
    this.bytes = bytes;
  }

  /** The filter decoded from its FORMAT.md bytes. */
  abstract Object decode(byte[] bytes) throws CorruptFilterException;

  final void write(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject(); // no fields: writes nothing, keeps the stream evolvable
    // Unshared: the stream's handle table does not keep the array alive until reset().
    out.writeUnshared(bytes);
  }

  final void read(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    String name = getClass().getName();
    Object read;
    try {
      read = in.readUnshared();
    } catch (RuntimeException e) {
      // A tampered stream makes ObjectInputStream itself throw NegativeArraySizeException,
      // ClassCastException, NullPointerException...: an invalid stream, not a bug to crash on.
      InvalidObjectException invalid =
          new InvalidObjectException(name + ": unreadable filter bytes: " + e);
      invalid.initCause(e);
      throw invalid;
    }
    if (!(read instanceof byte[])) {
      throw new InvalidObjectException(
          name
              + ": expected the filter's bytes, found "
              + (read == null ? "null" : read.getClass().getName()));
    }
    bytes = (byte[]) read;
  }

  /** Inherited by the subclasses (package access): Java serialization calls it on them. */
  final Object readResolve() throws ObjectStreamException {
    try {
      return decode(bytes);
    } catch (CorruptFilterException e) {
      InvalidObjectException invalid = new InvalidObjectException(e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }
}
