package io.sparkbloom.redis;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.RedisBitmaps;
import io.sparkbloom.Strategy;
import java.io.Serializable;
import java.util.Objects;

/**
 * Where an item's bits sit in a Redis bitmap string: the number of bits m, the number of hash
 * functions k and how a hash becomes k bit offsets. Bit offset b is what {@code SETBIT key b 1}
 * sets (byte {@code b / 8}, mask {@code 0x80 >>> (b % 8)}: Redis counts from the most
 * significant bit). Items are hashed as Guava hashes them: a {@code long} as Guava's {@code
 * Funnels.longFunnel()}, a {@code String} as {@code Funnels.stringFunnel(UTF_8)}, a {@code
 * byte[]} as {@code Funnels.byteArrayFunnel()}, with {@code Hashing.murmur3_128()}.
 *
 * <ul>
 *   <li>{@link #helperCompatible(long, double)}: the layout of the widely copied Java
 *       "BloomFilterHelper" that services run on {@code SETBIT}/{@code GETBIT}, bit for bit, so
 *       this client and such a service share keys.
 *   <li>{@link #guavaCompatible(long, double, Strategy)}: the shape of sparkbloom's own {@code
 *       BloomFilter.create(n, fpp, strategy)} filters, so filters built by {@code
 *       PerKeyFilters} or the SQL build aggregate can be pushed as they are.
 * </ul>
 *
 * <p>{@link #newFilter()} gives an empty {@link BloomFilter} of the layout's shape: a filter
 * built offline answers exactly as the Redis key will. Layouts are immutable and serializable
 * (they travel in Spark closures).
 */
