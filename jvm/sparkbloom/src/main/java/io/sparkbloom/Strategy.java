package io.sparkbloom;

/**
 * How a key's hash becomes bit positions. The first two are Guava's {@code
 * BloomFilterStrategies} (names and ordinals), so filters convert to and from Guava without
 * changing a bit; the last two are Spark's {@code org.apache.spark.util.sketch.BloomFilter}
 * (Murmur3_x86_32), so filters convert to and from Spark's ({@link SparkSketchInterop}).
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
  SPARK_SKETCH_V2;

  static Strategy ofOrdinal(int ordinal) {
    Strategy[] all = values();
    if (ordinal < 0 || ordinal >= all.length) {
      throw new IllegalArgumentException("strategy: unknown ordinal " + ordinal);
    }
    return all[ordinal];
  }
}
