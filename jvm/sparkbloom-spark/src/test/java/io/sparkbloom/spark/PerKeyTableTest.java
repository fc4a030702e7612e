package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Per-key filters as a Parquet table {@code (user, filter BINARY)}: written by {@link
 * PerKeyFilters#saveAsTable} and answered by SQL's {@code sparkbloom_retain_absent}, written by
 * SQL's {@code sparkbloom_build_per_key} and answered by {@link PerKeyFilters#readTable} + {@link
 * PerKeyFilters#dedup}, for {@code String} and {@code long} keys: the same answers each way, no
 * false negatives against the exact dedup, and the same filter bytes from either writer. Nulls,
 * bad bytes and wrong column types fail naming the column and the user.
 */
class PerKeyTableTest extends WithSparkSession {
  private static final int USERS = 300;
  private static final double P = 0.001;

  private Map<String, long[]> history;
  private Map<String, long[]> candidates;

  @Override
  String[] conf() {
    return new String[] {"spark.sql.extensions", "io.sparkbloom.spark.SparkBloomExtensions"};
  }

  @BeforeAll
  void start() {
    List<Tuple2<String, long[]>> h = SparkTests.history(USERS, 200);
    history = SparkTests.byKey(h);
    // 20 users without history: no row in the table, every candidate kept
    candidates = SparkTests.byKey(SparkTests.candidates(h, 100, 20));
    spark.createDataFrame(rows(history, false), new StructType()
        .add("user", DataTypes.StringType).add("item", DataTypes.LongType))
        .createOrReplaceTempView("history");
    spark.createDataFrame(rows(candidates, true), new StructType()
        .add("user", DataTypes.StringType).add("items", DataTypes.createArrayType(DataTypes.LongType)))
        .createOrReplaceTempView("candidates");
    // the same data with BIGINT users (the String ids are numbers; "new-i" users become -1 - i)
    spark.sql("SELECT CAST(user AS BIGINT) AS user, item FROM history").createOrReplaceTempView("history_long");
    spark.sql("SELECT CASE WHEN user LIKE 'new-%' THEN -1 - CAST(substr(user, 5) AS BIGINT)"
        + " ELSE CAST(user AS BIGINT) END AS user, items FROM candidates").createOrReplaceTempView("candidates_long");
  }

  @Test
  void aTableWrittenFromRddsIsAnsweredBySqlAsTheRddDedupAnswers(@TempDir Path dir) {
    String path = dir.resolve("filters").toString();
    JavaPairRDD<String, BloomFilter> filters = PerKeyFilters.buildPerRecord(
        jsc.parallelizePairs(tuples(history), 4), PerKeyOptions.of(Sizing.perKeyCount(P)));
    PerKeyFilters.saveAsTable(filters, path, String.class);

    Map<String, long[]> bySql = sqlDedup("candidates", path);
    Map<String, long[]> byRdd = new HashMap<>(
        PerKeyFilters.dedup(filters, jsc.parallelizePairs(tuples(candidates), 4)).collectAsMap());
    SparkTests.assertSameAnswers(byRdd, bySql);
    SparkTests.Check c = SparkTests.checkAgainstExact(history, candidates, bySql);
    SparkTests.assertFppWithin(c, 2 * P);
    assertTrue(c.seenCandidates > 10_000 && c.unseenCandidates > 10_000, "both kinds of candidates");
    assertEquals(USERS, spark.read().parquet(path).count(), "one row per user");
  }

  @Test
  void aTableWrittenBySqlIsReadIntoRddsWithTheSameFiltersAndAnswers(@TempDir Path dir) {
    String path = dir.resolve("filters").toString();
    spark.sql("SELECT user, sparkbloom_build_per_key(item, " + P + ") AS filter FROM history GROUP BY user")
        .write().parquet(path);

    JavaPairRDD<String, BloomFilter> read = PerKeyFilters.readTable(jsc, path, String.class);
    Map<String, long[]> byRdd = new HashMap<>(
        PerKeyFilters.dedup(read, jsc.parallelizePairs(tuples(candidates), 4)).collectAsMap());
    SparkTests.assertSameAnswers(sqlDedup("candidates", path), byRdd);
    SparkTests.checkAgainstExact(history, candidates, byRdd);

    // SQL's aggregate and the RDD build make the same filter of a user's items, byte for byte
    Map<String, byte[]> sqlBytes = new HashMap<>(read.mapValues(BloomFilter::toByteArray).collectAsMap());
    Map<String, byte[]> rddBytes = new HashMap<>(PerKeyFilters.buildPerRecord(
            jsc.parallelizePairs(tuples(history), 4), PerKeyOptions.of(Sizing.perKeyCount(P)))
        .mapValues(BloomFilter::toByteArray).collectAsMap());
    assertEquals(rddBytes.keySet(), sqlBytes.keySet());
    rddBytes.forEach((user, bytes) -> assertArrayEquals(bytes, sqlBytes.get(user), "user " + user));
  }

  @Test
  void longKeysGoBothWays(@TempDir Path dir) {
    // RDD -> table -> SQL
    String fromRdd = dir.resolve("from-rdd").toString();
    List<Tuple2<Long, long[]>> longHistory = new ArrayList<>();
    history.forEach((u, items) -> longHistory.add(new Tuple2<>(Long.parseLong(u), items)));
    JavaPairRDD<Long, BloomFilter> filters = PerKeyFilters.buildPerRecord(
        jsc.parallelizePairs(longHistory, 4), PerKeyOptions.of(Sizing.perKeyCount(P)));
    PerKeyFilters.saveAsTable(filters, fromRdd, Long.class);
    assertEquals(DataTypes.LongType, spark.read().parquet(fromRdd).schema().apply("user").dataType());
    Map<String, long[]> bySql = sqlDedup("candidates_long", fromRdd);

    // SQL -> table -> RDD
    String fromSql = dir.resolve("from-sql").toString();
    spark.sql("SELECT user, sparkbloom_build_per_key(item, " + P + ") AS filter FROM history_long GROUP BY user")
        .write().parquet(fromSql);
    List<Tuple2<Long, long[]>> longCandidates = new ArrayList<>();
    candidates.forEach((u, items) -> longCandidates.add(new Tuple2<>(longUser(u), items)));
    Map<String, long[]> byRdd = new HashMap<>();
    PerKeyFilters.dedup(PerKeyFilters.readTable(jsc, fromSql, Long.class), jsc.parallelizePairs(longCandidates, 4))
        .collectAsMap().forEach((u, items) -> byRdd.put(Long.toString(u), items));

    SparkTests.assertSameAnswers(bySql, byRdd);
    Map<String, long[]> expectedKeys = new HashMap<>();
    candidates.forEach((u, items) -> expectedKeys.put(Long.toString(longUser(u)), items));
    Map<String, long[]> longHistoryMap = new HashMap<>();
    history.forEach((u, items) -> longHistoryMap.put(u, items));
    SparkTests.checkAgainstExact(longHistoryMap, expectedKeys, byRdd);
  }

  @Test
  void anIntUserColumnReadsAsLongKeys(@TempDir Path dir) {
    String path = dir.resolve("int-users").toString();
    spark.sql("SELECT CAST(user AS INT) AS user, sparkbloom_build_per_key(item, " + P + ") AS filter"
        + " FROM history_long GROUP BY user").write().parquet(path);
    Map<Long, BloomFilter> read = PerKeyFilters.readTable(jsc, path, Long.class).collectAsMap();
    assertEquals(USERS, read.size());
    for (long item : history.get("7")) {
      assertTrue(read.get(7L).mightContain(item));
    }
  }

  @Test
  void nullsAndForeignKeysAreRefusedWhenWritingNamingTheUser(@TempDir Path dir) {
    BloomFilter f = BloomFilter.create(10, 0.01);
    List<Tuple2<String, BloomFilter>> withNullFilter = new ArrayList<>();
    withNullFilter.add(new Tuple2<>("u1", f));
    withNullFilter.add(new Tuple2<>("u2", null));
    assertJobFails(() -> PerKeyFilters.saveAsTable(jsc.parallelizePairs(withNullFilter, 1),
        dir.resolve("a").toString(), String.class), "the filter of user \"u2\" is null");

    List<Tuple2<String, BloomFilter>> withNullKey = new ArrayList<>();
    withNullKey.add(new Tuple2<>(null, f));
    assertJobFails(() -> PerKeyFilters.saveAsTable(jsc.parallelizePairs(withNullKey, 1),
        dir.resolve("b").toString(), String.class), "a null key cannot be a user");

    // a caller that declares Long keys for an RDD of strings (unchecked generics)
    @SuppressWarnings({"unchecked", "rawtypes"})
    JavaPairRDD<Long, BloomFilter> mislabeled =
        (JavaPairRDD) jsc.parallelizePairs(List.of(new Tuple2<>("42", f)), 1);
    assertJobFails(() -> PerKeyFilters.saveAsTable(mislabeled, dir.resolve("c").toString(), Long.class),
        "key \"42\" is a java.lang.String, not the java.lang.Long");

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerKeyFilters.saveAsTable(jsc.parallelizePairs(List.of(new Tuple2<>(1.5, f)), 1),
            dir.resolve("d").toString(), Double.class));
    assertTrue(e.getMessage().contains("keys must be String or Long"), e.getMessage());
  }

  @Test
  void nullCellsAndBadBytesAreRefusedWhenReadingNamingColumnUserAndFile(@TempDir Path dir) {
    byte[] good = BloomFilter.create(10, 0.01).toByteArray();
    byte[] bad = good.clone();
    bad[bad.length - 1] ^= 1; // the checksum no longer matches
    String nullFilter = table(dir, "null-filter", row("u1", good), row("u2", null));
    assertJobFails(() -> PerKeyFilters.readTable(jsc, nullFilter, String.class).collect(),
        "filter of user \"u2\" in ", ".parquet is NULL");
    String nullUser = table(dir, "null-user", row(null, good));
    assertJobFails(() -> PerKeyFilters.readTable(jsc, nullUser, String.class).collect(),
        "has a NULL user");
    String badBytes = table(dir, "bad-bytes", row("u1", good), row("u3", bad));
    assertJobFails(() -> PerKeyFilters.readTable(jsc, badBytes, String.class).collect(),
        "filter of user \"u3\" in ", "is not a sparkbloom filter (" + bad.length + " bytes)");
    String notBytes = table(dir, "garbage", row("u4", new byte[] {1, 2, 3}));
    assertJobFails(() -> PerKeyFilters.readTable(jsc, notBytes, String.class).collect(),
        "filter of user \"u4\"", "is not a sparkbloom filter (3 bytes)");
  }

  @Test
  void wrongColumnsAreRefusedOnTheDriverNamingThem(@TempDir Path dir) {
    String strings = table(dir, "strings", row("u1", BloomFilter.create(10, 0.01).toByteArray()));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerKeyFilters.readTable(jsc, strings, Long.class));
    assertTrue(e.getMessage().contains("column user is STRING, not BIGINT"), e.getMessage());

    String renamed = dir.resolve("renamed").toString();
    spark.sql("SELECT 'u' AS user_id, X'00' AS filter").write().parquet(renamed);
    e = assertThrows(IllegalArgumentException.class, () -> PerKeyFilters.readTable(jsc, renamed, String.class));
    assertTrue(e.getMessage().contains("no column user (the table has [user_id, filter]"), e.getMessage());

    String textFilter = dir.resolve("text").toString();
    spark.sql("SELECT 'u' AS user, 'abc' AS filter").write().parquet(textFilter);
    e = assertThrows(IllegalArgumentException.class, () -> PerKeyFilters.readTable(jsc, textFilter, String.class));
    assertTrue(e.getMessage().contains("column filter is STRING, not BINARY"), e.getMessage());
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** SQL's dedup of {@code view}'s candidates against the table at {@code path}, per user. */
  private Map<String, long[]> sqlDedup(String view, String path) {
    Map<String, long[]> out = new HashMap<>();
    for (Row r : spark.sql("SELECT CAST(c.user AS STRING), sparkbloom_retain_absent(f.filter, c.items)"
        + " FROM " + view + " c LEFT JOIN parquet.`" + path + "` f ON c.user = f.user").collectAsList()) {
      List<Long> kept = r.getList(1);
      out.put(r.getString(0), kept.stream().mapToLong(Long::longValue).toArray());
    }
    return out;
  }

  /** Runs {@code call}, which must fail; every {@code parts} must be in its exception chain. */
  private static void assertJobFails(Executable call, String... parts) {
    Throwable e = assertThrows(Exception.class, call);
    StringBuilder chain = new StringBuilder();
    for (Throwable c = e; c != null; c = c.getCause()) {
      chain.append(c).append('\n');
    }
    boolean named = false;
    for (Throwable c = e; c != null; c = c.getCause()) {
      named |= c instanceof IllegalArgumentException;
    }
    assertTrue(named, "an IllegalArgumentException in the chain:\n" + chain);
    for (String part : parts) {
      assertTrue(chain.toString().contains(part), "'" + part + "' in:\n" + chain);
    }
  }

  /** A Parquet (user STRING, filter BINARY) table of {@code rows}, both columns nullable. */
  private String table(Path dir, String name, Row... rows) {
    String path = dir.resolve(name).toString();
    spark.createDataFrame(List.of(rows), new StructType()
        .add("user", DataTypes.StringType).add("filter", DataTypes.BinaryType))
        .coalesce(1).write().parquet(path);
    return path;
  }

  private static Row row(String user, byte[] filter) {
    return RowFactory.create(user, filter);
  }

  private static long longUser(String u) {
    return u.startsWith("new-") ? -1 - Long.parseLong(u.substring(4)) : Long.parseLong(u);
  }

  private static List<Tuple2<String, long[]>> tuples(Map<String, long[]> m) {
    List<Tuple2<String, long[]>> out = new ArrayList<>();
    m.forEach((k, v) -> out.add(new Tuple2<>(k, v)));
    return out;
  }

  /** (user, item) rows, or with {@code arrays} (user, items) rows. */
  private static List<Row> rows(Map<String, long[]> m, boolean arrays) {
    List<Row> out = new ArrayList<>();
    m.forEach((user, items) -> {
      if (arrays) {
        List<Long> boxed = new ArrayList<>();
        for (long v : items) {
          boxed.add(v);
        }
        out.add(RowFactory.create(user, boxed.toArray(new Long[0])));
      } else {
        for (long v : items) {
          out.add(RowFactory.create(user, v));
        }
      }
    });
    return out;
  }
}