public final class RedisLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Redis strings hold at most 512 MiB: bits 0 .. 2^32 − 1. */
  public static final long MAX_BIT_SIZE = 1L << 32;

  /**
   * The largest bit count {@link #helperCompatible} gives: the helper holds m in an {@code int}.
   */
  public static final long HELPER_MAX_BITS = Integer.MAX_VALUE;

  private final long bitSize;
  private final int numHashFunctions;
  private final Strategy strategy;
  private final String name;

  private RedisLayout(long bitSize, int numHashFunctions, Strategy strategy, String name) {
    if (bitSize < 1 || bitSize > MAX_BIT_SIZE) {
      throw new IllegalArgumentException(
          "invalid argument bitSize: " + bitSize + " is not in 1.." + MAX_BIT_SIZE + " (a Redis string holds 2^32 bits)");
    }
    if (numHashFunctions < 1 || numHashFunctions > 255) {
      throw new IllegalArgumentException(
          "invalid argument numHashFunctions: " + numHashFunctions + " is not in 1..255");
    }
    this.bitSize = bitSize;
    this.numHashFunctions = numHashFunctions;
    this.strategy = Objects.requireNonNull(strategy, "strategy is null");
    // A layout places items as Guava's walks over Murmur3_x64_128 do (the class doc); Spark's
    // sketch strategies hash items otherwise.
    if (strategy != Strategy.MURMUR128_MITZ_32 && strategy != Strategy.MURMUR128_MITZ_64) {
      throw new IllegalArgumentException(
          "invalid argument strategy: " + strategy + " is not a Guava strategy (MURMUR128_MITZ_32 or MURMUR128_MITZ_64)");
    }
    this.name = name;
  }

  /**
   * The "BloomFilterHelper" layout: {@code bitSize = (int) (-n · ln fpp / ln²2)} (truncated, not
   * rounded up to whole words), {@code k = max(1, round(bitSize / n · ln 2))}, and for each item
   * {@code hash64 = murmur3_128(item).asLong()}, {@code hash1 = (int) hash64}, {@code hash2 = (int)
   * (hash64 >>> 32)}, offsets {@code next = hash1 + i·hash2} for i = 1..k (32-bit wrap), {@code
   * ~next} if negative, {@code next % bitSize}: Guava's {@code MURMUR128_MITZ_32} walk over that
   * bit count. For (10,000, 0.001): 143,775 bits (17,972 bytes), k = 10.
   *
   * @throws IllegalArgumentException naming the argument out of range (n ≥ 1, fpp in (0, 1)), if
   *     the bit count is 0, if n exceeds {@code Integer.MAX_VALUE} or m exceeds {@link
   *     #HELPER_MAX_BITS} (the helper's int arithmetic would break)
   */
  public static RedisLayout helperCompatible(long expectedInsertions, double fpp) {
    checkSizing(expectedInsertions, fpp);
    return new RedisLayout(
        RedisBitmaps.helperBitSize(expectedInsertions, fpp),
        RedisBitmaps.helperNumHashFunctions(expectedInsertions, fpp),
        Strategy.MURMUR128_MITZ_32,
        "helperCompatible(" + expectedInsertions + ", " + fpp + ")");
  }

  /**
   * The shape of {@code BloomFilter.create(expectedInsertions, fpp, strategy)} (m a multiple of
   * 64), so filters sparkbloom builds that way, e.g. by {@code PerKeyFilters.buildPerKey}, can be
   * stored as they are; n ≥ 1, fpp in (0, 1).
   */
  public static RedisLayout guavaCompatible(long expectedInsertions, double fpp, Strategy strategy) {
    checkSizing(expectedInsertions, fpp);
    try (BloomFilter shape = BloomFilter.create(expectedInsertions, fpp, strategy)) {
      return new RedisLayout(shape.bitSize(), shape.numHashFunctions(), strategy,
          "guavaCompatible(" + expectedInsertions + ", " + fpp + ", " + strategy + ")");
    }
  }

  /** {@link #guavaCompatible(long, double, Strategy)} with sparkbloom's default strategy, {@code MURMUR128_MITZ_64}. */
  public static RedisLayout guavaCompatible(long expectedInsertions, double fpp) {
    return guavaCompatible(expectedInsertions, fpp, Strategy.MURMUR128_MITZ_64);
  }

  /** The layout of an explicit shape: m = {@code bitSize} in 1..2<sup>32</sup>, k in 1..255. */
  public static RedisLayout of(long bitSize, int numHashFunctions, Strategy strategy) {
    return new RedisLayout(bitSize, numHashFunctions, strategy,
        "of(" + bitSize + ", " + numHashFunctions + ", " + strategy + ")");
  }

  private static void checkSizing(long expectedInsertions, double fpp) {
    if (expectedInsertions < 1) {
      throw new IllegalArgumentException(
          "invalid argument expectedInsertions: " + expectedInsertions + " is not >= 1");
    }
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("invalid argument fpp: " + fpp + " is not in (0, 1)");
    }
  }

  /** @return m, the number of bits */
  public long bitSize() {
    return bitSize;
  }

  /** @return k */
  public int numHashFunctions() {
    return numHashFunctions;
  }

  /** @return how hashes become offsets */
  public Strategy strategy() {
    return strategy;
  }

  /** @return the longest value a key of this layout can hold: {@code ceil(bitSize / 8)} bytes */
  public long bitmapBytes() {
    return (bitSize + 7) / 8;
  }

  /**
   * A new empty filter of this shape; {@link BloomFilter#toRedisBitmap()} of it, once filled, is
   * the value {@code SETBIT} would build for the same items.
   */
  public BloomFilter newFilter() {
    return BloomFilter.withShape(bitSize, numHashFunctions, strategy);
  }

  /** Whether {@code filter} has this layout's shape and strategy: it can be stored under it. */
  public boolean fits(BloomFilter filter) {
    return filter.bitSize() == bitSize
        && filter.numHashFunctions() == numHashFunctions
        && filter.strategy() == strategy;
  }

  /** The k bit offsets (in 0..bitSize−1) of a {@code long} item, in the order the helper visits them. */
  public long[] offsets(long item) {
    return offsetsOf(new long[] {item}, 0, 1);
  }

  /** The k offsets of a string item (hashed as its UTF-8 bytes). */
  public long[] offsets(String item) {
    return offsetsOf(new String[] {item}, 0, 1);
  }

  /** The k offsets of a byte-array item. */
  public long[] offsets(byte[] item) {
    return offsetsOf(new byte[][] {item}, 0, 1);
  }

  /** The k offsets of {@code items[from..to)}, item after item: {@code out[j·k + i]}. */
  long[] offsetsOf(long[] items, int from, int to) {
    return RedisBitmaps.offsets(bitSize, numHashFunctions, strategy, items, from, to);
  }

  /** The k offsets of the UTF-8 bytes of {@code items[from..to)}, item after item. */
  long[] offsetsOf(String[] items, int from, int to) {
    return RedisBitmaps.offsets(bitSize, numHashFunctions, strategy, items, from, to);
  }

  /** The k offsets of {@code items[from..to)}, item after item. */
  long[] offsetsOf(byte[][] items, int from, int to) {
    return RedisBitmaps.offsets(bitSize, numHashFunctions, strategy, items, from, to);
  }

  @Override
  public boolean equals(Object o) {
    RedisLayout l = o instanceof RedisLayout ? (RedisLayout) o : null;
    return l != null && l.bitSize == bitSize && l.numHashFunctions == numHashFunctions && l.strategy == strategy;
  }

  @Override
  public int hashCode() {
    return Objects.hash(bitSize, numHashFunctions, strategy);
  }

  @Override
  public String toString() {
    return "RedisLayout." + name + ": " + bitSize + " bits, k = " + numHashFunctions + ", " + strategy;
  }
}
