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
        BloomFilter expected = BloomFilter.withShape(3_072, 10, Strategy.MURMUR128_MITZ_64)) {
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

  /**
   * The per-key shape: the textbook bits plus room for double hashing's aliasing (ALIASING/m),
   * whole 64-bit words. At 200 items and 0.001 the textbook 2,876 bits predict 0.00099 + 1/2,880
   * > 0.001, so 3,072 (0.00063 + 0.00033); a 1-item key needs m >= ~1/p.
   */
  @Test
  void perKeyShape() {
    assertEquals(10, Sizing.hashFunctions(0.001));
    assertEquals(7, Sizing.hashFunctions(0.01));
    assertEquals(3_072, Sizing.perKeyBits(200, 0.001, 10));
    assertEquals(1_024, Sizing.perKeyBits(1, 0.001, 10));
    assertEquals(1_984, Sizing.perKeyBits(200, 0.01, 7));
    for (long n : new long[] {1, 7, 200, 10_000, 1_000_000}) {
      long m = Sizing.perKeyBits(n, 0.001, 10);
      assertEquals(0, m % 64);
      double predicted = Math.pow(1 - Math.exp(-10.0 * n / m), 10) + Sizing.ALIASING / m;
      assertTrue(predicted <= 0.001, "n=" + n + " m=" + m);
      assertTrue(m >= 1.44 * n * Math.log(1000) / Math.log(2), "never below the textbook m");
    }
  }

  @Test
  void distinctCountOfEdgeValues() {
    long[] a = {5, 1, 5, 3, 1, 1, Long.MIN_VALUE, Long.MAX_VALUE, 0, 0};
    long[] before = a.clone();
    assertEquals(6, DistinctCount.of(a));
    assertArrayEquals(before, a, "the caller's array is left as it is");
    assertEquals(6, DistinctCount.sorted(a.clone()));
    assertEquals(0, DistinctCount.of(new long[0]));
    assertEquals(1, DistinctCount.of(new long[] {0}));
    assertEquals(1, DistinctCount.of(new long[] {0, 0, 0}));
    assertEquals(1, DistinctCount.of(new long[] {-7, -7}));
  }

  /** The table and the sort agree, at sizes around the table's powers of two and with many repeats. */
  @Test
  void distinctCountTableAgreesWithSort() {
    Random r = new Random(5);
    for (int n : new int[] {2, 3, 255, 256, 257, 1_000, 4_096, 100_000}) {
      for (int range : new int[] {n / 2 + 1, n, 1 << 30}) {
        long[] items = new long[n];
        for (int i = 0; i < n; i++) {
          // strided ids (multiples of 1024) as well as small and huge values
          items[i] = (r.nextInt(range) - range / 4) * 1024L;
        }
        long expected = java.util.Arrays.stream(items).distinct().count();
        assertEquals(expected, DistinctCount.hashed(items), "n=" + n + " range=" + range);
        assertEquals(expected, DistinctCount.sorted(items.clone()), "n=" + n + " range=" + range);
      }
    }
  }
}
