package io.sparkbloom;

import java.util.Objects;

/**
 * A filter's bits as a Redis bitmap string and back, for {@code sparkbloom-redis} (and anyone
 * who keeps filters in Redis with {@code SETBIT}/{@code GETBIT}). {@link
 * BloomFilter#toRedisBitmap()} and {@link BloomFilter#fromRedisBitmap} delegate here.
 *
 * <p>Redis numbers bits from the most significant bit of byte 0 ({@code SETBIT key 0 1} makes
 * the value {@code "\x80"}): bit b of the filter is byte {@code b / 8}, mask {@code 0x80 >>> (b
 * % 8)}, and the string is {@code ceil(bitSize / 8)} bytes. The bitmap holds only the bits: the
 * shape (m, k) and the strategy travel separately ({@code io.sparkbloom.redis.RedisLayout}, whose
 * sizing and offsets are the core's, from here).
 */
public final class RedisBitmaps {
  private RedisBitmaps() {}

  /**
   * The two 64-bit halves (h1, h2) of Guava's Murmur3_x64_128 (seed 0) of a {@code long} item,
   * as {@code Funnels.longFunnel()} feeds it (8 little-endian bytes): the hash both classic
   * strategies walk from. For clients that compute bit offsets themselves (the Redis helper's
   * layout). {@code out} receives h1 at index 0 and h2 at index 1.
   */
  public static void guavaHash128(long item, long[] out) {
    long low = KeyHash.guavaLow(item);
    out[0] = low;
    out[1] = KeyHash.guavaHigh(item, low);
  }

  /**
   * The same for a byte-string item ({@code Funnels.byteArrayFunnel()}; a string's UTF-8 bytes
   * for {@code stringFunnel(UTF_8)}).
   */
  public static void guavaHash128(byte[] item, long[] out) {
    KeyHash.guava128(Objects.requireNonNull(item, "item is null"), out);
  }

  /**
   * The filter's bits as a Redis bitmap string, a new array of {@code ceil(filter.bitSize() / 8)}
   * bytes. Storing it with {@code SET} gives the key that {@code SETBIT key b 1} for every set
   * bit b would give, up to trailing zero bytes; {@code GETBIT key b} then answers bit b. One
   * native call.
   *
   * @throws IllegalStateException if the filter is closed
   */
  public static byte[] toRedisBitmap(BloomFilter filter) {
    return filter.call(BloomFilterNative::nToRedisBitmap);
  }

  /**
   * The filter of the given shape whose Redis bitmap is {@code bitmap} (see {@link
   * #toRedisBitmap}): what {@code GET key} returns for a key filled with {@code SETBIT}. A
   * shorter string is the same filter with zero tail bytes (Redis grows strings on demand). The
   * shape: m = {@code bitSize} in 1..2<sup>43</sup>, k = {@code numHashFunctions} in 1..255.
   *
   * @throws IllegalArgumentException naming {@code bitmap} if it is longer than {@code
   *     ceil(bitSize / 8)} bytes or sets a bit at or above {@code bitSize} (it is not a filter of
   *     this shape), or naming another argument that is out of range
   */
  public static BloomFilter fromRedisBitmap(
      byte[] bitmap, long bitSize, int numHashFunctions, Strategy strategy) {
    Objects.requireNonNull(strategy, "strategy is null");
    return new BloomFilter(
        BloomFilterNative.nFromRedisBitmap(bitmap, bitSize, numHashFunctions, strategy.ordinal()));
  }

  /**
   * The bit count m of the widely copied "BloomFilterHelper" that services run on {@code
   * SETBIT}/{@code GETBIT}: {@code (int) (-n · ln fpp / ln²2)} for n ≥ 1 and fpp in (0, 1), not
   * rounded up to whole words.
   *
   * @throws IllegalArgumentException naming the argument out of range, where m is 0, or where
   *     the helper's {@code int} arithmetic breaks (n or m beyond {@code Integer.MAX_VALUE}, or
   *     more than 255 hash functions)
   */
  public static long helperBitSize(long expectedInsertions, double fpp) {
    return BloomFilterNative.nRedisHelperShape(expectedInsertions, fpp) >>> 8;
  }

  /** The helper's k for {@link #helperBitSize}'s m: {@code max(1, round(m / n · ln 2))}, or its exception. */
  public static int helperNumHashFunctions(long expectedInsertions, double fpp) {
    return (int) (BloomFilterNative.nRedisHelperShape(expectedInsertions, fpp) & 0xff);
  }

  /**
   * The {@code GETBIT} offsets of {@code keys[from..to)} in the Redis bitmap of a filter of this
   * shape and strategy: the k bits {@code put} sets for each key, in the strategy's order, key
   * after key ({@code out[j·k + i]} is offset i of {@code keys[from + j]}), {@code (to - from) ·
   * k} of them, in one native call. m is in 1..2<sup>32</sup> (a Redis string's bits), k in
   * 1..255, the strategy any but {@code BLOCKED}.
   *
   * @throws IllegalArgumentException naming the argument out of range, or if the offsets exceed
   *     a Java array
   */
  public static long[] offsets(
      long bitSize, int numHashFunctions, Strategy strategy, long[] keys, int from, int to) {
    KeyArgs.checkSlice(keys, from, to);
    return BloomFilterNative.nRedisOffsets(
        bitSize, numHashFunctions, ordinal(strategy), keys, from, to);
  }

  /** {@link #offsets(long, int, Strategy, long[], int, int)} of byte-string keys. */
  public static long[] offsets(
      long bitSize, int numHashFunctions, Strategy strategy, byte[][] keys, int from, int to) {
    PackedKeys p = PackedKeys.of(keys, from, to);
    return BloomFilterNative.nRedisOffsetsPacked(
        bitSize, numHashFunctions, ordinal(strategy), p.data, p.ends);
  }

  /** {@link #offsets(long, int, Strategy, long[], int, int)} of string keys (their UTF-8 bytes). */
  public static long[] offsets(
      long bitSize, int numHashFunctions, Strategy strategy, String[] keys, int from, int to) {
    PackedChars p = PackedChars.of(keys, from, to);
    return BloomFilterNative.nRedisOffsetsUtf16(
        bitSize, numHashFunctions, ordinal(strategy), p.chars, p.ends);
  }

  private static int ordinal(Strategy strategy) {
    return Objects.requireNonNull(strategy, "strategy is null").ordinal();
  }
}
