package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link BloomFilter#withShape} (bit counts that are not multiples of 64: format version 2) and
 * the Redis bitmap order of {@link BloomFilter#toRedisBitmap} / {@link BloomFilter#fromRedisBitmap}.
 */
class ExplicitShapeTest {
  /** The Redis helper's shape for (10,000, 0.001): m = (int) (-n ln p / ln²2), not rounded. */
  private static final long HELPER_BITS = 143_775;

  @Test
  void anyBitCountPlacesBitsAsGuavasWalkOverThatCount() {
    try (BloomFilter f = BloomFilter.withShape(HELPER_BITS, 10, Strategy.MURMUR128_MITZ_32)) {
      assertEquals(HELPER_BITS, f.bitSize());
      long[] items = new SplittableRandom(4).longs(300).toArray();
      f.putAll(items);
      byte[] bitmap = f.toRedisBitmap();
      assertEquals((HELPER_BITS + 7) / 8, bitmap.length);
      byte[] expected = new byte[bitmap.length];
      for (long item : items) {
        // MURMUR128_MITZ_32 over m, written out with real Guava's hash.
        long hash64 = Hashing.murmur3_128().hashObject(item, Funnels.longFunnel()).asLong();
        int hash1 = (int) hash64;
        int hash2 = (int) (hash64 >>> 32);
        for (int i = 1; i <= 10; i++) {
          int next = hash1 + i * hash2;
          if (next < 0) {
            next = ~next;
          }
          long offset = next % HELPER_BITS;
          expected[(int) (offset >>> 3)] |= (byte) (0x80 >>> (offset & 7));
        }
      }
      assertArrayEquals(expected, bitmap, "Redis bit order: bit b is 0x80 >>> (b % 8) of byte b / 8");
      try (BloomFilter back = BloomFilter.fromRedisBitmap(bitmap, HELPER_BITS, 10, Strategy.MURMUR128_MITZ_32)) {
        assertEquals(f, back);
      }
    }
  }

  @Test
  void versionTwoRoundTripsAndGuavaStreamRefuses() throws Exception {
    try (BloomFilter f = BloomFilter.withShape(HELPER_BITS, 10, Strategy.MURMUR128_MITZ_32)) {
      f.put(42L);
      byte[] bytes = f.toByteArray();
      assertEquals(2, bytes[4], "format version 2 for m not a multiple of 64");
      try (BloomFilter back = BloomFilter.fromByteArray(bytes)) {
        assertEquals(f, back);
        assertEquals(HELPER_BITS, back.bitSize());
      }
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, f::toGuavaByteArray);
      assertTrue(e.getMessage().contains("numBits"), e.getMessage());
    }
    try (BloomFilter whole = BloomFilter.withShape(640, 3, Strategy.MURMUR128_MITZ_64)) {
      assertEquals(1, whole.toByteArray()[4], "whole words stay version 1");
    }
  }

  @Test
  void badShapesAndBitmapsNameTheArgument() {
    assertNamed("numBits", () -> BloomFilter.withShape(0, 3, Strategy.MURMUR128_MITZ_64));
    assertNamed("numBits", () -> BloomFilter.withShape((1L << 43) + 1, 3, Strategy.MURMUR128_MITZ_64));
    assertNamed("numHashFunctions", () -> BloomFilter.withShape(100, 0, Strategy.MURMUR128_MITZ_64));
    assertNamed("numHashFunctions", () -> BloomFilter.withShape(100, 256, Strategy.MURMUR128_MITZ_64));
    assertNamed("bitmap", () -> BloomFilter.fromRedisBitmap(new byte[14], 100, 3, Strategy.MURMUR128_MITZ_32));
    // Bit 100 (byte 12, mask 0x08) is past the 100 bits 0..99.
    byte[] past = new byte[13];
    past[12] = 0x08;
    assertNamed("bitmap", () -> BloomFilter.fromRedisBitmap(past, 100, 3, Strategy.MURMUR128_MITZ_32));
    past[12] = 0x10;
    try (BloomFilter f = BloomFilter.fromRedisBitmap(past, 100, 3, Strategy.MURMUR128_MITZ_32)) {
      assertEquals(1, f.bitCount());
    }
    assertThrows(NullPointerException.class, () -> BloomFilter.fromRedisBitmap(null, 100, 3, Strategy.MURMUR128_MITZ_32));
    assertThrows(NullPointerException.class, () -> BloomFilter.withShape(100, 3, null));
  }

  private static void assertNamed(String name, org.junit.jupiter.api.function.Executable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
    assertTrue(e.getMessage().contains(name), e.getMessage());
  }

  /**
   * {@link RedisBitmaps}' sizing and offsets are the core's: the helper's shape, and the keys'
   * offsets are exactly the bits their puts set in the bitmap, for every key kind and for slices.
   */
  @Test
  void redisOffsetsAreTheBitsPutSets() {
    assertEquals(HELPER_BITS, RedisBitmaps.helperBitSize(10_000, 0.001));
    assertEquals(10, RedisBitmaps.helperNumHashFunctions(10_000, 0.001));
    long[] longs = new SplittableRandom(8).longs(50).toArray();
    String[] strings = {"user-1", "héllo", "😀", ""};
    byte[][] bytes = {{1, 2, 3}, {}};
    for (Strategy strategy : new Strategy[] {Strategy.MURMUR128_MITZ_32, Strategy.MURMUR128_MITZ_64}) {
      long[][] offsets = {
        RedisBitmaps.offsets(HELPER_BITS, 10, strategy, longs, 5, 45),
        RedisBitmaps.offsets(HELPER_BITS, 10, strategy, strings, 0, strings.length),
        RedisBitmaps.offsets(HELPER_BITS, 10, strategy, bytes, 1, 2)
      };
      assertEquals(400, offsets[0].length);
      assertArrayEquals(
          java.util.Arrays.copyOfRange(offsets[0], 10, 20), RedisBitmaps.offsets(HELPER_BITS, 10, strategy, longs, 6, 7));
      try (BloomFilter f = BloomFilter.withShape(HELPER_BITS, 10, strategy)) {
        f.putAll(java.util.Arrays.copyOfRange(longs, 5, 45));
        f.putAll(strings);
        f.put(bytes[1]);
        byte[] expected = new byte[(int) ((HELPER_BITS + 7) / 8)];
        for (long[] some : offsets) {
          for (long o : some) {
            expected[(int) (o >>> 3)] |= (byte) (0x80 >>> (o & 7));
          }
        }
        assertArrayEquals(expected, f.toRedisBitmap(), strategy.toString());
      }
    }
    assertThrows(IllegalArgumentException.class, () -> RedisBitmaps.offsets(0, 10, Strategy.MURMUR128_MITZ_32, longs, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisBitmaps.offsets(64, 3, Strategy.BLOCKED, longs, 0, 1));
    assertThrows(IllegalArgumentException.class, () -> RedisBitmaps.helperBitSize(1L << 31, 0.5));
    assertThrows(IndexOutOfBoundsException.class, () -> RedisBitmaps.offsets(64, 3, Strategy.MURMUR128_MITZ_64, strings, 2, 5));
  }
}
