package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The per-key buffer that keeps every occurrence: growth without int overflow. */
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

  /** 16 GiB is more than the test JVM's heap: the copy fails at once, touching no memory. */
  @Test
  void aCopyTheHeapCannotHoldIsAnExceptionWithoutTheError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LongArrayBuilder.copyOf(new long[8], LongArrayBuilder.MAX_ITEMS));
    assertTrue(e.getMessage().contains("java.lang.OutOfMemoryError"), e.getMessage());
    assertNull(e.getCause());
  }
}
