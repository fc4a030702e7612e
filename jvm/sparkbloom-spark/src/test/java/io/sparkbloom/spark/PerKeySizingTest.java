package io.sparkbloom.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CountingBloomFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * {@link Sizing#perKeyCount} through the Spark helpers: each key's filter sized for its own
 * distinct items, the target fpp met (seeded, binomial bound), the bytes on disk as the format
 * predicts, and dedup over filters of different shapes in one run.
 */
class PerKeySizingTest extends WithSparkSession {
  private static final double P = 0.001;

  @BeforeAll
  void start() {
    BloomFunctions.register(spark);
  }

  /** Users with 1 to 400 items each, so the shapes differ from key to key. */
  private static List<Tuple2<String, long[]>> unevenHistory(int users) {
    List<Tuple2<String, long[]>> h = SparkTests.history(users, 400);
    List<Tuple2<String, long[]>> out = new ArrayList<>();
    for (int u = 0; u < h.size(); u++) {
      out.add(new Tuple2<>(h.get(u)._1(), java.util.Arrays.copyOf(h.get(u)._2(), 1 + (u * 37) % 400)));
    }
    return out;
  }

  private static List<Tuple2<String, Long>> pairs(List<Tuple2<String, long[]>> records) {
    List<Tuple2<String, Long>> out = new ArrayList<>();
    for (Tuple2<String, long[]> r : records) {
      for (long v : r._2()) {
        out.add(new Tuple2<>(r._1(), v));
        out.add(new Tuple2<>(r._1(), v)); // duplicates must not inflate the count
      }
    }
    return out;
  }

  @Test
  void perRecordAndPerKeyBuildsSizeEachKeyForItsOwnDistinctItems() {
    List<Tuple2<String, long[]>> history = unevenHistory(80);
    Sizing sizing = Sizing.perKeyCount(P);
    Map<String, BloomFilter> perRecord =
        PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 4), sizing, 3).collectAsMap();
    Map<String, BloomFilter> perKey =
        PerKeyFilters.buildPerKey(jsc.parallelizePairs(pairs(history), 4), PerKeyOptions.of(sizing).withPartitions(3)).collectAsMap();
    Map<String, BloomFilter> fromArrays = PerKeyFilters.buildPerKeyFromArrays(jsc.parallelizePairs(history, 4).union(jsc.parallelizePairs(history, 2)), PerKeyOptions.of(sizing)).collectAsMap();
    assertEquals(history.size(), perRecord.size());
    for (Tuple2<String, long[]> h : history) {
      try (BloomFilter expected = sizing.create(h._2().length)) {
        expected.putAll(h._2());
        assertEquals(expected, perRecord.get(h._1()), "user " + h._1() + ": buildPerRecord");
        assertEquals(expected, perKey.get(h._1()), "user " + h._1() + ": buildPerKey");
        assertEquals(expected, fromArrays.get(h._1()), "user " + h._1() + ": buildPerKeyFromArrays");
      }
    }
    // the Scala RDD overloads reach the same code
    Map<String, BloomFilter> viaScala = JavaPairRDD.fromRDD(
        PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 2).rdd(), PerKeyOptions.of(sizing).withPartitions(2)),
        scala.reflect.ClassTag$.MODULE$.apply(String.class),
        scala.reflect.ClassTag$.MODULE$.apply(BloomFilter.class)).collectAsMap();
    assertEquals(perRecord, new HashMap<>(viaScala));
  }

  /**
   * 500 users × 200 items at p = 0.001, 1,000 unseen candidates each. The per-key shape for
   * (200, 0.001) is sized by its walk's rate, at most p, so the false positives among the 500,000
   * unseen candidates stay within N·p + 3σ, σ = sqrt(N·p·(1−p)) (about 500 + 67).
   */
  @Test
  void perKeySizedFiltersAnswerAtGuavasRate() {
    List<Tuple2<String, long[]>> history = SparkTests.history(500, 200);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 2_000, 0); // 1,000 unseen each
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 4), Sizing.perKeyCount(P), 4);
    Map<String, long[]> kept = PerKeyFilters.dedup(filters, jsc.parallelizePairs(candidates, 4)).collectAsMap();
    SparkTests.Check c = SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), kept);
    double n = c.unseenCandidates;
    assertEquals(500_000, c.unseenCandidates);
    double q = P;
    double bound = n * q + 3 * Math.sqrt(n * q * (1 - q));
    assertTrue(c.unseenDropped <= bound, c.unseenDropped + " false positives, bound " + bound);
    assertTrue(c.unseenDropped > 0, "a sized filter has some false positives");
  }

  /**
   * On disk, a per-key filter is its FORMAT bytes (24-byte header, 8·⌈m/64⌉ dense bytes, 4-byte
   * CRC; half full, so never sparse) plus the objectFile's record overhead: at 200 items and
   * p = 0.001, m = 3,136 bits, 420 bytes, and at most 492 bytes per user on disk, at least 35×
   * fewer than Guava's filters sized for 10,000 items.
   */
  @Test
  void bytesOnDiskFollowTheFormat(@TempDir Path dir) throws IOException {
    int users = 2_000;
    List<Tuple2<String, long[]>> history = SparkTests.history(users, 200);
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 4), Sizing.perKeyCount(P), 4);
    for (BloomFilter f : filters.values().take(20)) {
      assertEquals(3_136, f.bitSize());
      assertEquals(24 + 3_136 / 8 + 4, f.toByteArray().length);
    }
    Path ours = dir.resolve("sparkbloom");
    PerKeyFilters.saveAsObjectFile(filters, ours.toUri().toString());
    long ourBytes = size(ours);
    System.out.println("bytes per user " + (double) ourBytes / users);
    assertTrue(ourBytes <= 492L * users, ourBytes / users + " bytes per user on disk, budget 492");

    Path guava = dir.resolve("guava");
    jsc.parallelizePairs(history, 4).mapValues(items -> {
      com.google.common.hash.BloomFilter<Long> g = com.google.common.hash.BloomFilter.create(
          com.google.common.hash.Funnels.longFunnel(), 10_000, P);
      for (long v : items) {
        g.put(v);
      }
      return g;
    }).saveAsObjectFile(guava.toUri().toString());
    long guavaBytes = size(guava);
    assertTrue(guavaBytes >= 35 * ourBytes, "Guava " + guavaBytes + " bytes vs ours " + ourBytes);
  }

  private static long size(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  /**
   * One dedup run over filters of different shapes: per-key sized users, fixed-sized users, and
   * users with two filters of different shapes (a candidate is dropped if either has seen it).
   */
  @Test
  void dedupHandlesMixedShapes() {
    List<Tuple2<String, long[]>> history = unevenHistory(60);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 400, 3);
    List<Tuple2<String, BloomFilter>> filters = new ArrayList<>();
    Map<String, long[]> seen = new HashMap<>();
    for (int u = 0; u < history.size(); u++) {
      String user = history.get(u)._1();
      long[] items = history.get(u)._2();
      seen.put(user, items);
      if (u % 3 == 0) {
        filters.add(new Tuple2<>(user, Sizing.perKeyCount(P).build(items)));
      } else if (u % 3 == 1) {
        filters.add(new Tuple2<>(user, Sizing.fixed(1_000, 0.01).build(items)));
      } else {
        // two filters of one user, of different shapes: half the items in each
        int half = items.length / 2;
        filters.add(new Tuple2<>(user, Sizing.perKeyCount(P).build(java.util.Arrays.copyOf(items, half))));
        filters.add(new Tuple2<>(user,
            Sizing.perKeyCount(0.01).build(java.util.Arrays.copyOfRange(items, half, items.length))));
      }
    }
    Map<String, long[]> kept = PerKeyFilters.dedup(jsc.parallelizePairs(filters, 3), jsc.parallelizePairs(candidates, 2)).collectAsMap();
    SparkTests.Check c = SparkTests.checkAgainstExact(seen, SparkTests.byKey(candidates), kept);
    SparkTests.assertFppWithin(c, 0.02);
    // the map-side join answers the same, candidate for candidate
    Map<String, long[]> broadcast = PerKeyFilters.dedupBroadcast(jsc.parallelizePairs(filters, 3), jsc.parallelizePairs(candidates, 2), PerKeyOptions.defaults()).collectAsMap();
    assertEquals(kept.keySet(), broadcast.keySet());
    kept.forEach((user, items) -> assertArrayEquals(items, broadcast.get(user), "user " + user));
  }

  @Test
  void sqlAndColumnAggregatesSizePerGroup() {
    List<Tuple2<String, long[]>> history = unevenHistory(40);
    List<Row> rows = new ArrayList<>();
    for (Tuple2<String, long[]> h : history) {
      for (long v : h._2()) {
        rows.add(RowFactory.create(h._1(), v));
        rows.add(RowFactory.create(h._1(), v));
      }
      rows.add(RowFactory.create(h._1(), null)); // ignored
    }
    Dataset<Row> df = spark.createDataFrame(rows, new StructType()
        .add("user", DataTypes.StringType).add("item", DataTypes.LongType)).repartition(3);
    df.createOrReplaceTempView("sized_history");
    Map<String, byte[]> sql = collect(spark.sql(
        "SELECT user, sparkbloom_build_per_key(item, 0.001) AS f FROM sized_history GROUP BY user"));
    Map<String, byte[]> column = collect(
        df.groupBy("user").agg(BloomFunctions.build(col("item"), Sizing.perKeyCount(P)).as("f")));
    Map<String, byte[]> fixed = collect(
        df.groupBy("user").agg(BloomFunctions.build(col("item"), Sizing.fixed(500, P)).as("f")));
    for (Tuple2<String, long[]> h : history) {
      byte[] expected = Sizing.perKeyCount(P).build(h._2()).toByteArray();
      assertArrayEquals(expected, sql.get(h._1()), "SQL, user " + h._1());
      assertArrayEquals(expected, column.get(h._1()), "Column, user " + h._1());
      assertArrayEquals(Sizing.fixed(500, P).build(h._2()).toByteArray(), fixed.get(h._1()),
          "fixed, user " + h._1());
    }
  }

  private static Map<String, byte[]> collect(Dataset<Row> df) {
    Map<String, byte[]> out = new HashMap<>();
    for (Row r : df.collectAsList()) {
      out.put(r.getString(0), (byte[]) r.get(1));
    }
    return out;
  }

  @Test
  void countingFiltersAcceptASizing() {
    List<Tuple2<String, long[]>> history = unevenHistory(30);
    Map<String, CountingBloomFilter> counting = CountingFilters.buildPerKey(
        jsc.parallelizePairs(pairs(history), 3), Sizing.perKeyCount(P)).collectAsMap();
    Map<String, CountingBloomFilter> fromArrays = CountingFilters.buildPerKeyFromArrays(
        jsc.parallelizePairs(history, 3), Sizing.perKeyCount(P).withHeadroom(2)).collectAsMap();
    for (Tuple2<String, long[]> h : history) {
      CountingBloomFilter c = counting.get(h._1());
      assertEquals(Sizing.perKeyCount(P).create(h._2().length).bitSize(), c.bitSize(), "user " + h._1());
      assertEquals(Sizing.perKeyCount(P).create(2L * h._2().length).bitSize(), fromArrays.get(h._1()).bitSize());
      for (long v : h._2()) {
        assertTrue(c.count(v) >= 2, "each pair counts: user " + h._1());
      }
    }
  }
}
