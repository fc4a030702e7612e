package io.sparkbloom;

/**
 * How a key's 128-bit Murmur3 hash becomes bit positions; the names and ordinals are Guava's
 * {@code BloomFilterStrategies}, so filters convert to and from Guava without changing a bit.
 */
public enum Strategy {
  /**
   * Guava 14 to 16, and the Guava 14.0.1 that Spark 2.x and 3.x shade: 32-bit double hashing;
   * positions above 2<sup>31</sup> are never used, so very large filters lose accuracy.
   */
  MURMUR128_MITZ_32,
  /** Guava 17 and later, and the default here: 64-bit double hashing of the whole hash. */
  MURMUR128_MITZ_64;

  static Strategy ofOrdinal(int ordinal) {
    Strategy[] all = values();
    if (ordinal < 0 || ordinal >= all.length) {
      throw new IllegalArgumentException("strategy: unknown ordinal " + ordinal);
    }
    return all[ordinal];
  }
}
