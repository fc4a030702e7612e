package io.sparkbloom.spark.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** {@link PerKeyBufferLimit}: the conf's values, and the default's fit in a small executor. */
class PerKeyBufferLimitTest {
  @Test
  void theConfSetsTheLimitInItsRange() {
    assertEquals(PerKeyBufferLimit.DEFAULT, PerKeyBufferLimit.parse(null));
    assertEquals(2048, PerKeyBufferLimit.parse(" 2048 "));
    assertEquals(1, PerKeyBufferLimit.parse("1"));
    assertEquals(PerKeyBufferLimit.MAX, PerKeyBufferLimit.parse(Integer.toString(PerKeyBufferLimit.MAX)));
    assertEquals(PerKeyBufferLimit.DEFAULT, PerKeyBufferLimit.of(new SparkConf(false)));
    assertEquals(77, PerKeyBufferLimit.of(new SparkConf(false).set(PerKeyBufferLimit.KEY, "77")));
    for (String bad : new String[] {"0", "-5", Long.toString(PerKeyBufferLimit.MAX + 1L), "1e6", "lots", ""}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> PerKeyBufferLimit.parse(bad));
      assertTrue(e.getMessage().startsWith(PerKeyBufferLimit.KEY), e.getMessage());
    }
  }

  /**
   * The default's derivation: a buffer holds at most twice the limit in 8-byte slots (checked by
   * {@code DistinctLongsTest}); at its peak it takes {@value PerKeyBufferLimit#PEAK_BYTES_PER_ITEM}
   * bytes per item. Two tasks at that peak stay under a fifth of a 512 MiB heap; their buffers
   * between peaks take under half of what Spark leaves there to user objects ((512 MiB - 300 MiB
   * reserved) * 0.4).
   */
  @Test
  void theDefaultFitsTwoTasksInA512MiBHeap() {
    long steady = 2L * 8 * PerKeyBufferLimit.DEFAULT;
    assertEquals(16L << 20, steady, "16 MiB held by a buffer at the limit");
    assertTrue(PerKeyBufferLimit.PEAK_BYTES_PER_ITEM >= 4 * 8 + 2 * 8,
        "old and new array while growing (4 slots per item), plus a merged partial buffer (2 more)");
    long twoTasksAtPeak = 2L * PerKeyBufferLimit.PEAK_BYTES_PER_ITEM * PerKeyBufferLimit.DEFAULT;
    long heap = 512L << 20;
    assertTrue(twoTasksAtPeak <= heap / 5, twoTasksAtPeak + " bytes");
    assertTrue(2 * steady <= (long) ((heap - (300L << 20)) * 0.4) / 2, 2 * steady + " bytes");
  }

  @Test
  void messagesNameTheKey() {
    assertEquals("key \"u42\"", PerKeyBufferLimit.describeKey("u42"));
    assertEquals("key 42", PerKeyBufferLimit.describeKey(42L));
    assertEquals("key null", PerKeyBufferLimit.describeKey(null));
    String longKey = "k".repeat(500);
    assertEquals("key \"" + "k".repeat(100) + "...\"", PerKeyBufferLimit.describeKey(longKey));
    String m = PerKeyBufferLimit.exceeded("PerKeyFilters.buildPerKey", "key \"u\"", 10).getMessage();
    assertTrue(m.startsWith("PerKeyFilters.buildPerKey: key \"u\" has more than 10 distinct items"), m);
    assertTrue(m.contains(PerKeyBufferLimit.KEY) && m.contains("Sizing.fixed(n, p)"), m);
  }
}
