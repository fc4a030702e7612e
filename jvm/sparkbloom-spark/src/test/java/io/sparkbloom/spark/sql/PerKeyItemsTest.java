package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.Sizing;
import io.sparkbloom.spark.build.DistinctLongs;
import org.junit.jupiter.api.Test;

/**
 * The buffer of {@code sparkbloom_build_per_key}: a group of many rows and few distinct items
 * keeps only a few slots, between the phases too, and builds the filter of the distinct items.
 */
class PerKeyItemsTest {
  private static final double P = 0.01;

  private static byte[] perKeyFilter(long... items) {
    try (BloomFilter f = Sizing.perKeyCount(P).build(items)) {
      return f.toByteArray();
    }
  }

  /** A buffer of {@code rows} rows whose items cycle through {@code distinct} values. */
  private static PerKeyItems rows(long rows, int distinct) {
    PerKeyItems b = new PerKeyItems();
    for (long i = 0; i < rows; i++) {
      b.configure(P);
      b.add(i % distinct);
      assertTrue(b.capacity() <= Math.max(4 * distinct, DistinctLongs.COMPACT_MIN_CAPACITY),
          () -> "capacity " + b.capacity());
    }
    return b;
  }

  @Test
  void manyRowsOfTenItemsKeepAFewSlotsAndBuildTheFilterOfTheTen() {
    PerKeyItems b = rows(5_000_000, 10);
    byte[] expected = perKeyFilter(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    assertArrayEquals(expected, b.buildBytes());
    // the partial buffer between the phases holds the 10 distinct items, not the rows
    byte[] partial = b.toBytes();
    assertEquals(12 + 8 * 10, partial.length);
    PerKeyItems other = rows(1_000_000, 10);
    PerKeyItems merged = PerKeyItems.fromBytes(partial).merge(PerKeyItems.fromBytes(other.toBytes()));
    assertTrue(merged.capacity() <= DistinctLongs.COMPACT_MIN_CAPACITY,
        () -> "capacity " + merged.capacity());
    assertArrayEquals(expected, merged.buildBytes());
  }

  @Test
  void sizingErrorsNameTheCallAndTheArgument() {
    IllegalArgumentException outOfRange = assertThrows(IllegalArgumentException.class,
        () -> new PerKeyItems().configure(0));
    assertEquals("sparkbloom_build_per_key(item, p): p must be in (0, 1), got 0.0",
        outOfRange.getMessage());
    PerKeyItems b = new PerKeyItems();
    b.configure(0.01);
    IllegalArgumentException differs = assertThrows(IllegalArgumentException.class,
        () -> b.configure(0.02));
    assertEquals("sparkbloom_build_per_key(item, p): p must be the same for every row of a group:"
        + " got (p=0.01) and then (p=0.02)", differs.getMessage());
  }
}
