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
   * block (one 64-byte cache line), so a query costs one cache miss instead of k. The price is
   * memory: small at everyday probabilities, large at tiny ones, where one block holds too few
   * bits for the many hash functions (and k is capped at 24). Bits per key (m / n, n =
   * 10<sup>6</sup>) and k as {@link BloomFilter#create(long, double, Strategy)} sizes them:
   *
   * <table>
   *   <caption>Bits per key of BLOCKED against the Guava layout</caption>
   *   <tr><th>fpp</th><th>MURMUR128_MITZ_64</th><th>BLOCKED</th><th>ratio</th><th>BLOCKED k</th></tr>
   *   <tr><td>1e-2</td><td>9.6</td><td>9.9</td><td>1.03×</td><td>6</td></tr>
   *   <tr><td>1e-3</td><td>14.4</td><td>15.5</td><td>1.08×</td><td>9</td></tr>
   *   <tr><td>1e-6</td><td>28.8</td><td>38.8</td><td>1.35×</td><td>16</td></tr>
   *   <tr><td>1e-9</td><td>43.1</td><td>80.1</td><td>1.86×</td><td>22</td></tr>
   *   <tr><td>1e-12</td><td>57.5</td><td>160.6</td><td>2.79×</td><td>24</td></tr>
   * </table>
   *
   * <p>It has no Guava, Spark or Redis form: those conversions, and counting filters, refuse it
   * with an {@link IllegalArgumentException}.
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
