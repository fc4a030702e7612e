package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.hash.Funnels;
import com.google.common.hash.HashCode;
import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Single-key {@code mightContain} ({@code long}, {@code byte[]}, {@code String}) answered in
 * Java over the native words ({@link BitsView}): the long hash equals Guava's, every answer
 * equals the native path's for every strategy and shape, a closed filter still throws, and a
 * reader sees every put that happens-before its query. (Guava's and Spark's own answers for
 * byte-string and string keys: {@code GuavaOracleTest}, {@code SparkSketchOracleTest}.)
 */
class BitsViewTest {
  private static final int HASH_KEYS = 1_000_000;

  @Test
  void longHashIsGuavasMurmur3_128OfTheLongFunnel() {
    HashFunction guava = Hashing.murmur3_128();
    long[] keys = TestSupport.keys(20_261_122, HASH_KEYS);
    keys[0] = 0;
    keys[1] = -1;
    keys[2] = Long.MIN_VALUE;
    keys[3] = Long.MAX_VALUE;
    int mismatches = 0;
    for (long key : keys) {
      HashCode expected = guava.hashObject(key, Funnels.longFunnel());
      ByteBuffer halves = ByteBuffer.wrap(expected.asBytes()).order(ByteOrder.LITTLE_ENDIAN);
      long low = KeyHash.guavaLow(key);
      if (low != halves.getLong(0)
          || low != expected.asLong()
          || KeyHash.guavaHigh(key, low) != halves.getLong(8)) {
        mismatches++;
      }
    }
    assertEquals(0, mismatches, "keys whose Java hash differs from Guava's, of " + HASH_KEYS);
  }

  @Test
  void sparkHashLongMatchesSparksKnownValues() {
    // The values rust/src/spark_hashing.rs pins against Spark's Murmur3_x86_32.hashLong.
    assertEquals(1_669_671_676, KeyHash.sparkHashLong(0, 0));
    assertEquals(1_392_991_556, KeyHash.sparkHashLong(1, 0));
    assertEquals(1_871_679_806, KeyHash.sparkHashLong(42, 0));
    assertEquals(1_651_860_712, KeyHash.sparkHashLong(-1, 0));
    assertEquals(-1_193_428_387, KeyHash.sparkHashLong(1, 1_392_991_556));
  }

  @Test
  void everyStrategyAnswersAsTheNativePathAtSeveralShapes() throws Exception {
    long[][] shapes = {{1, 0}, {100, 0}, {10_000, 0}, {1_000_000, 0}};
    double[] fpps = {0.3, 0.01, 0.001, 0.03};
    for (Strategy strategy : Strategy.values()) {
      for (int s = 0; s < shapes.length; s++) {
        long n = shapes[s][0];
        try (BloomFilter f = BloomFilter.create(n, fpps[s], strategy)) {
          ByteBuffer view = BloomFilterNative.nWordsView(f.handle());
          assertEquals((f.bitSize() + 63) / 64 * 8, view.capacity(), "the view covers the words");
          fill(f, 7 + s, (int) Math.min(n, 50_000));
          assertSameAnswers(f, strategy + " (" + n + ", " + fpps[s] + ")");
          try (BloomFilter decoded = BloomFilter.fromByteArray(f.toByteArray());
              BloomFilter merged = BloomFilter.create(n, fpps[s], strategy);
              BloomFilter copy = f.copy()) {
            fill(merged, 99, (int) Math.min(n, 20_000));
            merged.merge(decoded);
            assertSameAnswers(decoded, strategy + " decoded");
            assertSameAnswers(merged, strategy + " merged");
            assertSameAnswers(copy, strategy + " copy");
          }
        }
      }
    }
  }

