package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CountingBloomFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * Per-key counting filters and the sliding window, under the serializer settings of
 * the subclasses: sliding a 3-day window over 6 days
 * gives, for every user, the filter rebuilt from the 3 days inside it (same counters, so the same
 * bits), and dedup against it keeps exactly the candidates the rebuilt filter keeps, never one the
 * user saw in the window.
 */
abstract class CountingFiltersTest extends WithSparkSession {
  private static final long N = 2_000;
  private static final double FPP = 0.01;
  private static final int USERS = 20;

  /** Extra Spark settings, as key/value pairs. */
  @Override
  abstract String[] conf();

  /** Day d's (user, item) views: 0..150 per user, items from a small catalogue (repeats happen). */
  private static List<Tuple2<String, Long>> views(int day) {
    Random r = new Random(1_000 + day);
    List<Tuple2<String, Long>> out = new ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      int count = r.nextInt(150);
      for (int i = 0; i < count; i++) {
        out.add(new Tuple2<>("user-" + u, (long) r.nextInt(5_000)));
      }
    }
    return out;
  }

  private JavaPairRDD<String, CountingBloomFilter> day(int d) {
    return CountingFilters.buildPerKey(jsc.parallelizePairs(views(d), 3), N, FPP).cache();
  }

  @Test
  void slidingWindowEqualsRebuildAndDedupNeverReturnsASeenItem() {
    int days = 6;
    int width = 3;
    List<JavaPairRDD<String, CountingBloomFilter>> daily = new ArrayList<>();
    for (int d = 0; d < days; d++) {
      daily.add(day(d));
    }
    JavaPairRDD<String, CountingBloomFilter> window = CountingFilters.rebuild(daily.subList(0, width));
    for (int newest = width; newest < days; newest++) {
      window =
          CountingFilters.slideWindow(
                  window, daily.get(newest), daily.get(newest - width), N, FPP)
              .cache();
      List<JavaPairRDD<String, CountingBloomFilter>> inside =
          daily.subList(newest - width + 1, newest + 1);
      Map<String, CountingBloomFilter> slid = window.collectAsMap();
      Map<String, CountingBloomFilter> rebuilt = CountingFilters.rebuild(inside).collectAsMap();
      assertEquals(rebuilt.keySet(), slid.keySet());
      // The plain filter of the distinct items each user saw inside the window.
      Map<String, Set<Long>> seen = new HashMap<>();
      for (int d = newest - width + 1; d <= newest; d++) {
        for (Tuple2<String, Long> v : views(d)) {
          seen.computeIfAbsent(v._1(), k -> new HashSet<>()).add(v._2());
        }
      }
      for (Map.Entry<String, CountingBloomFilter> e : slid.entrySet()) {
        CountingBloomFilter w = e.getValue();
        assertEquals(0, w.saturatedCounters());
        assertEquals(rebuilt.get(e.getKey()), w, e.getKey() + ": same counters as the rebuild");
        try (BloomFilter plain = BloomFilter.create(N, FPP);
            BloomFilter converted = w.toBloomFilter()) {
          seen.get(e.getKey()).forEach(plain::put);
          assertArrayEquals(plain.toByteArray(), converted.toByteArray(), "same bits");
        }
      }
      // Dedup: candidates are half seen-in-window, half never seen.
      List<Tuple2<String, long[]>> candidates = new ArrayList<>();
      Random r = new Random(newest);
      for (Map.Entry<String, Set<Long>> e : seen.entrySet()) {
        long[] c = new long[40];
        Long[] items = e.getValue().toArray(new Long[0]);
        for (int i = 0; i < c.length; i++) {
          c[i] = i % 2 == 0 ? items[r.nextInt(items.length)] : 10_000 + r.nextInt(1_000_000);
        }
        candidates.add(new Tuple2<>(e.getKey(), c));
      }
      candidates.add(new Tuple2<>("new-user", new long[] {1, 2, 3}));
      Map<String, long[]> fresh =
          CountingFilters.dedup(window, jsc.parallelizePairs(candidates, 2)).collectAsMap();
      for (Tuple2<String, long[]> c : candidates) {
        long[] kept = fresh.get(c._1());
        if (c._1().equals("new-user")) {
          assertArrayEquals(new long[] {1, 2, 3}, kept);
          continue;
        }
        assertArrayEquals(rebuilt.get(c._1()).retainAbsent(c._2()), kept);
        Set<Long> userSeen = seen.get(c._1());
        assertTrue(Arrays.stream(kept).noneMatch(userSeen::contains), "no seen item kept");
      }
    }
  }

  @Test
  void dataFrameBuildEqualsRddBuild() throws Exception {
    List<Tuple2<String, Long>> views = views(42);
    Dataset<Row> df =
        spark
            .createDataset(views, org.apache.spark.sql.Encoders.tuple(
                org.apache.spark.sql.Encoders.STRING(), org.apache.spark.sql.Encoders.LONG()))
            .toDF("user", "item");
    List<Row> rows =
        df.groupBy("user")
            .agg(
                CountingFilters.build(functions.col("item"), N, FPP).as("counting"))
            .withColumn("plain", CountingFilters.toBloomFilter(functions.col("counting")))
            .collectAsList();
    Map<String, CountingBloomFilter> rdd =
        CountingFilters.buildPerKey(jsc.parallelizePairs(views, 3), N, FPP).collectAsMap();
    assertEquals(rdd.size(), rows.size());
    for (Row row : rows) {
      CountingBloomFilter expected = rdd.get(row.getString(0));
      try (CountingBloomFilter got = CountingBloomFilter.fromByteArray((byte[]) row.get(1));
          BloomFilter plain = expected.toBloomFilter()) {
        assertEquals(expected, got);
        assertArrayEquals(plain.toByteArray(), (byte[]) row.get(2));
      }
    }
  }
}
