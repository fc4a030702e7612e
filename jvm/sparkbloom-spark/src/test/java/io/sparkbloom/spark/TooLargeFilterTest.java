package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * A sizing whose filter is larger than the process can hold fails its call or its job with an
 * {@link IllegalArgumentException} naming the sizing, and the application carries on: the core
 * refuses such a bit array with an {@code OutOfMemoryError}, which Spark treats as fatal (in
 * local mode the whole application exited with code 52). After each case the same session runs
 * another job. 10<sup>11</sup> items at 1 % need 112 GiB; a key sized for 10<sup>11</sup> items
 * at 10<sup>−12</sup> needs 719 GB: both above the memory of any machine the tests run on, both
 * below the 2<sup>43</sup> bits the core's argument check stops at.
 */
class TooLargeFilterTest extends WithSparkSession {
  @BeforeAll
  void start() {
    BloomFunctions.register(spark);
  }

  /** The application is alive: a plain job and a sparkbloom job run in the same session. */
  @AfterEach
  void sessionCarriesOn() {
    assertEquals(1_000L, spark.range(1_000).count());
    Row r = spark.sql("SELECT sparkbloom_might_contain(sparkbloom_build(id, 100, 0.01), 7) FROM range(10)").first();
    assertTrue(r.getBoolean(0));
  }

  /** The IllegalArgumentException (the core's FilterTooLargeException is one) in the chain. */
  private static IllegalArgumentException tooLarge(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      assertTrue(!(c instanceof Error), "an Error in the chain: " + c);
    }
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IllegalArgumentException) {
        return (IllegalArgumentException) c;
      }
    }
    throw new AssertionError("no IllegalArgumentException in " + t, t);
  }

  private static void assertMentions(Throwable t, String... parts) {
    IllegalArgumentException e = tooLarge(t);
    assertNotNull(e.getMessage());
    for (String part : parts) {
      assertTrue(e.getMessage().contains(part), e.getMessage());
    }
  }

  @Test
  void sqlBuildWithConstantSizeFailsAtAnalysis() {
    Exception e = assertThrows(Exception.class,
        () -> spark.sql("SELECT sparkbloom_build(id, 100000000000, 0.01) FROM range(3)").collectAsList());
    assertMentions(e, "sparkbloom_build", "100000000000");
  }

  @Test
  void sqlBuildWithSizeFromAColumnFailsItsJob() {
    SparkException e = assertThrows(SparkException.class, () -> spark.sql(
        "SELECT sparkbloom_build(id, n, 0.01) FROM (SELECT id, 100000000000 AS n FROM range(3))").collectAsList());
    assertMentions(e, "100000000000");
  }

  @Test
  void rddBuildWithFixedSizeFailsOnTheDriver() {
    JavaPairRDD<String, Long> pairs = jsc.parallelizePairs(List.of(new Tuple2<>("u", 1L)), 2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerKeyFilters.buildPerKey(pairs, 100_000_000_000L, 0.01));
    assertMentions(e, "100000000000");
  }

  /** A one-item key at p = 1e-12 gets the core's per-key shape (it once asked for 2^40 bits and killed the application). */
  @Test
  void perKeySizingOfTinyKeysAtTinyRatesBuilds() {
    List<Row> rows = spark.sql("SELECT id, sparkbloom_build_per_key(id, 1e-12) FROM range(3) GROUP BY id")
        .collectAsList();
    assertEquals(3, rows.size());
    for (Row r : rows) {
      try (BloomFilter f = BloomFilter.fromByteArray((byte[]) r.get(1))) {
        assertEquals(BloomFilter.perKeyBitSize(1, 1e-12), f.bitSize());
        assertTrue(f.mightContain(r.getLong(0)));
      } catch (java.io.IOException e) {
        throw new AssertionError(e);
      }
    }
    JavaPairRDD<String, Long> pairs = jsc.parallelizePairs(
        List.of(new Tuple2<>("a", 1L), new Tuple2<>("b", 2L), new Tuple2<>("b", 3L)), 2);
    Map<String, BloomFilter> filters = PerKeyFilters.buildPerKey(pairs, PerKeyOptions.of(Sizing.perKeyCount(1e-12))).collectAsMap();
    assertArrayEquals(Sizing.perKeyShape(1, 1e-12), new long[] {filters.get("a").bitSize(), filters.get("a").numHashFunctions()});
    assertTrue(filters.get("b").mightContain(2L) && filters.get("b").mightContain(3L));
  }

  @Test
  void perKeySizingTooLargeForTheProcessFailsItsJob() {
    JavaPairRDD<String, Long> pairs = jsc.parallelizePairs(List.of(new Tuple2<>("u", 1L)), 2);
    Sizing huge = Sizing.perKeyCount(1e-12).withHeadroom(1e11);
    SparkException e = assertThrows(SparkException.class,
        () -> PerKeyFilters.buildPerKey(pairs, PerKeyOptions.of(huge)).collect());
    assertMentions(e, huge.toString());
  }
}
