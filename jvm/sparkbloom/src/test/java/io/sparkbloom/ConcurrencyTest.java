package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Many threads on one filter: no lost bits, no false negatives. */
class ConcurrencyTest {
  static final int THREADS = 8;
  static final int PER_THREAD = 100_000;

  @Test
  void eightThreadsPutAndQueryOneFilterWithNoFalseNegatives() throws Exception {
    long[][] keys = new long[THREADS][];
    for (int t = 0; t < THREADS; t++) {
      keys[t] = TestSupport.keys(1_000 + t, PER_THREAD);
    }
    AtomicLong falseNegatives = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (BloomFilter shared = BloomFilter.create((long) THREADS * PER_THREAD, 0.01)) {
      CyclicBarrier start = new CyclicBarrier(THREADS);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final long[] mine = keys[t];
        final int id = t;
        done.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < mine.length; i++) {
                    // Mix every entry point: single puts, batch puts, strings.
                    if (id % 2 == 0 || i % 1000 != 0) {
                      shared.put(mine[i]);
                    } else {
                      shared.putAll(new long[] {mine[i]});
                    }
                    shared.put("k" + mine[i]);
                    // A key this thread put is visible to it at once...
                    if (!shared.mightContain(mine[i]) || !shared.mightContain("k" + mine[i])) {
                      falseNegatives.incrementAndGet();
                    }
                    // ...and every 512 keys, the last 4096 so far, through the batch paths.
                    if (i % 512 == 511) {
                      long[] sofar = java.util.Arrays.copyOfRange(mine, Math.max(0, i - 4095), i + 1);
                      for (boolean present : shared.mightContainAll(sofar)) {
                        if (!present) {
                          falseNegatives.incrementAndGet();
                        }
                      }
                      falseNegatives.addAndGet(shared.retainAbsent(sofar).length);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      assertEquals(0, falseNegatives.get(), "false negatives while threads were putting");
      try (BloomFilter sequential = BloomFilter.create((long) THREADS * PER_THREAD, 0.01)) {
        for (long[] mine : keys) {
          sequential.putAll(mine);
          for (long k : mine) {
            assertTrue(shared.mightContain(k));
            sequential.put("k" + k);
          }
        }
        assertEquals(sequential, shared, "concurrent puts lost no bit");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentMergesIntoOneFilterLoseNothing() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (BloomFilter total = BloomFilter.create(80_000, 0.01)) {
      List<Future<BloomFilter>> parts = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        final int id = t;
        parts.add(
            pool.submit(
                () -> {
                  BloomFilter part = BloomFilter.create(80_000, 0.01);
                  part.putAll(TestSupport.keys(id, 10_000));
                  total.merge(part);
                  return part;
                }));
      }
      for (int t = 0; t < THREADS; t++) {
        try (BloomFilter part = parts.get(t).get()) {
          assertTrue(total.retainAbsent(TestSupport.keys(t, 10_000)).length == 0);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
