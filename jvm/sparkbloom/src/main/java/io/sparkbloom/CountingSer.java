package io.sparkbloom;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * The serial proxy of {@link CountingBloomFilter} (see {@link SerialProxy}), carrying {@link
 * CountingBloomFilter#toByteArray()} (FORMAT.md §10). Its name and {@code serialVersionUID} are
 * part of the persisted form: never rename or move this class.
 */
final class CountingSer extends SerialProxy implements Serializable {
  private static final long serialVersionUID = 1L;

  CountingSer(byte[] bytes) {
    super(bytes);
  }

  @Override
  Object decode(byte[] bytes) throws CorruptFilterException {
    return CountingBloomFilter.fromByteArray(bytes);
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    writeBytes(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    read(in);
  }
}
