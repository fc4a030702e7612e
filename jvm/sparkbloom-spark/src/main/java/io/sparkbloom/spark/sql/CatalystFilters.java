package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;

/** The filter argument of the typed SQL functions: FORMAT.md bytes read into a native filter. */
final class CatalystFilters {
  private CatalystFilters() {}

  /**
   * The filter {@code bytes} hold; the caller closes it.
   *
   * @throws IllegalArgumentException naming {@code function} if they are not a sparkbloom filter
   */
  static BloomFilter read(byte[] bytes, String function) {
    try {
      return BloomFilter.fromByteArray(bytes);
    } catch (CorruptFilterException e) {
      throw new IllegalArgumentException(function + ": not a sparkbloom filter ("
          + e.getMessage() + ")", e);
    }
  }
}
