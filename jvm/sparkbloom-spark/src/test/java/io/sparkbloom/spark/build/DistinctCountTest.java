package io.sparkbloom.spark.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link DistinctCount}: per-key sizing's count of distinct items, by hash table and by sort. */
class DistinctCountTest {
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
