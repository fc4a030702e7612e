package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Strategy.BLOCKED through JNI: shape, batches against single keys, bytes, refusals, FPP. */
class BlockedFilterTest {

  @Test
  void createGivesWholeBlocksAndTheBlockedStrategy() {
    try (BloomFilter f = BloomFilter.create(10_000_000, 0.01, Strategy.BLOCKED);
        BloomFilter classic = BloomFilter.create(10_000_000, 0.01)) {
      assertEquals(Strategy.BLOCKED, f.strategy());
      assertEquals(0, f.bitSize() % 512);
      assertEquals(6, f.numHashFunctions());
      // 9.92 bits per key against the classic 9.59 (FORMAT.md's table).
      assertEquals(9.918, f.bitSize() / 1e7, 0.001);
      assertTrue(f.bitSize() > classic.bitSize());
    }
    assertEquals(4, Strategy.BLOCKED.ordinal(), "the strategy byte of FORMAT.md");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withShape(512 * 3 + 64, 5, Strategy.BLOCKED));
    assertTrue(e.getMessage().contains("multiple of 512"), e.getMessage());
  }

  @Test
  void batchesEqualSingleKeysOnSmallAndLargeFilters() {
    for (long n : new long[] {10_000, 2_000_000}) {
      long[] keys = TestSupport.keys(n, 40_000);
      long[] put = Arrays.copyOf(keys, 20_000);
      try (BloomFilter batched = BloomFilter.create(n, 0.01, Strategy.BLOCKED);
          BloomFilter single = BloomFilter.create(n, 0.01, Strategy.BLOCKED)) {
        assertTrue(batched.putAll(put));
        for (long k : put) {
          single.put(k);
        }
        assertEquals(single, batched, "putAll sets the bits put does");
        assertFalse(batched.putAll(put), "nothing changes the second time");
        boolean[] answers = batched.mightContainAll(keys);
        long absent = 0;
        for (int i = 0; i < keys.length; i++) {
          assertEquals(single.mightContain(keys[i]), answers[i], "key " + i);
          if (i < put.length) {
            assertTrue(answers[i], "no false negative");
          }
          absent += answers[i] ? 0 : 1;
        }
        assertEquals(absent, batched.retainAbsent(keys).length);
        assertTrue(absent > 0);
      }
    }
  }

  @Test
  void mergeIntersectCopyAndEveryByteFormRoundTrip() throws Exception {
    try (BloomFilter a = BloomFilter.create(10_000, 0.01, Strategy.BLOCKED);
        BloomFilter b = BloomFilter.create(10_000, 0.01, Strategy.BLOCKED);
        BloomFilter classic = BloomFilter.create(10_000, 0.01)) {
      a.putAll(new long[] {1, 2, 3});
      b.put("x");
      b.put(3L);
      byte[] sparse = a.toByteArray();
      assertEquals(5, sparse[4], "format version 5");
      assertEquals(4, sparse[5], "strategy byte 4");
      assertEquals(1, sparse[6], "sparse");
      try (BloomFilter back = BloomFilter.fromByteArray(sparse)) {
        assertEquals(a, back);
      }
      a.merge(b);
      assertTrue(a.mightContain("x") && a.mightContain(1L));
      try (BloomFilter copy = a.copy()) {
        assertEquals(a, copy);
        copy.intersect(b);
        assertTrue(copy.mightContain("x") && copy.mightContain(3L));
      }
      assertFalse(a.isCompatible(classic));
      assertThrows(IllegalArgumentException.class, () -> a.merge(classic));
      a.putAll(TestSupport.keys(5, 10_000));
      byte[] dense = a.toByteArray();
      assertEquals(0, dense[6], "dense");
      try (BloomFilter back = BloomFilter.fromByteArray(dense)) {
        assertEquals(a, back);
        assertEquals(Strategy.BLOCKED, back.strategy());
      }
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(a);
      }
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()));
          BloomFilter back = (BloomFilter) in.readObject()) {
        assertEquals(a, back);
      }
    }
  }

  @Test
  void guavaSparkRedisAndCountingRefuseBlocked() throws IOException {
    try (BloomFilter f = BloomFilter.create(1_000, 0.01, Strategy.BLOCKED)) {
      for (Executable refused :
          new Executable[] {
            f::toGuavaByteArray,
            () -> f.writeGuava(new ByteArrayOutputStream()),
            () -> f.writeSpark(new ByteArrayOutputStream()),
            f::toRedisBitmap,
            () -> BloomFilter.fromRedisBitmap(new byte[0], f.bitSize(), 7, Strategy.BLOCKED),
            () -> CountingBloomFilter.create(1_000, 0.01, Strategy.BLOCKED),
            () -> CountingBloomFilter.withShape(1024, 7, Strategy.BLOCKED),
          }) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, refused);
        assertTrue(e.getMessage().contains("BLOCKED"), e.getMessage());
      }
    }
  }

  /**
   * Seeded: 10^5 keys, 10^6 other keys probed. The sizing's expected FPP is at most p; the
   * count of false positives is binomial with σ = √(N·p) ≈ 100 at p = 1 %, so 1.1·p (10^3 above
   * 10^4) is 10σ away, and the filter's own expected FPP (per-block fill) is within 5σ.
   */
  @Test
  void observedFppMeetsTheRequestedP() {
    for (double p : new double[] {0.01, 0.001}) {
      try (BloomFilter f = BloomFilter.create(100_000, p, Strategy.BLOCKED)) {
        f.putAll(TestSupport.keys(21, 100_000));
        long[] probe = TestSupport.keys(22, 1_000_000);
        long positives = 0;
        for (boolean present : f.mightContainAll(probe)) {
          positives += present ? 1 : 0;
        }
        double observed = positives / 1e6;
        assertTrue(observed <= 1.1 * p, "p=" + p + ": observed " + observed);
        double expected = f.expectedFpp();
        assertEquals(expected, observed, 5 * Math.sqrt(expected / 1e6), "p=" + p);
        assertEquals(100_000, f.approximateElementCount(), 2_000);
      }
    }
  }
}