  @Test
  void byteStringAndStringKeysAnswerAsTheNativePath() {
    // Every length from 0 to 40 (empty, tails of 1 to 15 bytes, one and two 16-byte blocks),
    // random bytes, about half the keys put; strings with non-ASCII characters.
    java.util.Random random = new java.util.Random(20_261_122);
    byte[][] keys = new byte[20_000][];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = new byte[i % 41];
      random.nextBytes(keys[i]);
    }
    String[] strings = new String[5_000];
    for (int i = 0; i < strings.length; i++) {
      strings[i] = "user-" + i + (i % 3 == 0 ? "-é漢" : "") + "-" + random.nextLong();
    }
    for (Strategy strategy : Strategy.values()) {
      for (long n : new long[] {1_000, 100_000}) {
        try (BloomFilter f = BloomFilter.create(n, 0.01, strategy)) {
          for (int i = 0; i < keys.length; i += 2) {
            f.put(keys[i]);
          }
          for (int i = 0; i < strings.length; i += 2) {
            f.put(strings[i]);
          }
          long h = f.handle();
          int mismatches = 0;
          for (int i = 0; i < keys.length; i++) {
            boolean answer = f.mightContain(keys[i]);
            mismatches += answer != NativeFilter.nMightContainBytes(NativeFilter.PLAIN, h, keys[i]) ? 1 : 0;
            mismatches += i % 2 == 0 && !answer ? 1 : 0;
          }
          for (int i = 0; i < strings.length; i++) {
            boolean answer = f.mightContain(strings[i]);
            byte[] utf8 = strings[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            mismatches += answer != NativeFilter.nMightContainBytes(NativeFilter.PLAIN, h, utf8) ? 1 : 0;
            mismatches += i % 2 == 0 && !answer ? 1 : 0;
          }
          assertEquals(0, mismatches, strategy + " n=" + n + ": byte-string answers");
          NullPointerException e =
              assertThrows(NullPointerException.class, () -> f.mightContain((byte[]) null));
          assertEquals("key is null", e.getMessage());
        }
      }
    }
  }

  @Test
  void explicitShapesAnswerAsTheNativePath() {
    // Bit counts that are not whole words (the Redis helper's layouts), a tiny one, and k = 1.
    long[] bitSizes = {1, 63, 65, 1_000_003, 143_775};
    for (Strategy strategy : new Strategy[] {Strategy.MURMUR128_MITZ_32, Strategy.MURMUR128_MITZ_64,
        Strategy.SPARK_SKETCH_V1, Strategy.SPARK_SKETCH_V2}) {
      for (long m : bitSizes) {
        for (int k : new int[] {1, 7, 13}) {
          try (BloomFilter f = BloomFilter.withShape(m, k, strategy)) {
            fill(f, m + k, (int) Math.min(m / 4 + 1, 10_000));
            assertSameAnswers(f, strategy + " m=" + m + " k=" + k);
          }
        }
      }
    }
    try (BloomFilter f = BloomFilter.withShape(512 * 3, 9, Strategy.BLOCKED)) {
      fill(f, 3, 100);
      assertSameAnswers(f, "BLOCKED, three blocks");
    }
  }

  @Test
  void filtersAroundTwoToThe31BitsAnswerAsTheNativePath() {
    // Indexes past the int range (and MITZ_32's 2^31 − 1 cap). The pages stay untouched until
    // written, so only the few thousand put keys cost memory.
    for (Strategy strategy : Strategy.values()) {
      long m = strategy == Strategy.BLOCKED ? (1L << 31) + 512 : (1L << 31) + 77;
      try (BloomFilter f = BloomFilter.withShape(m, 3, strategy)) {
        fill(f, 31, 1_000);
        assertSameAnswers(f, strategy + " m=" + m, 2_000);
      }
    }
  }

  @Test
  void aFilterTooLargeForABufferKeepsTheNativePath() {
    long m = (1L << 34) + 128; // 2 GiB of words, one past the buffer's int capacity
    BloomFilter f;
    try {
      f = BloomFilter.withShape(m, 2, Strategy.MURMUR128_MITZ_64);
    } catch (OutOfMemoryError | IllegalArgumentException noRoom) {
      assumeTrue(false, "no 2 GiB of address space for the filter here: " + noRoom.getMessage());
      return;
    }
    try (BloomFilter big = f) {
      assertEquals(null, BloomFilterNative.nWordsView(big.handle()));
      fill(big, 34, 500);
      assertSameAnswers(big, "m=2^34+128 (no view)", 1_000);
    }
  }

  @Test
  void aClosedFilterStillThrows() {
    BloomFilter f = BloomFilter.create(1_000, 0.01);
    f.put(5);
    assertTrue(f.mightContain(5));
    f.close();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> f.mightContain(5));
    assertTrue(e.getMessage().contains("closed"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> f.mightContain(new byte[] {1}));
    assertThrows(IllegalStateException.class, () -> f.mightContain("k"));
  }

