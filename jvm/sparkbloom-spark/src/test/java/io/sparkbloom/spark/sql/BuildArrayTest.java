package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.BloomFunctions;
import io.sparkbloom.spark.Sizing;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code sparkbloom_build_array} ({@link BuildArrayExpression}) in a session with the extension
 * and in one where {@code BloomFunctions.register} registered it: over the same items, its bytes
 * are those of {@code sparkbloom_build_per_key} (p alone), {@code sparkbloom_build} and {@code
 * sparkbloom_build_string} (n and p) over the items as rows; generated and interpreted evaluation;
 * nulls; the analysis errors.
 */
class BuildArrayTest extends WithBothRegistrations {
  private static final double FPP = 0.01;
  private static final int USERS = 150;

  BuildArrayTest() {
    super(3);
  }

  @BeforeAll
  void start() {
    // the same history as (user, item, text) rows and as (user, items, texts) arrays, nulls in both
    Random r = new Random(5);
    List<Row> rows = new ArrayList<>();
    List<Row> arrays = new ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      int n = u == 0 ? 6000 : r.nextInt(70);
      List<Long> items = new ArrayList<>();
      List<String> texts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Long item = r.nextInt(15) == 0 ? null : r.nextInt(4) == 0 ? (long) r.nextInt(30) : r.nextLong();
        items.add(item);
        texts.add(item == null ? null : "t" + item);
        rows.add(RowFactory.create("u" + u, item, item == null ? null : "t" + item));
      }
      if (n == 0) {
        rows.add(RowFactory.create("u" + u, null, null)); // a group of only null items
      }
      arrays.add(RowFactory.create("u" + u, items.toArray(new Long[0]), texts.toArray(new String[0])));
    }
    StructType rowSchema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("item", DataTypes.LongType, true)
        .add("text", DataTypes.StringType, true);
    StructType arraySchema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("items", DataTypes.createArrayType(DataTypes.LongType, true), true)
        .add("texts", DataTypes.createArrayType(DataTypes.StringType, true), true);
    for (SparkSession s : List.of(extension, registered)) {
      s.createDataFrame(rows, rowSchema).repartition(2).createOrReplaceTempView("history");
      // cached, not a local relation, whose projections the optimizer would evaluate itself
      s.createDataFrame(arrays, arraySchema).cache().createOrReplaceTempView("seen_lists");
    }
  }

  @EachRegistrationAndEvaluation
  void bytesAreTheAggregatesOverTheSameItems(String which) throws Exception {
    inEvaluation(which, spark -> {
      Dataset<Row> arrays = spark.sql("SELECT user,"
          + " sparkbloom_build_array(items, " + FPP + ") AS per_key,"
          + " sparkbloom_build_array(transform(items, x -> CAST(x % 1000000 AS INT)), " + FPP + ") AS per_key_int,"
          + " sparkbloom_build_array(items, 500, " + FPP + ") AS fixed,"
          + " sparkbloom_build_array(texts, 500, " + FPP + ") AS fixed_string,"
          + " sparkbloom_build_array(texts, " + FPP + ") AS per_key_string, texts"
          + " FROM seen_lists");
      String plan = arrays.queryExecution().executedPlan().toString();
      assertTrue(plan.contains(BloomFunctions.BUILD_ARRAY), plan);
      assertFalse(plan.contains("Exchange") || plan.contains("Aggregate") || plan.contains("UDF"), plan);
      arrays.createOrReplaceTempView("from_arrays");
      List<Row> rows = spark.sql("SELECT a.*, g.per_key, g.per_key_int, g.fixed, g.fixed_string"
          + " FROM from_arrays a JOIN (SELECT user,"
          + " sparkbloom_build_per_key(item, " + FPP + ") AS per_key,"
          + " sparkbloom_build_per_key(CAST(item % 1000000 AS INT), " + FPP + ") AS per_key_int,"
          + " sparkbloom_build(item, 500, " + FPP + ") AS fixed,"
          + " sparkbloom_build_string(text, 500, " + FPP + ") AS fixed_string"
          + " FROM history GROUP BY user) g ON a.user = g.user").collectAsList();
      assertEquals(USERS, rows.size());
      for (Row row : rows) {
        for (int i = 0; i < 4; i++) {
          assertArrayEquals((byte[]) row.get(7 + i), (byte[]) row.get(1 + i), row.getString(0) + " column " + i);
        }
        assertArrayEquals(perKeyStrings(row.getList(6)), (byte[]) row.get(5), row.getString(0));
      }
    });
  }

  /** A per-key filter of the non-null strings, built by the core as the RDD helpers build it. */
  private static byte[] perKeyStrings(List<String> texts) {
    List<String> items = new ArrayList<>();
    for (String t : texts) {
      if (t != null) {
        items.add(t);
      }
    }
    try (BloomFilter f = Sizing.perKeyCount(FPP).create(new HashSet<>(items).size())) {
      if (!items.isEmpty()) {
        f.putAll(items.toArray(new String[0]));
      }
      return f.toByteArray();
    }
  }

  @EachEvaluation
  void nullsAndEmptyArrays(String which) throws Exception {
    inEvaluation(which, spark -> {
      Row row = spark.sql("SELECT"
          + " sparkbloom_build_array(CAST(NULL AS ARRAY<BIGINT>), 0.01),"
          + " sparkbloom_build_array(array(NULL, NULL), 0.01),"
          + " sparkbloom_build_array(CAST(array() AS ARRAY<BIGINT>), 0.01),"
          + " sparkbloom_build_array(array(3L, NULL, 4L), 0.01),"
          + " sparkbloom_build_array(array(3L, 4L, 4L), 0.01),"
          + " sparkbloom_build_array(CAST(array() AS ARRAY<STRING>), 10, 0.01),"
          + " sparkbloom_build_array(array(CAST(3 AS TINYINT), NULL), CAST(10 AS SMALLINT), 0.01),"
          + " (SELECT sparkbloom_build_per_key(CAST(NULL AS BIGINT), 0.01) FROM range(2)),"
          + " (SELECT sparkbloom_build(CAST(NULL AS BIGINT), 10, 0.01) FROM range(2)),"
          + " (SELECT sparkbloom_build(3L, 10, 0.01) FROM range(2))").first();
      assertNull(row.get(0));
      assertArrayEquals((byte[]) row.get(7), (byte[]) row.get(1), "only nulls: the empty per-key filter");
      assertArrayEquals((byte[]) row.get(7), (byte[]) row.get(2));
      assertArrayEquals((byte[]) row.get(4), (byte[]) row.get(3), "null elements skipped");
      assertArrayEquals((byte[]) row.get(8), (byte[]) row.get(5));
      assertArrayEquals((byte[]) row.get(9), (byte[]) row.get(6));
      Exception nullP = assertThrows(Exception.class, () -> spark.sql(
          "SELECT sparkbloom_build_array(array(id), IF(id = 1, NULL, 0.01)) FROM range(3)").collect());
      assertTrue(SqlCatalogueTest.rootMessage(nullP).contains(
          "sparkbloom_build_array(items, p): p must not be null"), SqlCatalogueTest.rootMessage(nullP));
      Exception nullN = assertThrows(Exception.class, () -> spark.sql(
          "SELECT sparkbloom_build_array(array(id), IF(id = 1, NULL, 10), 0.01) FROM range(3)").collect());
      assertTrue(SqlCatalogueTest.rootMessage(nullN).contains(
          "sparkbloom_build_array(items, n, p): n and p must not be null"), SqlCatalogueTest.rootMessage(nullN));
    });
  }

  @EachRegistration
  void analysisErrorsAndDescription(String which) {
    SparkSession spark = session(which);
    String[][] cases = {
      {"sparkbloom_build_array(items)", "WRONG_NUM_ARGS", "[2, 3]"},
      {"sparkbloom_build_array(items, 1, 0.01, 4)", "WRONG_NUM_ARGS", "[2, 3]"},
      {"sparkbloom_build_array(transform(items, x -> CAST(x AS DOUBLE)), 0.01)", "UNEXPECTED_INPUT_TYPE",
          "\"ARRAY<STRING>\""},
      {"sparkbloom_build_array(element_at(items, 1), 0.01)", "UNEXPECTED_INPUT_TYPE", "first"},
      {"sparkbloom_build_array(items, 'x')", "UNEXPECTED_INPUT_TYPE", "second"},
      {"sparkbloom_build_array(items, 1.5, 0.01)", "UNEXPECTED_INPUT_TYPE", "second"},
    };
    for (String[] c : cases) {
      AnalysisException e = assertThrows(AnalysisException.class,
          () -> spark.sql("SELECT " + c[0] + " FROM seen_lists").collect(), c[0]);
      assertTrue(e.getMessage().contains(c[1]) && e.getMessage().contains(c[2]), e.getMessage());
    }
    String description = spark.sql("DESCRIBE FUNCTION " + BloomFunctions.BUILD_ARRAY).collectAsList().toString();
    assertTrue(description.contains("Usage: " + BloomFunctions.BUILD_ARRAY + "(items, p)"), description);
  }

  @Test
  void columnHelperBuildsTheTypedExpression() {
    Dataset<Row> df = extension.table("seen_lists").select(functions.col("user"),
        BloomFunctions.buildArray(functions.col("items"), FPP),
        BloomFunctions.buildArray(functions.col("items"), 500, FPP),
        functions.expr("sparkbloom_build_array(items, " + FPP + ")"),
        functions.expr("sparkbloom_build_array(items, 500, " + FPP + ")"));
    assertTrue(df.queryExecution().executedPlan().toString().contains(BloomFunctions.BUILD_ARRAY));
    List<Row> rows = df.collectAsList();
    assertEquals(USERS, rows.size());
    for (Row row : rows) {
      assertArrayEquals((byte[]) row.get(3), (byte[]) row.get(1));
      assertArrayEquals((byte[]) row.get(4), (byte[]) row.get(2));
    }
  }
}
