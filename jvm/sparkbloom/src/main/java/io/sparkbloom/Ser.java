package io.sparkbloom;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamException;
import java.io.Serializable;

/**
 * The serial proxy of {@link BloomFilter}: Java serialization writes this instead of the filter
 * ({@code writeReplace}) and turns it back into a filter on reading ({@code readResolve}), so a
 * native handle can never travel in a stream.
 *
 * <p>The stream holds the FORMAT.md bytes and the least framing Java serialization allows: the
 * class descriptor of this class (no fields), then the bytes as one {@code byte[]} object. The
 * class name is deliberately short, because every stream spells it out in full (a filter
 * written alone costs 62 bytes beyond its FORMAT.md bytes; "io.sparkbloom.BloomFilter" would
 * cost 8 more). The name and {@code serialVersionUID} are part of the persisted form (Spark's
 * {@code saveAsObjectFile}): never rename or move this class.
 */
final class Ser implements Serializable {
  private static final long serialVersionUID = 1L;

  /** FORMAT.md bytes; written by writeObject as an unshared array, not as a field. */
  private transient byte[] bytes;

  Ser(byte[] bytes) {
    this.bytes = bytes;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject(); // no fields: writes nothing, keeps the stream evolvable
    // Unshared: the stream's handle table does not keep the array alive until reset().
    out.writeUnshared(bytes);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    Object read;
    try {
      read = in.readUnshared();
    } catch (RuntimeException e) {
      // A tampered stream makes ObjectInputStream itself throw NegativeArraySizeException,
      // ClassCastException, NullPointerException...: an invalid stream, not a bug to crash on.
      InvalidObjectException invalid =
          new InvalidObjectException("io.sparkbloom.Ser: unreadable filter bytes: " + e);
      invalid.initCause(e);
      throw invalid;
    }
    if (!(read instanceof byte[])) {
      throw new InvalidObjectException(
          "io.sparkbloom.Ser: expected the filter's bytes, found "
              + (read == null ? "null" : read.getClass().getName()));
    }
    bytes = (byte[]) read;
  }

  private Object readResolve() throws ObjectStreamException {
    try {
      return BloomFilter.fromByteArray(bytes);
    } catch (CorruptFilterException e) {
      InvalidObjectException invalid = new InvalidObjectException(e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }
}
