package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.spark.build.PerKeyBufferLimit;
import org.junit.jupiter.api.Test;

/** The per-key buffer that keeps every occurrence: growth without int overflow, a bound. */
class LongArrayBuilderTest {
  @Test
  void keepsEveryOccurrenceInOrder() {
    LongArrayBuilder a = new LongArrayBuilder().add(3).add(3).add(1);
    LongArrayBuilder b = new LongArrayBuilder().add(3);
    assertArrayEquals(new long[] {3, 3, 1, 3}, a.addAll(b).toArray());
  }

  @Test
  void growthStopsAtTheLargestArrayWithAnExceptionNamingTheCount() {
    assertEquals(8, LongArrayBuilder.grownCapacity(0, 1));
    assertEquals(32, LongArrayBuilder.grownCapacity(16, 17));
    // doubling 2^30 slots would overflow an int: the largest array instead
    assertEquals(LongArrayBuilder.MAX_ITEMS, LongArrayBuilder.grownCapacity(1 << 30, (1L << 30) + 1));
    long tooMany = (long) Integer.MAX_VALUE + 5; // what size + other.size wraps to a negative int
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LongArrayBuilder.grownCapacity(1 << 30, tooMany));
    assertTrue(e.getMessage().contains(Long.toString(tooMany)), e.getMessage());
  }

  /**
   * Past its bound a builder drops its items, in a merge too, and reading them is the error that
   * names the key, the limit, its conf and the remedy; at the bound every item is kept.
   */
  @Test
  void pastItsBoundABuilderDropsItsItemsAndNamesTheKey() {
    LongArrayBuilder full = new LongArrayBuilder(3).add(1).add(1).add(2);
    assertArrayEquals(new long[] {1, 1, 2}, full.toArray("owner", "u", "remedy"));
    LongArrayBuilder over = new LongArrayBuilder(3).add(1).addAll(new LongArrayBuilder(3).add(2).add(3).add(4));
    assertEquals(0, over.size());
    LongArrayBuilder merged = new LongArrayBuilder(3).addAll(new LongArrayBuilder(3).add(1).add(2).add(3).add(4));
    assertEquals(0, merged.add(5).size(), "an overflow is kept through a merge");
    for (LongArrayBuilder b : new LongArrayBuilder[] {over, merged}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> b.toArray("PerKeyFilters.dedupPairs", "u", "Give such keys' candidates as long[] records"));
      assertTrue(e.getMessage().startsWith("PerKeyFilters.dedupPairs: key \"u\" has more than 3 items"),
          e.getMessage());
      assertTrue(e.getMessage().contains(PerKeyBufferLimit.KEY + " = 3"), e.getMessage());
      assertTrue(e.getMessage().contains("Give such keys' candidates as long[] records"), e.getMessage());
      assertThrows(IllegalStateException.class, b::toArray);
    }
  }

  /** 16 GiB is more than the test JVM's heap: the copy fails at once, touching no memory. */
  @Test
  void aCopyTheHeapCannotHoldIsAnExceptionWithoutTheError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LongArrayBuilder.copyOf(new long[8], LongArrayBuilder.MAX_ITEMS));
    assertTrue(e.getMessage().contains("java.lang.OutOfMemoryError"), e.getMessage());
    assertNull(e.getCause());
  }
}
