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
        BloomFilter expected = BloomFilter.withShape(
            BloomFilter.perKeyBitSize(200, 0.001), BloomFilter.perKeyNumHashFunctions(200, 0.001), Strategy.MURMUR128_MITZ_64)) {
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

  /** The per-key shape is the core's (BloomFilter.perKey*, which tests/golden's table holds). */
  @Test
  void perKeyShapeIsTheCores() {
    long[] counts = {0, 1, 2, 3, 5, 17, 200, 999, 10_000, 123_457, 1_000_000};
    double[] rates = {0.5, 0.1, 0.01, 1e-3, 1e-4, 1e-6, 1e-9};
    for (long n : counts) {
      for (double p : rates) {
        long[] expected = {BloomFilter.perKeyBitSize(n, p), BloomFilter.perKeyNumHashFunctions(n, p)};
        assertArrayEquals(expected, Sizing.perKeyShape(n, p), "n=" + n + " p=" + p);
        assertTrue(expected[0] % 64 == 0 && expected[0] >= guavaBits(Math.max(1, n), p), "n=" + n + " p=" + p);
        if (n <= 10_000) {
          try (BloomFilter f = Sizing.perKeyCount(p).create(n)) {
            assertArrayEquals(expected, new long[] {f.bitSize(), f.numHashFunctions()});
            assertEquals(Strategy.MURMUR128_MITZ_64, f.strategy());
          }
        }
      }
    }
    assertArrayEquals(Sizing.perKeyShape(300, 0.01), new long[] {
        Sizing.perKeyCount(0.01).withHeadroom(1.5).create(200).bitSize(),
        Sizing.perKeyCount(0.01).withHeadroom(1.5).create(200).numHashFunctions()});
  }

  /**
   * A user with 17 items at p = 0.001, as a Spark job sizes them: 4·10^6 absent keys over
   * filters of 17 random items each give at most Qp + 5√(Qp) + 1 false positives (a true rate
   * of p exceeds it with probability 3·10^-7). Sized by the textbook rate, they measured 4.3·p.
   */
  @Test
  void aSmallUsersFilterMeetsTheRateAsMeasured() {
    Sizing sizing = Sizing.perKeyCount(0.001);
    Random random = new Random(17);
    long falsePositives = 0;
    long queries = 4_000_000;
    for (long asked = 0; asked < queries; asked += 2_000) {
      long[] items = random.longs(17).toArray();
      try (BloomFilter f = sizing.build(items)) {
        for (boolean hit : f.mightContainAll(random.longs(2_000).toArray())) {
          falsePositives += hit ? 1 : 0;
        }
      }
    }
    double mean = queries * 0.001;
    assertTrue(falsePositives <= mean + 5 * Math.sqrt(mean) + 1, falsePositives + " false positives");
  }

  /** Guava's bits for (n, p), independently of the code under test: ⌊−n·ln p / ln²2⌋ in whole words. */
  private static long guavaBits(long n, double p) {
    long bits = (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2)));
    return Math.max(64, (bits + 63) / 64 * 64);
  }
}
