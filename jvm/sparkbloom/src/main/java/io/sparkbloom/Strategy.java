package io.sparkbloom;

/**
 * How a key's hash becomes bit positions. The first two are Guava's {@code
 * BloomFilterStrategies} (names and ordinals), so filters convert to and from Guava without
 * changing a bit; the next two are Spark's {@code org.apache.spark.util.sketch.BloomFilter}
 * (Murmur3_x86_32), so filters convert to and from Spark's ({@link SparkSketchInterop}); {@link
 * #BLOCKED} is sparkbloom's own cache-blocked layout. Each constant's ordinal is its byte in the
 * format ({@code FORMAT.md}).
 */
public enum Strategy {
  /**
   * Guava 14 to 16, and the Guava 14.0.1 that Spark 2.x and 3.x shade: 32-bit double hashing;
   * positions above 2<sup>31</sup> are never used, so very large filters lose accuracy.
   */
  MURMUR128_MITZ_32,
  /** Guava 17 and later, and the default here: 64-bit double hashing of the whole hash. */
  MURMUR128_MITZ_64,
  /** Spark's sketch filter format V1 ({@code BloomFilterImpl}, Spark 2.0 to 4.0). */
  SPARK_SKETCH_V1,
  /** Spark's sketch filter format V2 with seed 0 ({@code BloomFilterImplV2}, default since 4.1). */
  SPARK_SKETCH_V2,
  /**
   * Ours, opt-in, for filters larger than the CPU cache: all of a key's bits lie in one 512-bit
   * block (one 64-byte cache line), so a query costs one cache miss instead of k. It takes a few
   * more bits for the same false-positive probability (9.9 bits per key at 1 % instead of 9.6;
   * FORMAT.md) and has no Guava, Spark or Redis form: those conversions, and counting filters,
   * refuse it with an {@link IllegalArgumentException}.
   */
  BLOCKED;

  static Strategy ofOrdinal(int ordinal) {
    Strategy[] all = values();
    if (ordinal < 0 || ordinal >= all.length) {
      throw new IllegalArgumentException("strategy: unknown ordinal " + ordinal);
    }
    return all[ordinal];
  }
}
