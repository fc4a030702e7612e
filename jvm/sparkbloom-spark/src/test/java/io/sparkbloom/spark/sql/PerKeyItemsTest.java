package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.Sizing;
import io.sparkbloom.spark.build.DistinctLongs;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
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
    PerKeyItems b = new PerKeyItems(PerKeyBufferLimit.DEFAULT, 1);
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
    PerKeyItems merged = PerKeyItems.fromBytes(partial, PerKeyBufferLimit.DEFAULT, 1).merge(PerKeyItems.fromBytes(other.toBytes(), PerKeyBufferLimit.DEFAULT, 1));
    assertTrue(merged.capacity() <= DistinctLongs.COMPACT_MIN_CAPACITY,
        () -> "capacity " + merged.capacity());
    assertArrayEquals(expected, merged.buildBytes());
  }

  @Test
  void sizingErrorsNameTheCallAndTheArgument() {
    IllegalArgumentException outOfRange = assertThrows(IllegalArgumentException.class,
        () -> new PerKeyItems(PerKeyBufferLimit.DEFAULT, 1).configure(0));
    assertEquals("sparkbloom_build_per_key(item, p): p must be in (0, 1), got 0.0",
        outOfRange.getMessage());
    PerKeyItems b = new PerKeyItems(PerKeyBufferLimit.DEFAULT, 1);
    b.configure(0.01);
    IllegalArgumentException differs = assertThrows(IllegalArgumentException.class,
        () -> b.configure(0.02));
    assertEquals("sparkbloom_build_per_key(item, p): p must be the same for every row of a group:"
        + " got (p=0.01) and then (p=0.02)", differs.getMessage());
  }

  @Test
  void aGroupPastTheLimitNamesTheCallAndTheLimitInEveryPhase() {
    String expected = "sparkbloom_build_per_key(item, p): a group has more than 2000 distinct items";
    PerKeyItems b = new PerKeyItems(2000, 1);
    b.configure(P);
    IllegalArgumentException update = assertThrows(IllegalArgumentException.class, () -> {
      for (long i = 0; i < 100_000; i++) {
        b.add(i);
      }
    });
    assertTrue(update.getMessage().startsWith(expected), update.getMessage());
    assertTrue(update.getMessage().contains(PerKeyBufferLimit.KEY + " = 2000"), update.getMessage());
    assertNull(update.getCause());
    // two partial buffers within the limit, past it together
    PerKeyItems first = new PerKeyItems(2000, 1);
    PerKeyItems second = new PerKeyItems(2000, 1);
    for (long i = 0; i < 1500; i++) {
      first.configure(P);
      first.add(i);
      second.configure(P);
      second.add(-1 - i);
    }
    PerKeyItems merged = PerKeyItems.fromBytes(first.toBytes(), 2000, 1)
        .merge(PerKeyItems.fromBytes(second.toBytes(), 2000, 1));
    IllegalArgumentException merge = assertThrows(IllegalArgumentException.class, merged::buildBytes);
    assertTrue(merge.getMessage().startsWith(expected), merge.getMessage());
    // a partial buffer over the final phase's limit
    IllegalArgumentException read = assertThrows(IllegalArgumentException.class,
        () -> PerKeyItems.fromBytes(first.toBytes(), 1000, 1));
    assertTrue(read.getMessage().startsWith(
        "sparkbloom_build_per_key(item, p): a group has more than 1000 distinct items"), read.getMessage());
  }
}
