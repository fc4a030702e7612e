package io.sparkbloom.spark.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The per-key builds' buffer: its memory follows the distinct items, whatever the rows. */
class DistinctLongsTest {
  private static final String OWNER = "sparkbloom_build_per_key(item, p)";

  /** The filter of {@code items} as the buffer puts them, sized for 10 items. */
  private static byte[] filterOf(DistinctLongs items) {
    try (BloomFilter f = items.putInto(BloomFilter.create(10, 0.01))) {
      return f.toByteArray();
    }
  }

  @Test
  void manyRowsOfFewItemsStayInAFewSlots() {
    DistinctLongs b = new DistinctLongs(OWNER);
    for (long i = 0; i < 3_000_000; i++) {
      b.add(i % 10 * 1_000_003);
      assertTrue(b.capacity() <= DistinctLongs.COMPACT_MIN_CAPACITY,
          () -> "capacity " + b.capacity() + " for 10 distinct items");
    }
    assertEquals(10, b.distinctCount());
    DistinctLongs distinct = new DistinctLongs(OWNER);
    for (long i = 9; i >= 0; i--) {
      distinct.add(i * 1_000_003);
    }
    assertArrayEquals(filterOf(distinct), filterOf(b), "the same filter as the distinct items alone");
  }

  @Test
  void distinctItemsAreCountedExactlyInBoundedSlots() {
    Random r = new Random(42);
    Set<Long> seen = new HashSet<>();
    DistinctLongs b = new DistinctLongs(OWNER);
    DistinctLongs batches = new DistinctLongs(OWNER);
    for (int i = 0; i < 200_000; i++) {
      long v = r.nextInt(50_000) - 25_000L; // about 49,000 distinct values, zero and negatives among them
      seen.add(v);
      b.add(v);
      batches.addAll(new long[] {v, v, v});
    }
    assertEquals(seen.size(), b.distinctCount());
    assertEquals(seen.size(), batches.distinctCount());
    assertTrue(b.capacity() < 4 * seen.size(), () -> "capacity " + b.capacity());
    assertTrue(batches.capacity() < 4 * seen.size(), () -> "capacity " + batches.capacity());
    DistinctLongs merged = new DistinctLongs(OWNER).addAll(b).addAll(batches).addAll(b);
    assertEquals(seen.size(), merged.distinctCount());
    assertTrue(merged.capacity() < 4 * seen.size(), () -> "capacity " + merged.capacity());
  }

  @Test
  void serializedFormHoldsTheDistinctItems() {
    DistinctLongs b = new DistinctLongs(OWNER);
    for (long i = 0; i < 1000; i++) {
      b.add(i % 7 - 3);
    }
    ByteBuffer bytes = b.toBytes(12);
    assertEquals(12 + 8 * 7, bytes.capacity(), "the header and the 7 distinct items");
    bytes.position(12);
    DistinctLongs back = DistinctLongs.fromBytes(OWNER, bytes, 7);
    assertEquals(7, back.distinctCount());
    assertArrayEquals(filterOf(b), filterOf(back));
  }

  @Test
  void aGroupBeyondTheLimitIsAnExceptionNamingTheOwnerAndTheCount() {
    assertEquals(DistinctLongs.MAX_ITEMS,
        DistinctLongs.grownCapacity(DistinctLongs.MAX_ITEMS / 2 + 1, DistinctLongs.MAX_ITEMS, OWNER));
    assertEquals(64, DistinctLongs.grownCapacity(32, 33, OWNER));
    long tooMany = DistinctLongs.MAX_ITEMS + 1L;
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DistinctLongs.grownCapacity(DistinctLongs.MAX_ITEMS, tooMany, OWNER));
    assertTrue(e.getMessage().startsWith(OWNER + ": a group of " + tooMany + " distinct items"),
        e.getMessage());
    // and the serialized buffer's bytes, 8 per item after a header, still fit one Java array
    assertTrue(12 + 8L * DistinctLongs.MAX_ITEMS < Integer.MAX_VALUE - 8);
  }
}
