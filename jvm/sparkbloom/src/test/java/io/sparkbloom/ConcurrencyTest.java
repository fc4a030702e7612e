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
   * The creator's {@code String[]} and {@code byte[][]} batches take the unshared path too: while
   * one is in progress, another thread's string query and string batch wait for it (they would
   * race its plain writes), and once another thread has used the filter the creator's batches are
   * atomic again.
   */
  @Test
  void otherThreadsStringCallsWaitForTheCreatorsUnsharedWrite() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (BloomFilter f = BloomFilter.create(1_000, 0.01)) {
      assertTrue(f.beginUnsharedWrite(), "only the creator has used it");
      java.util.concurrent.atomic.AtomicInteger returned =
          new java.util.concurrent.atomic.AtomicInteger();
      Future<?> other = pool.submit(() -> {
        f.mightContain("some key");
        returned.incrementAndGet();
        f.putAll(new String[] {"theirs", "also theirs"});
        f.putAll(new byte[][] {{1, 2, 3}});
        returned.incrementAndGet();
      });
      while (!f.isShared()) {
        Thread.onSpinWait(); // the other thread has arrived
      }
      Thread.sleep(200);
      assertEquals(0, returned.get(), "the other thread's calls wait for the unshared write");
      f.endUnsharedWrite();
      other.get();
      assertEquals(2, returned.get());
      assertTrue(f.mightContain("theirs") && f.mightContain(new byte[] {1, 2, 3}));
      assertTrue(!f.beginUnsharedWrite(), "shared now: the creator writes atomically");
      String[] mine = strings("mine", 500);
      f.putAll(mine);
      f.putAll(utf8(strings("bytes", 500)));
      for (String key : mine) {
        assertTrue(f.mightContain(key));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * A creator-only filter's string and byte batches (unshared) set exactly the bits of one put
   * per key and report the same change, at the shapes whose batches take different paths: in
   * cache (accumulated), 256 KiB to 4 MiB (queried in lanes first), beyond (prefetched).
   */
  @Test
  void creatorOnlyStringBatchesSetTheBitsOfSinglePuts() {
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
        assertTrue(!batched.isShared() && !bytes.isShared(), "the unshared path was open");
        assertEquals(single, batched, "String[] batches at n = " + n);
        assertEquals(single, bytes, "byte[][] batches at n = " + n);
        assertTrue(!batched.putAll(keys) && !bytes.putAll(utf8(keys)), "nothing new");
      }
    }
  }

  /**
   * Another thread's single puts racing the creator's long string batch: whichever way the race
   * goes (the creator sees the filter shared and writes atomically, or the other thread waits for
   * the batch), no key of either is lost.
   */
  @Test
  void stringPutsRacingTheCreatorsBatchLoseNothing() throws Exception {
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
   * BLOCKED filters take the same unshared path (plain writes into each key's block) while only
   * their creator has used them, and locked ORs once another thread has: the creator's batches,
   * before and while another thread puts single keys into a small filter (58 blocks, so both
   * write the same words often), lose nothing.
   */
  @Test
  void blockedPutsRacingTheCreatorsBatchesLoseNothing() throws Exception {
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
          java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
          Future<?> other = pool.submit(() -> {
            go.await();
            for (long key : theirs) {
              f.put(key);
            }
            return null;
          });
          f.putAll(java.util.Arrays.copyOfRange(mine, 0, 100)); // unshared: plain writes
          go.countDown();
          while (!f.isShared()) {
            Thread.onSpinWait(); // the other thread's first put has arrived
          }
          for (int from = 100; from < mine.length; from += 100) {
            f.putAll(java.util.Arrays.copyOfRange(mine, from, from + 100)); // racing its puts
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

  /**
   * A creator-only filter's single puts (unshared: plain writes) set the bits and give the answers
   * of a shared filter's (locked ORs), for long, string and byte keys.
   */
  @Test
  void creatorOnlySinglePutsEqualSharedOnes() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (BloomFilter mine = BloomFilter.create(20_000, 0.01);
        BloomFilter shared = BloomFilter.create(20_000, 0.01)) {
      pool.submit(() -> shared.put(-1L)).get();
      mine.put(-1L);
      assertTrue(shared.isShared() && !mine.isShared());
      long[] keys = TestSupport.keys(5, 10_000);
      for (int i = 0; i < keys.length; i++) {
        long key = i % 7 == 6 ? keys[i / 2] : keys[i]; // some keys again: nothing changes
        assertEquals(shared.put(key), mine.put(key));
        assertEquals(shared.put("s" + key), mine.put("s" + key));
        byte[] bytes = {(byte) key, (byte) (key >> 8), (byte) i};
        assertEquals(shared.put(bytes), mine.put(bytes));
      }
      assertTrue(!mine.isShared(), "the creator's puts took the unshared path");
      assertEquals(shared, mine);
    } finally {
      pool.shutdownNow();
    }
  }
}
