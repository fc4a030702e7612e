package io.sparkbloom;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.ref.Reference;

/**
 * The serial proxy of {@link BloomFilter} (see {@link SerialProxy}): Java serialization writes
 * this instead of the filter and turns it back into a filter on reading, so a native handle can
 * never travel in a stream.
 *
 * <p>It writes the block-data form of {@link SerialProxy}: the filter is encoded by one native
 * call straight into this thread's {@link SerialBuffer} and written from there, and read back
 * into it and decoded by one native call, so no array as large as the filter is allocated on
 * either side.
 *
 * <p>The class name is deliberately short, because every stream spells it out in full
 * ("io.sparkbloom.BloomFilter" would cost 8 more bytes). The name and {@code serialVersionUID}
 * are part of the persisted form (Spark's {@code saveAsObjectFile}): never rename or move this
 * class.
 */
final class Ser extends SerialProxy implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The filter to write (writing side); transient, so the class descriptor has no fields. */
  private final transient BloomFilter filter;

  /** Writes {@code filter}'s FORMAT.md bytes, encoded when the stream asks for them. */
  Ser(BloomFilter filter) {
    this.filter = filter;
  }

  /** Writes these FORMAT.md bytes as they are (tests forging streams). */
  Ser(byte[] bytes) {
    super(bytes);
    this.filter = null;
  }

  @Override
  Object decode(byte[] bytes) throws CorruptFilterException {
    return BloomFilter.fromByteArray(bytes);
  }

  @Override
  Object decodePrefix(byte[] buffer, int length) throws CorruptFilterException {
    return new BloomFilter(
        BloomFilterNative.nFromBytesPrefix(buffer, length, DecodeLimit.defaultMaxNumBits()));
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    if (filter == null) {
      writeBytes(out);
      return;
    }
    byte[] buffer = SerialBuffer.take(0);
    try {
      long length = encodeInto(buffer);
      if (length < 0) { // the buffer is smaller than the filter's dense bytes: -length
        SerialBuffer.give(buffer);
        buffer = null;
        if (-length > SerialBuffer.MAX_KEPT) {
          byte[] bytes = filter.toByteArray(); // too large to keep a buffer for
          writeBlock(out, bytes, bytes.length);
          return;
        }
        buffer = SerialBuffer.take((int) -length);
        length = encodeInto(buffer);
      }
      writeBlock(out, buffer, (int) length);
    } finally {
      if (buffer != null) {
        SerialBuffer.give(buffer);
      }
    }
  }

  /**
   * Encodes the filter into the front of {@code out} in one native call: the length, or minus
   * the length {@code out} must have (the dense form's, which the encoder writes first).
   */
  private long encodeInto(byte[] out) {
    try {
      return BloomFilterNative.nEncodeInto(filter.handle(), out);
    } finally {
      Reference.reachabilityFence(filter);
    }
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    read(in);
  }
}
