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

  /** {@code count} distinct string keys with a prefix, as {@code put(String)} takes them. */
  private static String[] strings(String prefix, int count) {
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      out[i] = prefix + "-" + (i * 2_654_435_761L);
    }
    return out;
  }

  /** The same keys as their UTF-8 bytes. */
  private static byte[][] utf8(String[] keys) {
    byte[][] out = new byte[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      out[i] = keys[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
    return out;
  }

  /**
   * String and byte batches set exactly the bits of one put per key and report the same change,
   * at the shapes whose batches take different paths: in cache (accumulated), 256 KiB to 4 MiB
   * (queried in lanes first), beyond (prefetched).
   */
  @Test
  void stringBatchesSetTheBitsOfSinglePuts() {
    for (long n : new long[] {10_000, 1_000_000, 5_000_000}) {
      String[] keys = strings("n" + n, 30_000);
      try (BloomFilter batched = BloomFilter.create(n, 0.01);
          BloomFilter bytes = BloomFilter.create(n, 0.01);
          BloomFilter single = BloomFilter.create(n, 0.01)) {
        for (int from = 0; from < keys.length; from += 4096) {
          String[] batch =
              java.util.Arrays.copyOfRange(keys, from, Math.min(keys.length, from + 4096));
          boolean changed = false;
          for (String key : batch) {
            changed |= single.put(key);
          }
          assertEquals(changed, batched.putAll(batch), "n = " + n);
          assertEquals(changed, bytes.putAll(utf8(batch)), "n = " + n);
        }
        assertEquals(single, batched, "String[] batches at n = " + n);
        assertEquals(single, bytes, "byte[][] batches at n = " + n);
        assertTrue(!batched.putAll(keys) && !bytes.putAll(utf8(keys)), "nothing new");
      }
    }
  }

  /** Another thread's single puts racing a long string batch: no key of either is lost. */
  @Test
  void stringPutsRacingABatchLoseNothing() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    for (int round = 0; round < 20; round++) {
      try (BloomFilter f = BloomFilter.create(1_000_000, 0.01)) {
        String[] mine = strings("creator" + round, 100_000);
        String[] theirs = strings("other" + round, 5_000);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Future<?> other = pool.submit(() -> {
          go.await();
          for (String key : theirs) {
            f.put(key);
          }
          return null;
        });
        go.countDown();
        f.putAll(mine);
        other.get();
        for (String key : theirs) {
          assertTrue(f.mightContain(key), "the other thread's put survived the batch");
        }
        assertEquals(0, f.retainAbsent(mine).length, "the creator's batch is whole");
      }
    }
    pool.shutdownNow();
  }

  /**
   * BLOCKED filters: batches racing another thread's single puts into a small filter (58
   * blocks, so both write the same words often) lose nothing.
   */
  @Test
  void blockedPutsRacingBatchesLoseNothing() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      for (int round = 0; round < 200; round++) {
        try (BloomFilter f = BloomFilter.create(3_000, 0.01, Strategy.BLOCKED)) {
          long[] mine = new long[1_500];
          long[] theirs = new long[1_500];
          for (int i = 0; i < mine.length; i++) {
            mine[i] = (round * 1_000_003L + i) * 0x9E3779B97F4A7C15L;
            theirs[i] = ~mine[i];
          }
          String[] mineStrings = strings("creator" + round, 300);
          java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
          Future<?> other = pool.submit(() -> {
            for (int i = 0; i < theirs.length; i++) {
              f.put(theirs[i]);
              if (i == 0) {
                started.countDown();
              }
            }
            return null;
          });
          f.putAll(java.util.Arrays.copyOfRange(mine, 0, 100));
          started.await(); // the other thread is putting: the batches below race its puts
          for (int from = 100; from < mine.length; from += 100) {
            f.putAll(java.util.Arrays.copyOfRange(mine, from, from + 100));
          }
          f.putAll(mineStrings);
          other.get();
          assertEquals(0, f.retainAbsent(theirs).length, "the other thread's puts survived");
          assertEquals(0, f.retainAbsent(mine).length, "the creator's long batches are whole");
          assertEquals(0, f.retainAbsent(mineStrings).length, "its string batch too");
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
