package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.BloomFunctions;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The functions injected by {@code spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions}
 * in a real local[2] session, used from SQL only (no {@code BloomFunctions.register} call): the
 * per-user dedup, {@value SparkBloomSql#MERGE}, {@value SparkBloomSql#COUNT}, and the analysis
 * errors.
 */
class SparkBloomExtensionsTest extends WithExtension {
  /** Users u0..u19 with 500 distinct even items each (user * 1_000_000 + 2k); odd items are unseen. */
  private static final int USERS = 20;
  private static final int ITEMS_PER_USER = 500;
  private static final double FPP = 0.001;
  private static final String HISTORY = "SELECT concat('u', CAST(id DIV 500 AS STRING)) AS user,"
      + " (id DIV 500) * 1000000 + (id % 500) * 2 AS item FROM range(10000)";

  SparkBloomExtensionsTest() {
    super(4);
  }

  @BeforeAll
  void start() {
    extension.sql("CREATE TEMPORARY VIEW history AS " + HISTORY);
  }

  @Test
  void perUserDedupInSqlOnly() {
    // the recipe: per-user filters stored as a Parquet table (user, filter BINARY), read back
    extension.sql("CREATE TABLE filters USING parquet AS SELECT user,"
        + " sparkbloom_build_per_key(item, " + FPP + ") AS filter FROM history GROUP BY user");
    assertEquals("binary", extension.table("filters").schema().apply("filter").dataType().typeName());
    // candidates: 100 seen (even) items and 500 unseen (odd) items per user, plus a new user
    extension.sql("CREATE TEMPORARY VIEW candidates AS SELECT user, collect_list(item) AS items FROM ("
        + " SELECT user, item FROM history WHERE item % 1000000 < 200"
        + " UNION ALL SELECT concat('u', CAST(id DIV 500 AS STRING)),"
        + "   (id DIV 500) * 1000000 + (id % 500) * 2 + 1 FROM range(10000)"
        + " UNION ALL SELECT 'new', id FROM range(3)) GROUP BY user");
    List<Row> rows = extension.sql("SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) AS fresh"
        + " FROM candidates c LEFT JOIN filters f ON c.user = f.user").collectAsList();

    assertEquals(USERS + 1, rows.size());
    long unseenKept = 0;
    for (Row row : rows) {
      List<Long> fresh = row.getList(1);
      if (row.getString(0).equals("new")) {
        assertEquals(List.of(0L, 1L, 2L), fresh, "a user without a filter keeps every candidate");
        continue;
      }
      for (long item : fresh) {
        assertEquals(1, item % 2, () -> "seen item " + item + " came back for " + row.getString(0));
      }
      unseenKept += fresh.size();
    }
    // each of the 10,000 unseen items is dropped with probability about FPP: mean 10 drops,
    // binomial standard deviation sqrt(10,000 * FPP); six of them above the mean bounds the drops
    long unseen = (long) USERS * ITEMS_PER_USER;
    double mean = unseen * FPP;
    long dropped = unseen - unseenKept;
    assertTrue(dropped <= mean + 6 * Math.sqrt(mean), () -> "too many unseen items dropped: " + dropped);
  }

  @Test
  void filtersWrittenAsParquetFilesAreReadBackBySqlAndByTheCoreReader(@TempDir Path dir)
      throws Exception {
    String path = dir.resolve("user_filters").toString();
    extension.sql("INSERT OVERWRITE DIRECTORY '" + path + "' USING parquet SELECT user,"
        + " sparkbloom_build_per_key(item, " + FPP + ") AS filter FROM history GROUP BY user");
    SparkSession other = extension.newSession();
    String filters = "parquet.`" + path + "`";
    // every history item offered again as a candidate: none may come back
    assertEquals(0L, other.sql("SELECT count(*) FROM (SELECT explode(sparkbloom_retain_absent("
        + "f.filter, c.items)) FROM " + filters + " f JOIN (SELECT user, collect_list(item) AS items"
        + " FROM (" + HISTORY + ") GROUP BY user) c ON f.user = c.user)").first().getLong(0));
    List<Row> rows = other.sql("SELECT user, filter FROM " + filters).collectAsList();
    assertEquals(USERS, rows.size());
    for (Row row : rows) {
      long user = Long.parseLong(row.getString(0).substring(1));
      try (BloomFilter f = BloomFilter.fromByteArray((byte[]) row.get(1))) {
        for (long k = 0; k < ITEMS_PER_USER; k++) {
          assertTrue(f.mightContain(user * 1_000_000 + 2 * k), row.getString(0) + " lost item " + k);
        }
      }
    }
  }

  @Test
  void mergeOfShardFiltersIsTheFilterOfAllItems() throws Exception {
    extension.sql("CREATE OR REPLACE TEMPORARY VIEW shards AS SELECT item % 4 AS shard,"
        + " sparkbloom_build(item, 20000, 0.01) AS filter FROM history GROUP BY item % 4");
    Row r = extension.sql("SELECT (SELECT sparkbloom_merge(filter) FROM shards),"
        + " (SELECT sparkbloom_build(item, 20000, 0.01) FROM history),"
        + " (SELECT sparkbloom_merge(filter) FROM (SELECT filter FROM shards UNION ALL SELECT NULL)),"
        + " (SELECT sparkbloom_merge(filter) FROM shards WHERE shard > 99),"
        + " (SELECT sparkbloom_merge(filter) FILTER (WHERE shard = 0) FROM shards),"
        + " (SELECT filter FROM shards WHERE shard = 0)").first();
    byte[] merged = (byte[]) r.get(0);
    assertArrayEquals((byte[]) r.get(1), merged, "OR of the shards' filters = one filter of all");
    assertArrayEquals(merged, (byte[]) r.get(2), "null filters are skipped");
    assertNull(r.get(3), "no filter in the group: null");
    assertArrayEquals((byte[]) r.get(5), (byte[]) r.get(4), "FILTER (WHERE ...) is honoured");

    extension.sql("CREATE OR REPLACE TEMPORARY VIEW merged AS SELECT sparkbloom_merge(filter) AS filter"
        + " FROM shards");
    assertEquals(0L, extension.sql("SELECT count_if(NOT sparkbloom_might_contain(m.filter, h.item))"
        + " FROM history h CROSS JOIN merged m").first().getLong(0), "no false negative");
  }

  @Test
  void countEstimatesTheDistinctItems() throws Exception {
    Row r = extension.sql("SELECT sparkbloom_count(f), f, sparkbloom_count(NULL) FROM"
        + " (SELECT sparkbloom_build(item, 20000, 0.01) AS f FROM history)").first();
    long n = (long) USERS * ITEMS_PER_USER;
    try (BloomFilter f = BloomFilter.fromByteArray((byte[]) r.get(1))) {
      assertEquals(f.approximateElementCount(), r.getLong(0));
      // the estimate -m/k ln(1 - X/m) from X of m bits set, X about binomial with q = e^(-kn/m)
      // the chance a bit stays clear: sd(X) = sqrt(m q (1 - q)), and d estimate / dX = 1 / (k q)
      double m = f.bitSize();
      int k = f.numHashFunctions();
      double q = Math.exp(-k * n / m);
      double sd = Math.sqrt(m * q * (1 - q)) / (k * q);
      assertTrue(Math.abs(r.getLong(0) - n) <= 6 * sd, () -> r.getLong(0) + " for " + n + " items");
    }
    assertNull(r.get(2));
  }

  @Test
  void mergeOfDifferentShapesNamesBoth() {
    Exception e = assertThrows(Exception.class, () -> extension.sql("SELECT sparkbloom_merge(f) FROM ("
        + " SELECT sparkbloom_build(item, 1000, 0.01) AS f FROM history"
        + " UNION ALL SELECT sparkbloom_build(item, 100000, 0.01) FROM history)").collectAsList());
    IllegalArgumentException iae = cause(e, IllegalArgumentException.class);
    assertNotNull(iae, e::toString);
    assertTrue(iae.getMessage().contains("sparkbloom_merge: cannot merge filters of different shapes"),
        iae.getMessage());
    assertTrue(iae.getMessage().matches(".*numBits=\\d+.*numBits=\\d+.*"), iae.getMessage());
  }

  @Test
  void corruptFilterBytesAreRejectedByName() {
    Exception e = assertThrows(Exception.class,
        () -> extension.sql("SELECT sparkbloom_count(X'00010203')").collectAsList());
    IllegalArgumentException iae = cause(e, IllegalArgumentException.class);
    assertNotNull(iae, e::toString);
    assertTrue(iae.getMessage().startsWith("sparkbloom_count: not a sparkbloom filter"), iae.getMessage());
  }

  /**
   * Non-null filter bytes are always read, whatever the other argument: empty bytes are refused
   * by merge as by count (null filters stay skipped), and a corrupt filter fails even with no
   * candidates, null candidates or a null item.
   */
  @Test
  void nonNullFilterBytesAreAlwaysChecked() {
    for (String call : List.of("sparkbloom_merge(X'')", "sparkbloom_count(X'')",
        "sparkbloom_retain_absent(X'00', array())", "sparkbloom_retain_absent(X'00', NULL)",
        "sparkbloom_retain_absent_string(X'00', CAST(array() AS ARRAY<STRING>))",
        "sparkbloom_might_contain(X'00', CAST(NULL AS BIGINT))")) {
      Exception e = assertThrows(Exception.class, () -> extension.sql("SELECT " + call).collectAsList(), call);
      IllegalArgumentException iae = cause(e, IllegalArgumentException.class);
      assertNotNull(iae, e::toString);
      String name = call.substring(0, call.indexOf('('));
      assertTrue(iae.getMessage().startsWith(name + ": not a sparkbloom filter (corrupt filter: "),
          iae.getMessage());
    }
    Row r = extension.sql("SELECT sparkbloom_merge(f) FROM VALUES (CAST(NULL AS BINARY)) AS t(f)").first();
    assertNull(r.get(0), "a group of null filters only: null");
  }

  @Test
  void wrongArgumentCountOrTypeFailsAnalysis() {
    assertAnalysisError("SELECT sparkbloom_count()", "WRONG_NUM_ARGS", "`sparkbloom_count`",
        "requires 1 parameters but the actual number is 0");
    assertAnalysisError("SELECT sparkbloom_build_per_key(item) FROM history", "WRONG_NUM_ARGS",
        "`sparkbloom_build_per_key`", "requires 2 parameters");
    assertAnalysisError("SELECT sparkbloom_retain_absent(X'00', array(1.5D))",
        "UNEXPECTED_INPUT_TYPE", "second", "\"ARRAY<BIGINT>\" or \"ARRAY<INT>\"", "\"ARRAY<DOUBLE>\"");
    assertAnalysisError("SELECT sparkbloom_might_contain('not bytes', 1)", "UNEXPECTED_INPUT_TYPE",
        "first", "\"BINARY\"", "\"STRING\"");
    assertAnalysisError("SELECT sparkbloom_build_string(item, 10, 0.1) FROM history",
        "UNEXPECTED_INPUT_TYPE", "\"STRING\"", "\"BIGINT\"");
    assertAnalysisError("SELECT sparkbloom_build(item, 10, 'x') FROM history",
        "UNEXPECTED_INPUT_TYPE", "third", "requires the \"NUMERIC\" (\"DOUBLE\", \"DECIMAL\", ...) type");
  }

  @Test
  void everyFunctionIsInEverySession() {
    List<String> names = List.of(BloomFunctions.BUILD, BloomFunctions.BUILD_PER_KEY,
        BloomFunctions.RETAIN_ABSENT, BloomFunctions.MIGHT_CONTAIN, BloomFunctions.BUILD_STRING,
        BloomFunctions.RETAIN_ABSENT_STRING, SparkBloomSql.MERGE, SparkBloomSql.COUNT);
    SparkSession other = extension.newSession();
    for (String name : names) {
      String description = other.sql("DESCRIBE FUNCTION " + name).collectAsList().toString();
      assertTrue(description.contains("Usage: " + name + "("), description);
    }
    Row r = other.sql("SELECT sparkbloom_retain_absent_string(sparkbloom_build_string(s, 10, 0.01),"
        + " array('a', 'z')), sparkbloom_might_contain(sparkbloom_build_string(s, 10, 0.01), 'b')"
        + " FROM VALUES ('a'), ('b') AS t(s)").first();
    assertEquals(List.of("z"), r.getList(0));
    assertTrue(r.getBoolean(1));
  }

  private void assertAnalysisError(String sql, String... inMessage) {
    AnalysisException e = assertThrows(AnalysisException.class, () -> extension.sql(sql).collectAsList());
    for (String part : inMessage) {
      assertTrue(e.getMessage().contains(part), () -> "no <" + part + "> in " + e.getMessage());
    }
  }

  private static <T extends Throwable> T cause(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return type.cast(c);
      }
    }
    return null;
  }
}
