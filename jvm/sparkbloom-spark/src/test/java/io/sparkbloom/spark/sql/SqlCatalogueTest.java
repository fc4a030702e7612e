package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.BloomFunctions;
import io.sparkbloom.spark.Sizing;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * The one catalogue of SQL functions ({@link SparkBloomSql}), in a session with the extension
 * ("extension") and in one where {@code BloomFunctions.register} made them ("register"): the same
 * functions, descriptions and analysis errors either way, and typed expressions whose answers are
 * the core library's (fixed and string builds, {@code sparkbloom_retain_absent_string}, {@code
 * sparkbloom_might_contain}), with generated and interpreted evaluation. The per-key build and
 * {@code sparkbloom_retain_absent} are tested in {@link TypedExpressionsTest}, {@code
 * sparkbloom_build_array} in {@link BuildArrayTest}.
 */
class SqlCatalogueTest extends WithBothRegistrations {
  private static final int USERS = 200;

  SqlCatalogueTest() {
    super(3);
  }

  /** Per user: the non-null history items, in row order. */
  private final Map<String, List<Long>> history = new HashMap<>();

  @BeforeAll
  void start() {
    // (user, item, text): some repeated items, a null item per user, one user past a builder batch
    Random r = new Random(11);
    List<Row> rows = new ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      List<Long> items = new ArrayList<>();
      int n = u == 0 ? 9000 : 1 + r.nextInt(80);
      for (int i = 0; i < n; i++) {
        long item = r.nextInt(5) == 0 ? r.nextInt(50) : r.nextLong();
        rows.add(RowFactory.create("u" + u, item, "s" + item));
        items.add(item);
      }
      rows.add(RowFactory.create("u" + u, null, null));
      history.put("u" + u, items);
    }
    StructType schema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("item", DataTypes.LongType, true)
        .add("text", DataTypes.StringType, true);
    viewInBoth("history", rows, schema);
  }

  private static void assertTyped(Dataset<Row> df, String... functions) {
    String plan = df.queryExecution().executedPlan().toString();
    for (String function : functions) {
      assertTrue(plan.contains(function), plan);
    }
    assertFalse(plan.contains("UDF(") || plan.contains("ScalaAggregator") || plan.contains("scalaaggregator")
        || plan.contains("ScalaUDF"), plan);
  }

  /** The rows of {@code df}, one per user, whose plan holds the typed {@code functions}. */
  private static List<Row> typedRowPerUser(Dataset<Row> df, String... functions) {
    assertTyped(df, functions);
    List<Row> rows = df.collectAsList();
    assertEquals(USERS, rows.size());
    return rows;
  }

  /** The bytes of a filter for (n, 0.01) holding {@code items}, integers or their "s" strings. */
  private static byte[] coreFilter(long n, List<Long> items, boolean strings) {
    try (BloomFilter f = Sizing.fixed(n, 0.01).create(0)) {
      for (long item : items) {
        if (strings) {
          f.put("s" + item);
        } else {
          f.put(item);
        }
      }
      return f.toByteArray();
    }
  }

  private static BloomFilter read(Row row, int field) {
    try {
      return BloomFilter.fromByteArray((byte[]) row.get(field));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void bothRegistrationsHoldTheCataloguesFunctionsAndDescriptions() {
    for (SqlFunction function : SparkBloomSql.functions()) {
      String usage = function.usage().replace("_FUNC_", function.name());
      for (SparkSession spark : List.of(extension, registered)) {
        assertTrue(spark.catalog().functionExists(function.name()), function.name());
        String description = spark.sql("DESCRIBE FUNCTION " + function.name()).collectAsList().toString();
        assertTrue(description.contains(usage.substring(0, usage.indexOf(" - "))), description);
      }
    }
  }

  @EachRegistration
  void mergeAndCountOverWholeFilters(String which) {
    Row r = session(which).sql("SELECT sparkbloom_count(m), sparkbloom_might_contain(m, 7L),"
        + " sparkbloom_might_contain(m, 8L) FROM (SELECT sparkbloom_merge(f) AS m FROM"
        + " (SELECT sparkbloom_build(id, 1000, 0.01) AS f FROM range(100) GROUP BY id % 2))").first();
    // 100 distinct items in 9,585 bits: the estimate's standard error is well under one item
    assertTrue(Math.abs(r.getLong(0) - 100) <= 3, "count " + r.getLong(0));
    assertTrue(r.getBoolean(1) && r.getBoolean(2), "both halves' items in the union");
  }

  @EachRegistration
  void fixedBuildsAreTheCoreFiltersEvenAfterTheSortFallback(String which) {
    SparkSession spark = session(which);
    // 2: nearly every task falls back to sort-based aggregation; 100000: none does
    for (String threshold : List.of("2", "100000")) {
      spark.conf().set("spark.sql.objectHashAggregate.sortBased.fallbackThreshold", threshold);
      Dataset<Row> typed = spark.sql("SELECT user, sparkbloom_build(item, 20000, 0.01) AS a,"
          + " sparkbloom_build_string(text, 20000, 0.01) AS b FROM history GROUP BY user");
      for (Row row : typedRowPerUser(typed, BloomFunctions.BUILD, BloomFunctions.BUILD_STRING)) {
        List<Long> items = history.get(row.getString(0));
        assertArrayEquals(coreFilter(20000, items, false), (byte[]) row.get(1), row.getString(0));
        assertArrayEquals(coreFilter(20000, items, true), (byte[]) row.get(2), row.getString(0));
      }
    }
    spark.conf().unset("spark.sql.objectHashAggregate.sortBased.fallbackThreshold");
    // one global filter from partial buffers that flushed into native filters, narrow types,
    // int n and decimal p, only null items
    Row global = spark.sql("SELECT sparkbloom_build(id, 30000, 0.01),"
        + " sparkbloom_build(CAST(id AS INT), CAST(30000 AS INT), CAST(0.01 AS DECIMAL(3, 2))),"
        + " sparkbloom_build_string(CAST(id AS STRING), 30000, 0.01),"
        + " sparkbloom_build(CAST(NULL AS BIGINT), 30000, 0.01) FROM range(0, 20000, 1, 4)").first();
    List<Long> ids = new ArrayList<>();
    for (long i = 0; i < 20000; i++) {
      ids.add(i);
    }
    assertArrayEquals(coreFilter(30000, ids, false), (byte[]) global.get(0));
    assertArrayEquals(coreFilter(30000, ids, false), (byte[]) global.get(1));
    try (BloomFilter f = read(global, 2)) {
      assertTrue(f.mightContain("19999") && f.approximateElementCount() > 19000, "string items");
    }
    assertArrayEquals(coreFilter(30000, List.of(), false), (byte[]) global.get(3), "the empty filter");
    Row none = spark.sql("SELECT sparkbloom_build(id, 10, 0.01),"
        + " sparkbloom_build_string(CAST(id AS STRING), 10, 0.01) FROM range(0)").first();
    assertTrue(none.isNullAt(0) && none.isNullAt(1), "a global aggregate over no rows: null");
  }

  @EachRegistration
  void fixedBuildsRefuseNullOrMixedSizingRowByRow(String which) {
    SparkSession spark = session(which);
    for (String fn : List.of(BloomFunctions.BUILD, BloomFunctions.BUILD_STRING)) {
      String item = fn.equals(BloomFunctions.BUILD) ? "id" : "CAST(id AS STRING)";
      Exception nullN = assertThrows(Exception.class, () -> spark.sql("SELECT " + fn + "(" + item
          + ", IF(id = 3, NULL, 10), 0.01) FROM range(10)").collect());
      assertTrue(rootMessage(nullN).contains(fn + "(item, n, p): n and p must not be null"), rootMessage(nullN));
      Exception mixed = assertThrows(Exception.class, () -> spark.sql("SELECT " + fn + "(" + item
          + ", IF(id < 5, 10, 20), 0.01) FROM range(0, 10, 1, 1)").collect()); // rows of one task
      assertTrue(rootMessage(mixed).contains("n and p must be the same for every row of a group"),
          rootMessage(mixed));
    }
  }

  /** The analysis errors of both registrations are the same, naming the other item kind's function. */
  @EachRegistration
  void analysisErrorsAreTheSameEitherWay(String which) {
    SparkSession spark = session(which);
    String[][] cases = {
      {"sparkbloom_build(CAST(id AS DOUBLE), 10, 0.01)", "UNEXPECTED_INPUT_TYPE", "\"DOUBLE\"",
          "for string items call sparkbloom_build_string"},
      {"sparkbloom_build_string(id, 10, 0.01)", "UNEXPECTED_INPUT_TYPE", "\"BIGINT\"",
          "for integer items call sparkbloom_build)"},
      {"sparkbloom_retain_absent(X'00', array('a'))", "UNEXPECTED_INPUT_TYPE", "\"ARRAY<STRING>\"",
          "for array<string> candidates call sparkbloom_retain_absent_string"},
      {"sparkbloom_retain_absent_string(X'00', array(1L))", "UNEXPECTED_INPUT_TYPE", "\"ARRAY<BIGINT>\"",
          "for integer candidates call sparkbloom_retain_absent)"},
      {"sparkbloom_might_contain(X'00', CAST(id AS DOUBLE))", "UNEXPECTED_INPUT_TYPE", "second",
          "\"INT\", \"BIGINT\" or \"STRING\""},
      {"sparkbloom_build(id, 10)", "WRONG_NUM_ARGS", "`sparkbloom_build`", "3"},
      {"sparkbloom_merge(id, id)", "WRONG_NUM_ARGS", "`sparkbloom_merge`", "1"},
      {"sparkbloom_build(id, 10, 1.5)", "TYPE_CHECK_FAILURE_WITH_HINT", "sparkbloom_build(item, n, p): ",
          "p must be in (0, 1)"},
      {"sparkbloom_build_per_key(id, NULL)", "TYPE_CHECK_FAILURE_WITH_HINT",
          "sparkbloom_build_per_key(item, p): p must not be null", "\"sparkbloom_build_per_key(id, NULL)\""},
    };
    for (String[] c : cases) {
      AnalysisException e = assertThrows(AnalysisException.class,
          () -> spark.sql("SELECT " + c[0] + " FROM range(3)").collect(), c[0]);
      for (int i = 1; i < c.length; i++) {
        assertTrue(e.getMessage().contains(c[i]), c[i] + " not in " + e.getMessage());
      }
    }
  }

  @EachRegistrationAndEvaluation
  void retainAbsentStringAndMightContainAreTheCoreAnswers(String which) throws Exception {
    inEvaluation(which, spark -> {
      // candidates: the history, and the history shifted (mostly unseen), with a null inside
      Dataset<Row> typed = spark.sql("SELECT user, sf, lf, element_at(texts, 1) AS t, element_at(items, 1) AS i,"
          + " sparkbloom_retain_absent_string(sf, concat(texts, array(NULL, 'zz'))) AS a,"
          + " sparkbloom_retain_absent_string(sf, transform(texts, t -> concat(t, 'x'))) AS b,"
          + " sparkbloom_might_contain(sf, element_at(texts, 1)) AS c,"
          + " sparkbloom_might_contain(lf, element_at(items, 1) + 1) AS d,"
          + " sparkbloom_might_contain(lf, CAST(element_at(items, 1) % 100 AS INT)) AS e,"
          + " sparkbloom_might_contain(sf, concat(element_at(texts, 1), 'y')) AS f, texts FROM"
          + " (SELECT user, sparkbloom_build_string(text, 100, 0.01) AS sf, sparkbloom_build(item, 100, 0.01) AS lf,"
          + " collect_list(text) AS texts, collect_list(item) AS items FROM history GROUP BY user)");
      for (Row row : typedRowPerUser(typed, BloomFunctions.RETAIN_ABSENT_STRING, BloomFunctions.MIGHT_CONTAIN)) {
        try (BloomFilter sf = read(row, 1); BloomFilter lf = read(row, 2)) {
          String t = row.getString(3);
          long i = row.getLong(4);
          List<String> shifted = new ArrayList<>();
          for (String text : row.<String>getList(11)) {
            if (!sf.mightContain(text + "x")) {
              shifted.add(text + "x");
            }
          }
          assertEquals(sf.mightContain("zz") ? List.of() : List.of("zz"), row.getList(5), "every seen string dropped");
          assertEquals(shifted, row.getList(6));
          assertTrue(row.getBoolean(7), "no false negatives");
          assertEquals(lf.mightContain(i + 1), row.getBoolean(8));
          assertEquals(lf.mightContain((long) (int) (i % 100)), row.getBoolean(9));
          assertEquals(sf.mightContain(t + "y"), row.getBoolean(10));
        }
      }
    });
  }

  /**
   * Rows that repeat one user's filter (sorted by user: the filter decoded once is kept for the
   * run), rows that switch filter on every row (interleaved), and one constant filter: every item
   * put answered true, the others as the core answers.
   */
  @EachEvaluation
  void mightContainAnswersWhetherRowsRepeatAFilterOrNot(String which) throws Exception {
    inEvaluation(which, spark -> {
      spark.sql("SELECT user, sparkbloom_build(item, 100, 0.01) AS lf FROM history GROUP BY user")
          .createOrReplaceTempView("filters");
      // each item put, and the item + 1 (mostly absent), per user
      spark.sql("SELECT user, item, true AS put FROM history WHERE item IS NOT NULL"
          + " UNION ALL SELECT user, item + 1, false FROM history WHERE item IS NOT NULL")
          .createOrReplaceTempView("probes");
      for (String order : List.of("p.user, p.item", "p.item, p.user")) {
        List<Row> rows = spark.sql("SELECT p.put, sparkbloom_might_contain(f.lf, p.item), f.lf, p.item"
            + " FROM probes p JOIN filters f ON p.user = f.user ORDER BY " + order).coalesce(1).collectAsList();
        for (Row row : rows) {
          try (BloomFilter f = read(row, 2)) {
            assertEquals(f.mightContain(row.getLong(3)), row.getBoolean(1), order);
          }
          assertTrue(!row.getBoolean(0) || row.getBoolean(1), "no false negatives (" + order + ")");
        }
        assertTrue(rows.size() > 2 * USERS, "rows: " + rows.size());
      }
      byte[] one = spark.sql("SELECT lf FROM filters WHERE user = 'u1'").first().getAs(0);
      spark.createDataFrame(List.of(RowFactory.create(one)), new StructType().add("f", DataTypes.BinaryType))
          .createOrReplaceTempView("one_filter");
      List<Row> constant = spark.sql("SELECT sparkbloom_might_contain(o.f, h.item), sparkbloom_might_contain(o.f,"
          + " h.item + 1), h.item FROM history h CROSS JOIN one_filter o WHERE h.user = 'u1' AND h.item IS NOT NULL")
          .collectAsList();
      assertFalse(constant.isEmpty());
      try (BloomFilter f = BloomFilter.fromByteArray(one)) {
        for (Row row : constant) {
          assertTrue(row.getBoolean(0), "no false negatives for u1's own items");
          assertEquals(f.mightContain(row.getLong(2) + 1), row.getBoolean(1));
        }
      }
    });
  }

  @EachEvaluation
  void nullsAndCorruptFilters(String which) throws Exception {
    inEvaluation(which, spark -> {
      String filter = "(SELECT sparkbloom_build_string(CAST(id AS STRING), 10, 0.01) FROM range(10))";
      Row row = spark.sql("SELECT"
          + " sparkbloom_retain_absent_string(CAST(NULL AS BINARY), array('a', NULL, 'b')),"
          + " sparkbloom_retain_absent_string(" + filter + ", CAST(NULL AS ARRAY<STRING>)),"
          + " sparkbloom_retain_absent_string(" + filter + ", array(NULL, NULL)),"
          + " sparkbloom_retain_absent_string(" + filter + ", CAST(array() AS ARRAY<STRING>)),"
          + " sparkbloom_might_contain(" + filter + ", CAST(NULL AS STRING)),"
          + " sparkbloom_might_contain(CAST(NULL AS BINARY), 'a'),"
          + " sparkbloom_might_contain(" + filter + ", '3'),"
          + " sparkbloom_might_contain(" + filter + ", NULL)").first();
      assertEquals(List.of("a", "b"), row.getList(0));
      assertTrue(row.isNullAt(1));
      assertEquals(List.of(), row.getList(2));
      assertEquals(List.of(), row.getList(3));
      assertTrue(row.isNullAt(4));
      assertFalse(row.getBoolean(5));
      assertTrue(row.getBoolean(6));
      assertTrue(row.isNullAt(7));
      // non-null filter bytes are read whatever the other argument, empty bytes too
      for (String call : List.of("sparkbloom_retain_absent_string(X'00010203', array('a'))",
          "sparkbloom_might_contain(X'00010203', 1L)", "sparkbloom_merge(X'')",
          "sparkbloom_retain_absent_string(X'00', CAST(NULL AS ARRAY<STRING>))",
          "sparkbloom_might_contain(X'00', CAST(NULL AS STRING))")) {
        Exception e = assertThrows(Exception.class, () -> spark.sql("SELECT " + call).collect());
        String name = call.substring(0, call.indexOf('('));
        assertTrue(rootMessage(e).contains(name + ": not a sparkbloom filter"), rootMessage(e));
      }
    });
  }

  /** The Column helpers build the typed expressions, a per-key sizing with headroom included. */
  @Test
  void columnHelpersBuildTheTypedExpressions() {
    Dataset<Row> filters = extension.table("history").groupBy("user").agg(
        BloomFunctions.buildStrings(functions.col("text"), 100, 0.01).as("sf"),
        BloomFunctions.build(functions.col("item"), 100, 0.01).as("lf"),
        BloomFunctions.build(functions.col("item"), Sizing.perKeyCount(0.01).withHeadroom(1.5)).as("hf"),
        functions.collect_list("text").as("texts"), functions.collect_list("item").as("items"));
    assertTyped(filters, BloomFunctions.BUILD_PER_KEY);
    Dataset<Row> typed = filters.select(functions.col("user"), functions.col("hf"),
        BloomFunctions.retainAbsentStrings(functions.col("sf"), functions.col("texts")),
        BloomFunctions.retainAbsent(functions.col("lf"), functions.col("items")),
        BloomFunctions.mightContain(functions.col("lf"), functions.element_at(functions.col("items"), 1)));
    assertTyped(typed, BloomFunctions.RETAIN_ABSENT_STRING, BloomFunctions.MIGHT_CONTAIN);
    for (Row row : typed.collectAsList()) {
      long[] items = history.get(row.getString(0)).stream().mapToLong(Long::longValue).toArray();
      try (BloomFilter f = Sizing.perKeyCount(0.01).withHeadroom(1.5).build(items)) {
        assertArrayEquals(f.toByteArray(), (byte[]) row.get(1), "headroom");
      }
      assertEquals(List.of(), row.getList(2));
      assertEquals(List.of(), row.getList(3));
      assertTrue(row.getBoolean(4));
    }
  }

  /** {@code registerBuild}: a one-argument fixed build through the same checks. */
  @Test
  void registerBuildIsTheFixedBuild() {
    BloomFunctions.registerBuild(registered, "user_filter", 20000, 0.01);
    Row row = registered.sql("SELECT user_filter(item) FROM history WHERE user = 'u3'").first();
    assertArrayEquals(coreFilter(20000, history.get("u3"), false), (byte[]) row.get(0));
    AnalysisException e = assertThrows(AnalysisException.class,
        () -> registered.sql("SELECT user_filter(text) FROM history").collect());
    assertTrue(e.getMessage().contains("UNEXPECTED_INPUT_TYPE") && e.getMessage().contains("user_filter"),
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BloomFunctions.registerBuild(registered, "f", 10, 1.5));
  }

  static String rootMessage(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c.getMessage()).append(" | ");
    }
    return all.toString();
  }
}
