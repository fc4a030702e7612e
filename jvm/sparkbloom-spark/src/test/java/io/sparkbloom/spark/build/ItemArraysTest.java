package io.sparkbloom.spark.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ItemArrays}: each item type's batch calls, copies and null handling. */
class ItemArraysTest {
  @Test
  void theTypeOfAnArrayIsItsClass() {
    assertSame(ItemArrays.LONGS, ItemArrays.of(new long[] {1}, "x"));
    assertSame(ItemArrays.STRINGS, ItemArrays.of(new String[0], "x"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ItemArrays.of(List.of(1L), "dedup: candidates"));
    assertTrue(e.getMessage().startsWith("dedup: candidates must be long[] or String[], got java.util."),
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ItemArrays.of(new int[] {1}, "x"));
  }

  @Test
  void copiesKeepTheTypeAndPad() {
    long[] longs = {1, 2, 3};
    assertArrayEquals(new long[] {1, 2}, ItemArrays.LONGS.copyOf(longs, 2));
    assertArrayEquals(new long[] {1, 2, 3, 0, 0}, ItemArrays.LONGS.copyOf(longs, 5));
    assertSame(longs, ItemArrays.LONGS.prefix(longs, 3));
    assertArrayEquals(new long[] {1}, ItemArrays.LONGS.prefix(longs, 1));
    String[] strings = {"a", "b"};
    String[] padded = ItemArrays.STRINGS.copyOf(strings, 3);
    assertEquals(String[].class, padded.getClass());
    assertArrayEquals(new String[] {"a", "b", null}, padded);
    assertEquals(0, ItemArrays.STRINGS.length(ItemArrays.STRINGS.empty()));
    assertEquals(0, ItemArrays.LONGS.length(ItemArrays.LONGS.empty()));
  }

  @Test
  void batchesGoToTheFilterInOneCallEach() {
    try (BloomFilter f = BloomFilter.create(1_000, 0.001)) {
      ItemArrays.LONGS.putAll(f, new long[] {2, 4});
      ItemArrays.STRINGS.putAll(f, new String[] {"b"});
      assertArrayEquals(new long[] {1, 3}, ItemArrays.LONGS.retainAbsent(f, new long[] {1, 2, 3, 4}));
      // null strings are no items: dropped from the candidates
      assertArrayEquals(new String[] {"a", "c"},
          ItemArrays.STRINGS.retainAbsent(f, new String[] {"a", null, "b", "c"}));
    }
  }

  @Test
  void nullStringsAreRefusedAndFlushedOnesReleased() {
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> ItemArrays.STRINGS.requireNoNull(new String[] {"a", null}));
    assertEquals("item is null", e.getMessage());
    ItemArrays.LONGS.requireNoNull(new long[] {0});
    String[] buffer = {"a", "b", "c"};
    ItemArrays.STRINGS.release(buffer, 2);
    assertNull(buffer[0]);
    assertNull(buffer[1]);
    assertEquals("c", buffer[2]);
  }
}
