package io.sparkbloom;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamException;
import java.io.Serializable;

/**
 * The Java-serialization proxy of {@link CountingBloomFilter}, as {@link Ser} is {@link
 * BloomFilter}'s: it carries {@link CountingBloomFilter#toByteArray()} (FORMAT.md §10), never a
 * native handle, and decodes it (every field checked) when read.
 */
final class CountingSer implements Serializable {
  private static final long serialVersionUID = 1L;

  private transient byte[] bytes;

  CountingSer(byte[] bytes) {
    this.bytes = bytes;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    out.writeUnshared(bytes);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    Object read;
    try {
      read = in.readUnshared();
    } catch (RuntimeException e) {
      InvalidObjectException invalid =
          new InvalidObjectException("io.sparkbloom.CountingSer: unreadable filter bytes: " + e);
      invalid.initCause(e);
      throw invalid;
    }
    if (!(read instanceof byte[])) {
      throw new InvalidObjectException(
          "io.sparkbloom.CountingSer: expected the filter's bytes, found "
              + (read == null ? "null" : read.getClass().getName()));
    }
    bytes = (byte[]) read;
  }

  private Object readResolve() throws ObjectStreamException {
    try {
      return CountingBloomFilter.fromByteArray(bytes);
    } catch (CorruptFilterException e) {
      InvalidObjectException invalid = new InvalidObjectException(e.getMessage());
      invalid.initCause(e);
      throw invalid;
    }
  }
}
