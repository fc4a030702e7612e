package io.sparkbloom.spark;

import static org.apache.spark.sql.functions.col;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Per-key groups too large to buffer, in {@code local[2]} in a small heap ({@link GroupBoundTest}
 * runs it at {@code -Xmx512m}): each such job fails with an {@link IllegalArgumentException}
 * naming the group and the limit, no {@code Error} in its cause chain, and a sparkbloom job run
 * after it in the same session succeeds. First with {@value PerKeyBufferLimit#KEY} set at launch
 * to {@value #SMALL} (the SQL aggregates, the DataFrame helper with headroom, both RDD builds),
 * then with the largest limit (the heap runs out first), then in a new session with the default
 * limit, on the 6·10<sup>7</sup> rows that stopped the application before there was one.
 *
 * <p>Prints {@code GROUP-BOUND ok NAME} per check, {@code GROUP-BOUND FAILED NAME: ...} for a
 * failed one, and {@code GROUP-BOUND DONE} at the end; exits 0 only if every check held.
 */
public final class GroupBoundApp {
  static final String PREFIX = "GROUP-BOUND ";
  /** The limit of the first session. */
  static final int SMALL = 1000;
  static final double P = 0.01;
  /** The rows of the finding: a group this large once stopped the application at -Xmx512m. */
  static final long HUGE = 60_000_000L;

  /** The checks, in order, as {@link GroupBoundTest} expects them. */
  static final List<String> CHECKS = List.of("sql-small-limit", "dataframe-headroom-small-limit",
      "rdd-pairs-small-limit", "rdd-arrays-small-limit", "rdd-dedup-pairs-small-limit",
      "counting-per-key-small-limit", "sql-heap-runs-out-first",
      "sql-default-limit", "rdd-default-limit");

  private final List<String> failures = new ArrayList<>();

  public static void main(String[] args) {
    GroupBoundApp app = new GroupBoundApp();
    try {
      app.run();
    } catch (Throwable t) {
      t.printStackTrace(System.out);
      app.failures.add("unexpected " + t);
    }
    for (String f : app.failures) {
      System.out.println(PREFIX + "FAILED " + f);
    }
    System.out.println(PREFIX + "DONE");
    System.exit(app.failures.isEmpty() ? 0 : 1);
  }

  private interface Check {
    void run() throws Exception;
  }

  private void check(String name, Check body) {
    try {
      body.run();
      System.out.println(PREFIX + "ok " + name);
    } catch (Throwable t) {
      t.printStackTrace(System.out);
      failures.add(name + ": " + t);
    }
  }

  private void run() {
    SparkSession spark = SparkTests.session("GroupBoundApp-small", PerKeyBufferLimit.KEY, Integer.toString(SMALL));
    try {
      BloomFunctions.register(spark);
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      check("sql-small-limit", () -> sqlSmallLimit(spark));
      check("dataframe-headroom-small-limit", () -> dataFrameHeadroomSmallLimit(spark));
      check("rdd-pairs-small-limit", () -> rddPairsSmallLimit(jsc));
      check("rdd-arrays-small-limit", () -> rddArraysSmallLimit(jsc));
      check("rdd-dedup-pairs-small-limit", () -> rddDedupPairsSmallLimit(jsc));
      check("counting-per-key-small-limit", () -> countingPerKeySmallLimit(jsc));
      check("sql-heap-runs-out-first", () -> sqlHeapRunsOutFirst(spark));
    } finally {
      spark.stop();
    }
    SparkSession defaults = SparkTests.session("GroupBoundApp-default");
    try {
      BloomFunctions.register(defaults);
      check("sql-default-limit", () -> sqlDefaultLimit(defaults));
      check("rdd-default-limit", () -> rddDefaultLimit(JavaSparkContext.fromSparkContext(defaults.sparkContext())));
    } finally {
      defaults.stop();
    }
  }

  // ---- the checks ----------------------------------------------------------------------------

  /** Group 0 holds 3,000 distinct ids; then four groups of exactly the limit build. */
  private static void sqlSmallLimit(SparkSession spark) throws IOException {
    Exception e = failure(() -> spark.sql("SELECT k, sparkbloom_build_per_key(id, 0.01) FROM"
        + " (SELECT id, IF(id < 3000, 0, id) AS k FROM range(4000)) GROUP BY k").collectAsList());
    requireMessage(e, "sparkbloom_build_per_key(item, p): a group has more than " + SMALL + " distinct items",
        PerKeyBufferLimit.KEY + " = " + SMALL, "sparkbloom_build(item, n, p)");
    List<Row> rows = spark.sql("SELECT k, sparkbloom_build_per_key(id, 0.01) FROM"
        + " (SELECT id, id % 4 AS k FROM range(4000)) GROUP BY k").collectAsList();
    require(rows.size() == 4, "4 groups, got " + rows.size());
    for (Row r : rows) {
      long k = r.getLong(0);
      long[] items = LongStream.range(0, 4000).filter(i -> i % 4 == k).toArray();
      requireFilterOf((byte[]) r.get(1), items);
    }
  }

  /** {@code build(item, perKeyCount(p).withHeadroom(h))}: the typed per-key aggregate, with headroom. */
  private static void dataFrameHeadroomSmallLimit(SparkSession spark) {
    Sizing headroom = Sizing.perKeyCount(P).withHeadroom(1.5);
    Exception e = failure(() -> spark.range(3000).select(BloomFunctions.build(col("id"), headroom)).collectAsList());
    requireMessage(e, "sparkbloom_build_per_key(item, p): a group has more than " + SMALL + " distinct items");
    Row r = spark.range(SMALL).select(BloomFunctions.build(col("id"), headroom)).first();
    try (BloomFilter f = BloomFilter.fromByteArray((byte[]) r.get(0))) {
      for (long i = 0; i < SMALL; i++) {
        require(f.mightContain(i), "item " + i + " missing");
      }
    } catch (IOException x) {
      throw new AssertionError(x);
    }
  }

  /** Key "big" holds 3,000 distinct items among keys of 10; then the keys of 10 build. */
  private static void rddPairsSmallLimit(JavaSparkContext jsc) {
    JavaPairRDD<String, Long> pairs = jsc.parallelize(Arrays.asList(0, 1), 2).flatMapToPair(part ->
        LongStream.range(part * 2000L, part * 2000L + 2000)
            .mapToObj(i -> new Tuple2<>(i < 3000 ? "big" : "u" + i % 10, i)).iterator());
    PerKeyOptions perKey = PerKeyOptions.of(Sizing.perKeyCount(P));
    Exception e = failure(() -> PerKeyFilters.buildPerKey(pairs, perKey).count());
    requireMessage(e, "PerKeyFilters.buildPerKey: key \"big\" has more than " + SMALL + " distinct items",
        PerKeyBufferLimit.KEY + " = " + SMALL, "Sizing.fixed(n, p)");
    Map<String, BloomFilter> filters =
        PerKeyFilters.buildPerKey(pairs.filter(t -> !t._1().equals("big")), perKey).collectAsMap();
    require(filters.size() == 10, "10 keys, got " + filters.size());
    for (long i = 3000; i < 4000; i++) {
      require(filters.get("u" + i % 10).mightContain(i), "item " + i + " missing");
    }
  }

  /** Key 7 gets 3,000 distinct items in records of 100, each record within the limit. */
  private static void rddArraysSmallLimit(JavaSparkContext jsc) {
    List<Tuple2<Long, long[]>> records = new ArrayList<>();
    for (long r = 0; r < 30; r++) {
      records.add(new Tuple2<>(7L, LongStream.range(r * 100, r * 100 + 100).toArray()));
      records.add(new Tuple2<>(8L, new long[] {r}));
    }
    JavaPairRDD<Long, long[]> rdd = jsc.parallelizePairs(records, 2);
    PerKeyOptions perKey = PerKeyOptions.of(Sizing.perKeyCount(P));
    Exception e = failure(() -> PerKeyFilters.buildPerKeyFromArrays(rdd, perKey).count());
    requireMessage(e, "PerKeyFilters.buildPerKeyFromArrays: key 7 has more than " + SMALL + " distinct items");
    Map<Long, BloomFilter> filters =
        PerKeyFilters.buildPerKeyFromArrays(rdd.filter(t -> t._1() == 8L), perKey).collectAsMap();
    for (long r = 0; r < 30; r++) {
      require(filters.get(8L).mightContain(r), "item " + r + " missing");
    }
  }

  /** Key "big" has 3,000 candidate pairs (each occurrence is buffered), "small" 10. */
  private static void rddDedupPairsSmallLimit(JavaSparkContext jsc) {
    JavaPairRDD<String, Long> candidates = jsc.parallelize(Arrays.asList(0, 1), 2).flatMapToPair(part ->
        LongStream.range(part * 1500L, part * 1500L + 1500)
            .mapToObj(i -> new Tuple2<>("big", i % 7)).iterator())
        .union(jsc.parallelizePairs(List.of(new Tuple2<>("small", 1L), new Tuple2<>("small", 2L)), 1));
    JavaPairRDD<String, BloomFilter> filters = PerKeyFilters.buildPerKey(
        jsc.parallelizePairs(List.of(new Tuple2<>("small", 1L)), 1), 100, P);
    Exception e = failure(() -> PerKeyFilters.dedupPairs(filters, candidates).count());
    requireMessage(e, "PerKeyFilters.dedupPairs: key \"big\" has more than " + SMALL + " items",
        PerKeyBufferLimit.KEY + " = " + SMALL, "PerKeyFilters.dedup");
    List<Tuple2<String, Long>> kept =
        PerKeyFilters.dedupPairs(filters, candidates.filter(t -> t._1().equals("small"))).collect();
    require(kept.equals(List.of(new Tuple2<>("small", 2L))), "small keeps 2 only, got " + kept);
  }

  /** A per-key sized counting build: key 3 gets 3,000 occurrences of 5 items. */
  private static void countingPerKeySmallLimit(JavaSparkContext jsc) {
    JavaPairRDD<Long, Long> pairs = jsc.parallelize(Arrays.asList(0, 1), 2).flatMapToPair(part ->
        LongStream.range(part * 1500L, part * 1500L + 1500)
            .mapToObj(i -> new Tuple2<>(i < 2000 ? 3L : 4L, i % 5)).iterator());
    Exception e = failure(() -> CountingFilters.buildPerKey(pairs, Sizing.perKeyCount(P)).count());
    requireMessage(e, "CountingFilters.buildPerKey: key 3 has more than " + SMALL + " items",
        PerKeyBufferLimit.KEY + " = " + SMALL, "Sizing.fixed(n, p)");
    Map<Long, io.sparkbloom.CountingBloomFilter> filters =
        CountingFilters.buildPerKey(pairs.filter(t -> t._1() == 4L), Sizing.perKeyCount(P)).collectAsMap();
    require(filters.get(4L).count(0L) == 15, "item 0 of key 4 counts 200 (15: saturated)");
  }

  /**
   * With the largest limit the heap runs out first: the buffer's next array does not fit, which
   * is the same IllegalArgumentException, the OutOfMemoryError named but not chained. One
   * partition, so that one task alone fills the heap.
   */
  private static void sqlHeapRunsOutFirst(SparkSession spark) {
    spark.conf().set(PerKeyBufferLimit.KEY, Integer.toString(PerKeyBufferLimit.MAX));
    try {
      Exception e = failure(() -> spark.sql("SELECT sparkbloom_count(sparkbloom_build_per_key(id, 0.01))"
          + " FROM range(0, " + HUGE + ", 1, 1)").collectAsList());
      requireMessage(e, "sparkbloom_build_per_key(item, p): a group of ", "do not fit in this JVM's heap",
          "java.lang.OutOfMemoryError");
    } finally {
      spark.conf().unset(PerKeyBufferLimit.KEY);
    }
    carriesOn(spark);
  }

  /** The finding's query under the default limit. */
  private static void sqlDefaultLimit(SparkSession spark) {
    Exception e = failure(() -> spark.sql(
        "SELECT sparkbloom_count(sparkbloom_build_per_key(id, 0.01)) FROM range(" + HUGE + ")").collectAsList());
    requireMessage(e, "a group has more than " + PerKeyBufferLimit.DEFAULT + " distinct items",
        PerKeyBufferLimit.KEY + " = " + PerKeyBufferLimit.DEFAULT);
    carriesOn(spark);
  }

  /** The finding's RDD build, all of 6·10^7 items under one key, under the default limit. */
  private static void rddDefaultLimit(JavaSparkContext jsc) {
    long half = HUGE / 2;
    JavaPairRDD<String, Long> pairs = jsc.parallelize(Arrays.asList(0, 1), 2).flatMapToPair(part ->
        LongStream.range(part * half, part * half + half).mapToObj(i -> new Tuple2<>("one key", i)).iterator());
    Exception e = failure(() -> PerKeyFilters.buildPerKey(pairs, PerKeyOptions.of(Sizing.perKeyCount(P))).count());
    requireMessage(e, "PerKeyFilters.buildPerKey: key \"one key\" has more than " + PerKeyBufferLimit.DEFAULT,
        PerKeyBufferLimit.KEY + " = " + PerKeyBufferLimit.DEFAULT);
    JavaPairRDD<String, Long> small = jsc.parallelizePairs(
        List.of(new Tuple2<>("a", 1L), new Tuple2<>("a", 2L), new Tuple2<>("b", 3L)), 2);
    Map<String, BloomFilter> filters = PerKeyFilters.buildPerKey(small, PerKeyOptions.of(Sizing.perKeyCount(P))).collectAsMap();
    require(filters.get("a").mightContain(1L) && filters.get("a").mightContain(2L)
        && filters.get("b").mightContain(3L), "the small keys' items");
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** A sparkbloom SQL job after a failed one: every item of 100,000 is found. */
  private static void carriesOn(SparkSession spark) {
    Row r = spark.sql("SELECT sparkbloom_retain_absent(sparkbloom_build_per_key(id, 0.01),"
        + " sequence(0L, 99999L)) FROM range(100000)").first();
    require(r.getList(0).isEmpty(), "a false negative after the failed job");
  }

  private interface Job {
    Object run();
  }

  /** The exception of a job that must fail. */
  private static Exception failure(Job job) {
    try {
      job.run();
    } catch (Exception e) {
      return e;
    }
    throw new AssertionError("the job did not fail");
  }

  /** The IllegalArgumentException in {@code e}'s chain, no Error in it, its message holding {@code parts}. */
  private static void requireMessage(Exception e, String... parts) {
    IllegalArgumentException found = null;
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof Error) {
        throw new AssertionError("an Error in the cause chain: " + c, e);
      }
      if (found == null && c instanceof IllegalArgumentException) {
        found = (IllegalArgumentException) c;
      }
    }
    if (found == null) {
      throw new AssertionError("no IllegalArgumentException in the chain", e);
    }
    System.out.println(PREFIX + "message " + found.getMessage());
    for (String part : parts) {
      if (!found.getMessage().contains(part)) {
        throw new AssertionError("the message lacks \"" + part + "\": " + found.getMessage(), e);
      }
    }
  }

  /** {@code bytes} are the filter {@code Sizing.perKeyCount(P).build(items)} makes. */
  private static void requireFilterOf(byte[] bytes, long[] items) {
    try (BloomFilter expected = Sizing.perKeyCount(P).build(items)) {
      require(Arrays.equals(expected.toByteArray(), bytes), "a group's filter differs from build(items)'s");
    }
  }

  private static void require(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError(what);
    }
  }
}
