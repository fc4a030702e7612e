package io.sparkbloom.spark.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The per-key builds' buffer: its memory follows the distinct items, whatever the rows, and a
 * group past its limit is an exception (or, deferred, a recorded overflow) before it grows past it.
 */
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
    DistinctLongs b = new DistinctLongs(OWNER, PerKeyBufferLimit.DEFAULT);
    for (long i = 0; i < 3_000_000; i++) {
      b.add(i % 10 * 1_000_003);
      assertTrue(b.capacity() <= DistinctLongs.COMPACT_MIN_CAPACITY,
          () -> "capacity " + b.capacity() + " for 10 distinct items");
    }
    assertEquals(10, b.distinctCount());
    DistinctLongs distinct = new DistinctLongs(OWNER, PerKeyBufferLimit.DEFAULT);
    for (long i = 9; i >= 0; i--) {
      distinct.add(i * 1_000_003);
    }
    assertArrayEquals(filterOf(distinct), filterOf(b), "the same filter as the distinct items alone");
  }

  @Test
  void distinctItemsAreCountedExactlyInBoundedSlots() {
    Random r = new Random(42);
    Set<Long> seen = new HashSet<>();
    DistinctLongs b = new DistinctLongs(OWNER, PerKeyBufferLimit.DEFAULT);
    DistinctLongs batches = new DistinctLongs(OWNER, PerKeyBufferLimit.DEFAULT);
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
    DistinctLongs merged = new DistinctLongs(OWNER, PerKeyBufferLimit.DEFAULT).addAll(b).addAll(batches).addAll(b);
    assertEquals(seen.size(), merged.distinctCount());
    assertTrue(merged.capacity() < 4 * seen.size(), () -> "capacity " + merged.capacity());
  }

  @Test
  void serializedFormHoldsTheDistinctItems() {
    DistinctLongs b = new DistinctLongs(OWNER, PerKeyBufferLimit.DEFAULT);
    for (long i = 0; i < 1000; i++) {
      b.add(i % 7 - 3);
    }
    ByteBuffer bytes = b.toBytes(12);
    assertEquals(12 + 8 * 7, bytes.capacity(), "the header and the 7 distinct items");
    bytes.position(12);
    DistinctLongs back = DistinctLongs.fromBytes(OWNER, bytes, 7, PerKeyBufferLimit.DEFAULT);
    assertEquals(7, back.distinctCount());
    assertArrayEquals(filterOf(b), filterOf(back));
  }

  /** The exception of a group past {@code limit}: the owner, the limit, the conf, the alternative. */
  private static void assertExceeded(IllegalArgumentException e, int limit) {
    String m = e.getMessage();
    assertTrue(m.startsWith(OWNER + ": a group has more than " + limit + " distinct items"), m);
    assertTrue(m.contains(PerKeyBufferLimit.KEY + " = " + limit), m);
    assertTrue(m.contains("sparkbloom_build(item, n, p)") && m.contains("Sizing.fixed(n, p)"), m);
    assertNull(e.getCause());
  }

  @Test
  void aGroupPastTheLimitThrowsBeforeTheArrayGrowsPastTwiceTheLimit() {
    int limit = 5_000;
    DistinctLongs b = new DistinctLongs(OWNER, limit);
    long[] added = {0};
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> {
      for (long i = 0; i < 1_000_000; i++) {
        b.add(i * 7);
        added[0]++;
        assertTrue(b.capacity() <= 2 * limit, () -> "capacity " + b.capacity());
      }
    });
    assertExceeded(e, limit);
    // found at the first compaction with more than the limit: the array of 8,192 slots, full
    assertEquals(8_192, added[0]);
    // and batches the same
    DistinctLongs batches = new DistinctLongs(OWNER, limit);
    assertExceeded(assertThrows(IllegalArgumentException.class,
        () -> batches.addAll(java.util.stream.LongStream.range(0, 20_000).toArray())), limit);
  }

  @Test
  void aGroupAtTheLimitBuilds() {
    int limit = 1_500;
    DistinctLongs b = new DistinctLongs(OWNER, limit);
    DistinctLongs distinct = new DistinctLongs(OWNER, limit);
    for (long i = 0; i < 300_000; i++) {
      b.add(i % limit * 31);
      assertTrue(b.capacity() <= 2 * limit, () -> "capacity " + b.capacity());
    }
    for (long i = 0; i < limit; i++) {
      distinct.add(i * 31);
    }
    assertEquals(limit, b.distinctCount());
    assertArrayEquals(filterOf(distinct), filterOf(b));
    // a merge past the limit is found too, when the items are read
    DistinctLongs other = new DistinctLongs(OWNER, limit).addAll(new long[] {-1, -2});
    DistinctLongs merged = new DistinctLongs(OWNER, limit).addAll(b).addAll(other);
    assertExceeded(assertThrows(IllegalArgumentException.class, merged::distinctCount), limit);
    // and a partial buffer read back
    ByteBuffer bytes = b.toBytes(0);
    assertExceeded(assertThrows(IllegalArgumentException.class,
        () -> DistinctLongs.fromBytes(OWNER, bytes, limit, limit - 1)), limit - 1);
  }

  @Test
  void aDeferringBufferDropsTheItemsOfAnOverflowAndRecordsIt() {
    DistinctLongs b = DistinctLongs.deferringOverflow(OWNER, 100);
    for (long i = 0; i < 1_000_000; i++) {
      b.add(i);
      assertTrue(b.capacity() <= 200, () -> "capacity " + b.capacity());
    }
    assertTrue(b.overflowed());
    for (Executable read : new Executable[] {b::distinctCount, () -> filterOf(b), () -> b.toBytes(12)}) {
      assertExceeded(assertThrows(IllegalArgumentException.class, read), 100);
    }
    // an overflow merged is an overflow, into a deferring buffer or (thrown) into another
    DistinctLongs small = DistinctLongs.deferringOverflow(OWNER, 100).addAll(new long[] {1, 2, 3});
    assertFalse(small.overflowed());
    assertEquals(3, small.distinctCount());
    assertTrue(DistinctLongs.deferringOverflow(OWNER, 100).addAll(small).addAll(b).overflowed());
    assertTrue(small.addAll(b).addAll(new long[] {4}).overflowed());
    assertExceeded(assertThrows(IllegalArgumentException.class,
        () -> new DistinctLongs(OWNER, 100).addAll(b)), 100);
    // an overflow in the last items, with no compaction since, is found when the group is complete
    DistinctLongs last = DistinctLongs.deferringOverflow(OWNER, 10);
    for (long i = 0; i < 15; i++) {
      last.add(i);
    }
    assertTrue(last.overflowed());
  }

  @Test
  void theLimitIsInItsRange() {
    for (int bad : new int[] {0, -1, PerKeyBufferLimit.MAX + 1}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new DistinctLongs(OWNER, bad));
      assertTrue(e.getMessage().contains("maxItems must be in [1, " + PerKeyBufferLimit.MAX + "]"), e.getMessage());
    }
    // the most slots, twice the largest limit, fit one array, and so do its serialized bytes
    assertTrue(2L * PerKeyBufferLimit.MAX <= DistinctLongs.MAX_ITEMS);
    assertTrue(12 + 8L * DistinctLongs.MAX_ITEMS < Integer.MAX_VALUE - 8);
    DistinctLongs one = new DistinctLongs(OWNER, 1).addAll(new long[] {5, 5, 5, 5});
    assertEquals(1, one.distinctCount());
    assertThrows(IllegalArgumentException.class, () -> one.add(6).distinctCount());
  }
}
