package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@code retainAbsent(long[] keys, int from, int to)} and {@code retainAbsent(long[])} against
 * single-key {@code mightContain}: slices at odd offsets and of lengths around the native walk's
 * groups of 8 and 16, its screen threshold (64) and passes (256), and lengths well beyond one
 * JMH batch, on all keys present, none present and a 50/50 mix; a long call followed by a short
 * one on the same thread (no state of the long call may leak into the short one's answer), and
 * threads sharing a filter.
 */
class RetainAbsentBatchTest {
  /** A long batch: twice the benchmarks' 4096 keys. */
  static final int LONG_BATCH = 8192;

  /** The keys of {@code keys[from..to)} that {@code mightContain} says are absent, in order. */
  static long[] absentOneByOne(BloomFilter f, long[] keys, int from, int to) {
    return Arrays.stream(keys, from, to).filter(key -> !f.mightContain(key)).toArray();
  }

  static long[] randomKeys(SplittableRandom r, int count) {
    return r.longs(count).toArray();
  }

  /** Half of {@code put} and half fresh keys, interleaved at random, {@code count} in all. */
  static long[] mix(SplittableRandom r, long[] put, int count) {
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = r.nextBoolean() ? put[r.nextInt(put.length)] : r.nextLong();
    }
    return out;
  }

  @Test
  void slicesAroundTheWalksBoundariesAgreeWithSingleKeys() {
    SplittableRandom r = new SplittableRandom(15);
    long[] put = randomKeys(r, 10_000);
    int[] lengths = {0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 257, 4095, 4096, 4097,
        LONG_BATCH - 1, LONG_BATCH, LONG_BATCH + 1, 20_001};
    try (BloomFilter f = BloomFilter.create(10_000, 0.001)) {
      f.putAll(put);
      for (String kind : new String[] {"present", "absent", "mixed"}) {
        long[] pool = new long[30_000];
        for (int i = 0; i < pool.length; i++) {
          boolean present = kind.equals("present") || (kind.equals("mixed") && r.nextBoolean());
          pool[i] = present ? put[r.nextInt(put.length)] : r.nextLong();
        }
        for (int length : lengths) {
          for (int from : new int[] {0, 3, 61, 257, pool.length - length}) {
            long[] expected = absentOneByOne(f, pool, from, from + length);
            String where = kind + " [" + from + ", " + (from + length) + ")";
            assertArrayEquals(expected, f.retainAbsent(pool, from, from + length), where);
            assertArrayEquals(
                expected, f.retainAbsent(Arrays.copyOfRange(pool, from, from + length)), where);
            if (kind.equals("present")) {
              assertEquals(0, expected.length, "no false negatives: " + where);
            }
          }
        }
      }
    }
  }

  @Test
  void aShortCallAfterALongOneReturnsOnlyItsOwnKeys() {
    SplittableRandom r = new SplittableRandom(16);
    long[] fresh = randomKeys(r, LONG_BATCH);
    try (BloomFilter f = BloomFilter.create(1_000, 0.001)) {
      f.putAll(Arrays.copyOf(fresh, 10));
      long[] long1 = f.retainAbsent(fresh, 0, fresh.length);
      assertArrayEquals(absentOneByOne(f, fresh, 0, fresh.length), long1);
      assertArrayEquals(new long[0], f.retainAbsent(fresh, 0, 10), "all ten were put");
      assertArrayEquals(new long[] {fresh[10]}, f.retainAbsent(fresh, 9, 11));
    }
  }

  @Test
  void threadsSharingAFilterEachGetTheirOwnAnswers() throws Exception {
    SplittableRandom r = new SplittableRandom(17);
    long[] put = randomKeys(r, 10_000);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try (BloomFilter f = BloomFilter.create(10_000, 0.001)) {
      f.putAll(put);
      List<Future<?>> runs = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long[] keys = mix(new SplittableRandom(100 + t), put, 50_000);
        runs.add(
            pool.submit(
                () -> {
                  for (int from = 0; from + 4096 <= keys.length; from += 4096 - 1 - from % 7) {
                    assertArrayEquals(
                        absentOneByOne(f, keys, from, from + 4096),
                        f.retainAbsent(keys, from, from + 4096));
                  }
                }));
      }
      for (Future<?> run : runs) {
        run.get();
      }
    } finally {
      pool.shutdown();
    }
  }
}