  @Test
  void aFilterClosedByAnotherThreadThrowsAndItsMemoryOutlivesTheReaders() throws Exception {
    // Readers on other threads mark the filter shared, so close() leaves the freeing to the
    // Cleaner; they keep querying until they see it closed, and must never read a wrong bit.
    long[] keys = TestSupport.keys(77, 10_000);
    BloomFilter f = BloomFilter.create(10_000, 0.001);
    f.putAll(keys);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      AtomicInteger started = new AtomicInteger();
      List<Future<Integer>> readers = submitted(pool, 2, () -> {
        int wrong = 0;
        started.incrementAndGet();
        try {
          for (int round = 0; ; round++) {
            if (!f.mightContain(keys[round % keys.length])) {
              wrong++;
            }
          }
        } catch (IllegalStateException closed) {
          return wrong;
        }
      });
      while (started.get() < 2) {
        Thread.yield();
      }
      f.mightContain(keys[0]);
      f.close();
      for (Future<Integer> reader : readers) {
        assertEquals(0, reader.get(), "false negatives read before the close was seen");
      }
      assertTrue(f.isClosed());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aQuerySeesEveryPutThatHappensBeforeIt() throws Exception {
    // One writer puts keys one by one (through the native put) and then publishes how many it
    // has put (a volatile write); readers read the count (a volatile read) and query the keys
    // below it through the Java view: each such put happens-before the query.
    long[] keys = TestSupport.keys(4_242, 200_000);
    try (BloomFilter f = BloomFilter.create(keys.length, 0.01)) {
      AtomicInteger published = new AtomicInteger();
      ExecutorService pool = Executors.newFixedThreadPool(3);
      try {
        Future<?> writer =
            pool.submit(
                () -> {
                  for (int i = 0; i < keys.length; i++) {
                    f.put(keys[i]);
                    published.set(i + 1);
                  }
                });
        List<Future<Long>> readers = submitted(pool, 2, () -> {
          long falseNegatives = 0;
          int seen;
          do {
            seen = published.get();
            if (seen > 0 && (!f.mightContain(keys[seen - 1]) || !f.mightContain(keys[seen / 2]))) {
              falseNegatives++;
            }
          } while (seen < keys.length);
          return falseNegatives;
        });
        writer.get();
        for (Future<Long> reader : readers) {
          assertEquals(0L, reader.get(), "keys put before the query that it did not see");
        }
      } finally {
        pool.shutdownNow();
      }
      for (long key : keys) {
        assertTrue(f.mightContain(key));
      }
    }
  }

  /** {@code task} submitted {@code count} times to {@code pool}. */
  private static <T> List<Future<T>> submitted(ExecutorService pool, int count, Callable<T> task) {
    List<Future<T>> futures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      futures.add(pool.submit(task));
    }
    return futures;
  }

  /** Puts {@code count} seeded keys, half singly (native put) and half as a batch. */
  private static void fill(BloomFilter f, long seed, int count) {
    long[] keys = TestSupport.keys(seed, count);
    for (int i = 0; i < count / 2; i++) {
      f.put(keys[i]);
    }
    f.putAll(keys, count / 2, count);
    for (long key : keys) {
      assertTrue(f.mightContain(key), "a key put is present");
    }
  }

  /**
   * Single-key answers (the Java view) equal the native batch's on 20,000 seeded keys, half of
   * them put first.
   */
  private static void assertSameAnswers(BloomFilter f, String what) {
    assertSameAnswers(f, what, 20_000);
  }

  /** As above with {@code count} probe keys (huge filters: each put key touches k pages). */
  private static void assertSameAnswers(BloomFilter f, String what, int count) {
    long[] probe = TestSupport.keys(-1, count);
    for (int i = 0; i < probe.length; i += 2) {
      f.put(probe[i]);
    }
    boolean[] expected = f.mightContainAll(probe);
    int mismatches = 0;
    int present = 0;
    for (int i = 0; i < probe.length; i++) {
      boolean answer = f.mightContain(probe[i]);
      mismatches += answer != expected[i] ? 1 : 0;
      present += answer ? 1 : 0;
    }
    assertEquals(0, mismatches, what + ": single-key answers that differ from mightContainAll");
    assertTrue(present >= probe.length / 2, what + ": every put key is present");
    assertFalse(f.isClosed());
  }
}
