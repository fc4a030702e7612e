package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import io.sparkbloom.FilterTooLargeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The filter argument of the SQL functions: FORMAT.md bytes read into a native filter, no larger
 * than the limit the call was built with ({@link SqlDecodeLimit}).
 */
final class CatalystFilters {
  private CatalystFilters() {}

  /** Where FORMAT.md's header holds numBits (m), a little-endian u64. */
  private static final int NUM_BITS_OFFSET = 8;

  /**
   * The filter {@code bytes} hold; the caller closes it.
   *
   * @throws IllegalArgumentException naming {@code function} if they are not a sparkbloom filter,
   *     or declare more than {@code maxNumBits} bits (naming the bits and {@value
   *     SqlDecodeLimit#KEY})
   */
  static BloomFilter read(byte[] bytes, String function, long maxNumBits) {
    try {
      return BloomFilter.fromByteArray(bytes, maxNumBits);
    } catch (FilterTooLargeException e) {
      long declared = declaredBits(bytes);
      if (declared > maxNumBits) {
        throw new IllegalArgumentException(function + ": the filter declares " + declared
            + " bits, more than " + SqlDecodeLimit.KEY + " = " + maxNumBits + " allows (raise"
            + " the setting to read larger filters)", e);
      }
      throw new IllegalArgumentException(function + ": the filter of " + declared + " bits"
          + " cannot be read here (" + e.getMessage() + ")", e);
    } catch (CorruptFilterException e) {
      throw new IllegalArgumentException(function + ": not a sparkbloom filter ("
          + e.getMessage() + ")", e);
    }
  }

  /** The numBits field of a header the decoder has parsed (it refused the size, not the header). */
  private static long declaredBits(byte[] bytes) {
    return bytes.length < NUM_BITS_OFFSET + 8 ? -1
        : ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(NUM_BITS_OFFSET);
  }
}
