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
 * shape (m, k) and the strategy travel separately ({@code io.sparkbloom.redis.RedisLayout}).
 */
public final class RedisBitmaps {
  private RedisBitmaps() {}

  /**
   * The two 64-bit halves (h1, h2) of Guava's Murmur3_x64_128 (seed 0) of a {@code long} item,
   * as {@code Funnels.longFunnel()} feeds it (8 little-endian bytes): the hash both classic
   * strategies walk from. For clients that compute bit offsets themselves (the Redis helper's
   * layout).
   *
   * @param item the item
   * @param out receives h1 at index 0 and h2 at index 1
   */
  public static void guavaHash128(long item, long[] out) {
    long low = KeyHash.guavaLow(item);
    out[0] = low;
    out[1] = KeyHash.guavaHigh(item, low);
  }

  /**
   * The same for a byte-string item ({@code Funnels.byteArrayFunnel()}; a string's UTF-8 bytes
   * for {@code stringFunnel(UTF_8)}).
   *
   * @param item the item's bytes
   * @param out receives h1 at index 0 and h2 at index 1
   */
  public static void guavaHash128(byte[] item, long[] out) {
    KeyHash.guava128(Objects.requireNonNull(item, "item is null"), out);
  }

  /**
   * The filter's bits as a Redis bitmap string. Storing it with {@code SET} gives the key that
   * {@code SETBIT key b 1} for every set bit b would give, up to trailing zero bytes; {@code
   * GETBIT key b} then answers bit b. One native call.
   *
   * @param filter the filter
   * @return a new array of {@code ceil(filter.bitSize() / 8)} bytes
   * @throws IllegalStateException if the filter is closed
   */
  public static byte[] toRedisBitmap(BloomFilter filter) {
    return filter.call(BloomFilterNative::nToRedisBitmap);
  }

  /**
   * The filter of the given shape whose Redis bitmap is {@code bitmap} (see {@link
   * #toRedisBitmap}): what {@code GET key} returns for a key filled with {@code SETBIT}. A
   * shorter string is the same filter with zero tail bytes (Redis grows strings on demand).
   *
   * @param bitmap the Redis string value; not null
   * @param bitSize m, in 1..2<sup>43</sup>
   * @param numHashFunctions k, in 1..255
   * @param strategy how hashes become bit positions; not null
   * @return a new filter
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
}
