package io.sparkbloom;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * The serial proxy of {@link BloomFilter} (see {@link SerialProxy}): Java serialization writes
 * this instead of the filter and turns it back into a filter on reading, so a native handle can
 * never travel in a stream.
 *
 * <p>The class name is deliberately short, because every stream spells it out in full (a filter
 * written alone costs 62 bytes beyond its FORMAT.md bytes; "io.sparkbloom.BloomFilter" would
 * cost 8 more). The name and {@code serialVersionUID} are part of the persisted form (Spark's
 * {@code saveAsObjectFile}): never rename or move this class.
 */
final class Ser extends SerialProxy implements Serializable {
  private static final long serialVersionUID = 1L;

  Ser(byte[] bytes) {
    super(bytes);
  }

  @Override
  Object decode(byte[] bytes) throws CorruptFilterException {
    return BloomFilter.fromByteArray(bytes);
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    write(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    read(in);
  }
}
