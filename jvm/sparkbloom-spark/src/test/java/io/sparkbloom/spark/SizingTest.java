package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.Strategy;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Sizing} on its own: arguments, value semantics, and the filters it creates. */
class SizingTest {

  @Test
  void badArgumentsNameWhatIsWrong() {
    for (double p : new double[] {0, 1, -0.1, 1.5, Double.NaN}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sizing.perKeyCount(p));
      assertTrue(e.getMessage().contains("fpp"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> Sizing.fixed(100, p));
    }
    assertThrows(IllegalArgumentException.class, () -> Sizing.fixed(-1, 0.01));
    for (double f : new double[] {0.99, 0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> Sizing.perKeyCount(0.01).withHeadroom(f));
      assertTrue(e.getMessage().contains("factor"), e.getMessage());
    }
    // fixed n times the headroom past the core's limit is refused up front
    assertThrows(IllegalArgumentException.class, () -> Sizing.fixed(1L << 20, 0.01).withHeadroom(1e9));
  }

  @Test
  void valueSemantics() throws Exception {
    Sizing a = Sizing.perKeyCount(0.001).withHeadroom(1.5);
    assertEquals(a, Sizing.perKeyCount(0.001).withHeadroom(1.5));
    assertEquals(a.hashCode(), Sizing.perKeyCount(0.001).withHeadroom(1.5).hashCode());
    assertNotEquals(a, Sizing.perKeyCount(0.001));
    assertNotEquals(Sizing.perKeyCount(0.001), Sizing.fixed(1, 0.001));
    assertEquals("Sizing.perKeyCount(0.001).withHeadroom(1.5)", a.toString());
    assertEquals("Sizing.fixed(10000, 0.001)", Sizing.fixed(10_000, 0.001).toString());
    assertTrue(a.isPerKeyCount());
    assertFalse(Sizing.fixed(10, 0.1).isPerKeyCount());

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(a);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      assertEquals(a, in.readObject());
    }
  }

  @Test
  void expectedInsertionsFollowTheCountAndHeadroom() {
    Sizing perKey = Sizing.perKeyCount(0.01);
    assertEquals(200, perKey.expectedInsertions(200));
    assertEquals(1, perKey.expectedInsertions(0), "an empty key still gets a (1-item) filter");
    assertEquals(300, perKey.withHeadroom(1.5).expectedInsertions(200));
    assertEquals(5, perKey.withHeadroom(1.5).expectedInsertions(3), "4.5, rounded up");
    assertEquals(10_000, Sizing.fixed(10_000, 0.01).expectedInsertions(200));
    assertEquals(15_000, Sizing.fixed(10_000, 0.01).withHeadroom(1.5).expectedInsertions(200));
  }

  @Test
  void perKeyBuildCountsDistinctItemsAndKeepsTheInput() {
    Random r = new Random(11);
    long[] distinct = r.longs(200).toArray();
    long[] items = new long[600];
    for (int i = 0; i < items.length; i++) {
      items[i] = distinct[i % distinct.length]; // every item three times
    }
    long[] before = items.clone();
    try (BloomFilter f = Sizing.perKeyCount(0.001).build(items);
        BloomFilter expected = BloomFilter.withShape(2_880, 10, Strategy.MURMUR128_MITZ_64)) {
      assertArrayEquals(before, items, "build must not reorder the caller's array");
      assertEquals(expected.bitSize(), f.bitSize(), "sized for the 200 distinct items, not 600");
      assertEquals(expected.numHashFunctions(), f.numHashFunctions());
      expected.putAll(distinct);
      assertEquals(expected, f, "the same bits as a filter built item by item");
    }
    try (BloomFilter fixed = Sizing.fixed(10_000, 0.001).build(items)) {
      assertEquals(BloomFilter.create(10_000, 0.001).bitSize(), fixed.bitSize());
      for (long v : distinct) {
        assertTrue(fixed.mightContain(v));
      }
    }
  }

  /** The Javadoc table of {@link Sizing#perKeyShape}, and its first rows against the old rule. */
  @Test
  void perKeyShapeTable() {
    assertArrayEquals(new long[] {64, 2}, Sizing.perKeyShape(1, 1e-3));
    // a one-item key: 64 bits at any p (it got 1,000,000 bits at 1e-6, 1,000,650,560 at 1e-9)
    assertArrayEquals(new long[] {64, 6}, Sizing.perKeyShape(1, 1e-6));
    assertArrayEquals(new long[] {64, 12}, Sizing.perKeyShape(1, 1e-9));
    assertArrayEquals(new long[] {64, 24}, Sizing.perKeyShape(1, 1e-12));
    assertArrayEquals(new long[] {2_880, 10}, Sizing.perKeyShape(200, 1e-3));
    assertArrayEquals(new long[] {1_920, 7}, Sizing.perKeyShape(200, 1e-2));
    assertArrayEquals(new long[] {287_552, 20}, Sizing.perKeyShape(10_000, 1e-6));
    try (BloomFilter one = Sizing.perKeyCount(1e-12).create(1)) {
      assertEquals(64, one.bitSize());
    }
  }

  /**
   * Over a grid of n and p: whole words; never more bits than Guava's filter for (n, p) (the
   * core's {@code create}, Guava's sizing); the textbook rate (1 − e^(−kn/m))^k at most p, unless
   * Guava's own m misses p, where the per-key filter is Guava's m with a k at least as good as
   * Guava's; one word fewer would miss p (the smallest m); one hash function fewer would too.
   */
  @Test
  void perKeyShapeMeetsTheExactBoundWithinGuavasSize() {
    long[] counts = {1, 2, 3, 5, 7, 10, 13, 50, 100, 200, 999, 1_000, 4_096, 10_000, 123_457, 1_000_000};
    double[] rates = {0.5, 0.3, 0.1, 0.03, 0.01, 1e-3, 1e-4, 1e-6, 1e-9, 1e-12, 1e-15};
    for (long n : counts) {
      for (double p : rates) {
        long[] shape = Sizing.perKeyShape(n, p);
        long m = shape[0];
        int k = (int) shape[1];
        String at = "n=" + n + " p=" + p + " m=" + m + " k=" + k;
        long guavaBits = guavaBits(n, p);
        if (n <= 10_000) {
          try (BloomFilter g = BloomFilter.create(n, p)) {
            assertEquals(g.bitSize(), guavaBits, at);
          }
        }
        assertEquals(0, m % 64, at);
        assertTrue(m <= guavaBits, at + ": more bits than Guava's " + guavaBits);
        double rate = Math.pow(1 - Math.exp(-(double) k * n / m), k);
        if (m < guavaBits) {
          assertTrue(rate <= p, at + ": rate " + rate);
          assertTrue(k == 1 || Math.pow(1 - Math.exp(-(k - 1.0) * n / m), k - 1) > p, at + ": fewer k meet p");
        } else {
          int guavaK = (int) Math.max(1, Math.round((double) (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))) / n * Math.log(2)));
          double guavaRate = Math.pow(1 - Math.exp(-(double) guavaK * n / m), guavaK);
          assertTrue(rate <= p || rate <= guavaRate, at + ": rate " + rate + ", Guava's " + guavaRate);
        }
        if (m > 64) {
          long fewer = m - 64;
          for (int j = 1; j <= 255; j++) {
            assertTrue(Math.pow(1 - Math.exp(-(double) j * n / fewer), j) > p, at + ": " + fewer + " bits, k=" + j);
          }
        }
      }
    }
  }

  /** Guava's bits for (n, p), independently of the code under test: ⌊−n·ln p / ln²2⌋ in whole words. */
  private static long guavaBits(long n, double p) {
    long bits = (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2)));
    return Math.max(64, (bits + 63) / 64 * 64);
  }
}
