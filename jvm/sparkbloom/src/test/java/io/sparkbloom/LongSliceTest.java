package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code putAll / mightContainAll / retainAbsent(long[] keys, int from, int to)}: the same bits
 * and answers as the calls on {@code Arrays.copyOfRange(keys, from, to)}, for a small array
 * (pinned on the native side) and one above the native side's pinning limit (copied piecewise),
 * and bad bounds refused as {@code Arrays.copyOfRange} refuses them. Surefire runs this under
 * {@code -Xcheck:jni}.
 */
class LongSliceTest {
  static long[] keys(long seed, int count) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = r.nextLong();
    }
    return out;
  }

  /** Every batch call on {@code all[from..to)} equals the call on its copy. */
  static void assertSlicesEqualCopies(long[] all, int from, int to, Strategy strategy) {
    long[] copy = Arrays.copyOfRange(all, from, to);
    try (BloomFilter sliced = BloomFilter.create(to - from + 1, 0.01, strategy);
        BloomFilter copied = BloomFilter.create(to - from + 1, 0.01, strategy)) {
      boolean changed = sliced.putAll(all, from, to);
      assertEquals(copied.putAll(copy), changed);
      assertEquals(copied, sliced, strategy + " [" + from + ", " + to + ")");
      assertFalse(sliced.putAll(all, from, to), "nothing changes the second time");
      for (long key : copy) {
        assertTrue(sliced.mightContain(key), "no false negative");
      }
      // Probe a wider slice: the keys put, and as many that were not.
      int probeTo = Math.min(all.length, to + (to - from));
      long[] probe = Arrays.copyOfRange(all, from, probeTo);
      assertArrayEquals(copied.mightContainAll(probe), sliced.mightContainAll(all, from, probeTo));
      assertArrayEquals(copied.retainAbsent(probe), sliced.retainAbsent(all, from, probeTo));
    }
  }

  @Test
  void slicesOfASmallArrayEqualTheCopiedCallsForEveryStrategy() {
    long[] all = keys(1, 20_000);
    for (Strategy strategy : Strategy.values()) {
      assertSlicesEqualCopies(all, 4096, 8192, strategy);
      assertSlicesEqualCopies(all, 0, 1, strategy);
      assertSlicesEqualCopies(all, 19_999, 20_000, strategy);
      assertSlicesEqualCopies(all, 0, 10_000, strategy);
    }
  }

  @Test
  void slicesOfAnArrayAboveThePinningLimitEqualTheCopiedCalls() {
    // 2^21 + 3 longs: just over the 16 MiB the native side pins; the slice spans several of its
    // 65,536-key pieces and starts inside one.
    long[] all = keys(2, (1 << 21) + 3);
    assertSlicesEqualCopies(all, 100_001, 100_001 + 150_000, Strategy.MURMUR128_MITZ_64);
    assertSlicesEqualCopies(all, all.length - 4096, all.length, Strategy.MURMUR128_MITZ_64);
  }

  @Test
  void anEmptySliceChangesNothingAndAnswersNothing() {
    long[] all = keys(3, 10);
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      assertFalse(f.putAll(all, 4, 4));
      assertEquals(0, f.mightContainAll(all, 10, 10).length);
      assertEquals(0, f.retainAbsent(all, 0, 0).length);
      assertEquals(BloomFilter.create(100, 0.01), f);
    }
  }

  @Test
  void badBoundsThrowAsArraysCopyOfRangeDoes() {
    long[] all = keys(4, 10);
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      IllegalArgumentException reversed =
          assertThrows(IllegalArgumentException.class, () -> f.putAll(all, 5, 4));
      assertEquals("invalid slice of keys: from 5 > to 4", reversed.getMessage());
      assertThrows(IllegalArgumentException.class, () -> f.mightContainAll(all, 5, 4));
      assertThrows(IllegalArgumentException.class, () -> f.retainAbsent(all, 5, 4));

      IndexOutOfBoundsException past =
          assertThrows(IndexOutOfBoundsException.class, () -> f.mightContainAll(all, 2, 11));
      assertEquals(
          "invalid slice of keys: [2, 11) is not within an array of length 10",
          past.getMessage());
      assertThrows(IndexOutOfBoundsException.class, () -> f.putAll(all, -1, 3));
      assertThrows(IndexOutOfBoundsException.class, () -> f.retainAbsent(all, 0, 11));
      assertThrows(IndexOutOfBoundsException.class, () -> f.putAll(all, 11, 11));

      NullPointerException none =
          assertThrows(NullPointerException.class, () -> f.retainAbsent(null, 0, 0));
      assertEquals("keys is null", none.getMessage());
      assertEquals(BloomFilter.create(100, 0.01), f, "a refused call puts nothing");
    }
  }

  @Test
  void aClosedFilterRefusesSlicedCalls() {
    BloomFilter f = BloomFilter.create(100, 0.01);
    f.close();
    assertThrows(IllegalStateException.class, () -> f.putAll(new long[4], 0, 2));
  }
}
