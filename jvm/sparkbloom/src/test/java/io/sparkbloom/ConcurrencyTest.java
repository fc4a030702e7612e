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

  /**
   * The creating thread's batched puts skip atomic instructions while no other thread has used
   * the filter ({@code NativeHandle.beginUnsharedWrite}): a plain read-modify-write racing another
   * thread's OR on the same word would lose that thread's bit. So another thread's call must
   * wait while such a write is in progress, and once another thread has used the filter the
   * creator's writes are atomic again.
   */
  @Test
  void otherThreadsWaitForTheCreatorsUnsharedWrite() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (BloomFilter f = BloomFilter.create(1_000, 0.01)) {
      assertTrue(f.beginUnsharedWrite(), "only the creator has used it");
      java.util.concurrent.atomic.AtomicBoolean putReturned =
          new java.util.concurrent.atomic.AtomicBoolean();
      Future<?> other = pool.submit(() -> {
        f.put(42L);
        putReturned.set(true);
      });
      while (!f.isShared()) {
        Thread.onSpinWait(); // the other thread has arrived
      }
      Thread.sleep(200);
      assertTrue(!putReturned.get(), "the other thread's put waits for the unshared write");
      f.endUnsharedWrite();
      other.get();
      assertTrue(putReturned.get() && f.mightContain(42L));
      assertTrue(!f.beginUnsharedWrite(), "shared now: the creator writes atomically");
    } finally {
      pool.shutdownNow();
    }
  }

  /** A filter only its creator uses takes the unshared path; its puts lose nothing. */
  @Test
  void creatorOnlyFiltersWriteUnshared() {
    try (BloomFilter f = BloomFilter.create(100_000, 0.01)) {
      assertTrue(f.beginUnsharedWrite());
      f.endUnsharedWrite();
      long[] keys = TestSupport.keys(77, 100_000);
      assertTrue(f.putAll(keys));
      for (long key : keys) {
        assertTrue(f.mightContain(key));
      }
      assertTrue(!f.isShared());
    }
  }
}
