package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.spark.BloomFunctions;
import java.util.ArrayList;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sparkbloom_build}, {@code sparkbloom_build_string}, {@code
 * sparkbloom_retain_absent_string} and {@code sparkbloom_might_contain} as typed Catalyst
 * expressions against their UDF forms, registered in the same sessions under other names: the
 * same filter bytes and answers, in a session with the extension ("extension") and in one where
 * {@code BloomFunctions.register} replaced them ("register"), with generated and interpreted
 * evaluation; the same null rules and errors. {@code sparkbloom_build_array} is tested in {@link
 * BuildArrayTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypedUdfParityTest {
  private static final int USERS = 200;

  private SparkSession extension;
  private SparkSession registered;

  @BeforeAll
  void start() {
    extension = ExtensionSessions.withExtension("TypedUdfParityTest", 3);
    registered = ExtensionSessions.registeredBeside(extension);

    // (user, item, text): some repeated items, a null item per user, one user past a builder batch
    Random r = new Random(11);
    List<Row> rows = new ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      int n = u == 0 ? 9000 : 1 + r.nextInt(80);
      for (int i = 0; i < n; i++) {
        long item = r.nextInt(5) == 0 ? r.nextInt(50) : r.nextLong();
        rows.add(RowFactory.create("u" + u, item, "s" + item));
      }
      rows.add(RowFactory.create("u" + u, null, null));
    }
    StructType schema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("item", DataTypes.LongType, true)
        .add("text", DataTypes.StringType, true);
    for (SparkSession s : List.of(extension, registered)) {
      s.createDataFrame(rows, schema).repartition(2).createOrReplaceTempView("history");
      s.udf().register("udf_build", BloomFunctions.buildSqlUdaf());
      s.udf().register("udf_build_string", BloomFunctions.buildStringsSqlUdaf());
      s.udf().register("udf_retain_absent_string", BloomFunctions.retainAbsentStringsUdf());
      s.udf().register("udf_might_contain", BloomFunctions.mightContainUdf());
    }
  }

  @AfterAll
  void stop() {
    extension.stop();
  }

  private SparkSession session(String which) {
    return which.startsWith("extension") ? extension : registered;
  }

  /** Sets the codegen mode named after the '/' of {@code which}; returns the session. */
  private SparkSession codegen(String which) {
    SparkSession spark = session(which);
    boolean on = which.endsWith("CODEGEN_ONLY");
    spark.conf().set("spark.sql.codegen.factoryMode", on ? "CODEGEN_ONLY" : "NO_CODEGEN");
    spark.conf().set("spark.sql.codegen.wholeStage", Boolean.toString(on));
    return spark;
  }

  private static void resetCodegen(SparkSession spark) {
    spark.conf().unset("spark.sql.codegen.factoryMode");
    spark.conf().unset("spark.sql.codegen.wholeStage");
  }

  private static void assertTyped(Dataset<Row> df, String function) {
    String plan = df.queryExecution().executedPlan().toString();
    assertTrue(plan.contains(function), plan);
    assertFalse(plan.contains("UDF(") || plan.contains("ScalaAggregator") || plan.contains("scalaaggregator")
        || plan.contains("ScalaUDF"), plan);
  }

  @ParameterizedTest
  @ValueSource(strings = {"extension", "register"})
  void fixedBuildsGiveTheUdfsBytesEvenAfterTheSortFallback(String which) {
    SparkSession spark = session(which);
    // 2: nearly every task falls back to sort-based aggregation; 100000: none does
    for (String threshold : List.of("2", "100000")) {
      spark.conf().set("spark.sql.objectHashAggregate.sortBased.fallbackThreshold", threshold);
      Dataset<Row> typed = spark.sql("SELECT user, sparkbloom_build(item, 20000, 0.01) AS a,"
          + " sparkbloom_build_string(text, 20000, 0.01) AS b FROM history GROUP BY user");
      assertTyped(typed, BloomFunctions.BUILD);
      assertTyped(typed, BloomFunctions.BUILD_STRING);
      typed.createOrReplaceTempView("typed");
      List<Row> rows = spark.sql("SELECT t.a, t.b, u.a, u.b FROM typed t JOIN (SELECT user,"
          + " udf_build(item, 20000, 0.01) AS a, udf_build_string(text, 20000, 0.01) AS b"
          + " FROM history GROUP BY user) u ON t.user = u.user").collectAsList();
      assertEquals(USERS, rows.size());
      for (Row row : rows) {
        assertArrayEquals((byte[]) row.get(2), (byte[]) row.get(0));
        assertArrayEquals((byte[]) row.get(3), (byte[]) row.get(1));
      }
    }
    spark.conf().unset("spark.sql.objectHashAggregate.sortBased.fallbackThreshold");
    // one global filter from partial buffers that flushed into native filters, and narrow types
    Row global = spark.sql("SELECT sparkbloom_build(id, 30000, 0.01), udf_build(id, 30000, 0.01),"
        + " sparkbloom_build(CAST(id AS INT), 30000, 0.01), sparkbloom_build_string(CAST(id AS STRING),"
        + " 30000, 0.01), udf_build_string(CAST(id AS STRING), 30000, 0.01)"
        + " FROM range(0, 20000, 1, 4)").first();
    assertArrayEquals((byte[]) global.get(1), (byte[]) global.get(0));
    assertArrayEquals((byte[]) global.get(1), (byte[]) global.get(2));
    assertArrayEquals((byte[]) global.get(4), (byte[]) global.get(3));
  }

  @ParameterizedTest
  @ValueSource(strings = {"extension", "register"})
  void fixedBuildsNullsAndSizingErrors(String which) {
    SparkSession spark = session(which);
    Row row = spark.sql("SELECT sparkbloom_build(id, 10, 0.01),"
        + " sparkbloom_build_string(CAST(id AS STRING), 10, 0.01) FROM range(0)").first();
    assertTrue(row.isNullAt(0) && row.isNullAt(1), "a global aggregate over no rows: null");
    row = spark.sql("SELECT sparkbloom_build(CAST(NULL AS BIGINT), 10, 0.01), udf_build(CAST(NULL AS BIGINT), 10, 0.01),"
        + " sparkbloom_build(id, CAST(10 AS INT), CAST(0.01 AS DECIMAL(3, 2))), udf_build(id, 10, 0.01)"
        + " FROM range(5)").first();
    assertArrayEquals((byte[]) row.get(1), (byte[]) row.get(0), "only null items: the empty filter");
    assertArrayEquals((byte[]) row.get(3), (byte[]) row.get(2), "int n and decimal p");
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

  @Test
  void argumentTypeErrorsAreTheUdfForms() {
    // the extension: Spark's own analysis error; BloomFunctions.register: the SqlArgumentCheck one
    String[] calls = {
      "sparkbloom_build(CAST(id AS DOUBLE), 10, 0.01)",
      "sparkbloom_build_string(id, 10, 0.01)",
      "sparkbloom_retain_absent_string(X'00', array(1L))",
      "sparkbloom_might_contain(X'00', CAST(id AS DOUBLE))",
    };
    String[] registeredMessages = {
      "sparkbloom_build: item of SQL type double is not supported; expected int or bigint",
      "sparkbloom_build_string: item of SQL type bigint is not supported; expected string (for integer items call sparkbloom_build)",
      "sparkbloom_retain_absent_string: candidates of SQL type array<bigint> is not supported; expected array<string>",
      "sparkbloom_might_contain: item of SQL type double is not supported; expected int, bigint or string",
    };
    for (int i = 0; i < calls.length; i++) {
      String sql = "SELECT " + calls[i] + " FROM range(3)";
      AnalysisException e = assertThrows(AnalysisException.class, () -> extension.sql(sql).collect());
      assertTrue(e.getMessage().contains("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"), e.getMessage());
      Exception r = assertThrows(Exception.class, () -> registered.sql(sql).collect());
      assertTrue(rootMessage(r).contains(registeredMessages[i]), rootMessage(r));
    }
    AnalysisException arity = assertThrows(AnalysisException.class,
        () -> extension.sql("SELECT sparkbloom_build(id, 10) FROM range(3)").collect());
    assertTrue(arity.getMessage().contains("WRONG_NUM_ARGS"), arity.getMessage());
    Exception tooLarge = assertThrows(Exception.class,
        () -> registered.sql("SELECT sparkbloom_build(id, 10, 1.5) FROM range(3)"));
    assertTrue(rootMessage(tooLarge).contains("sparkbloom_build(item, n, p): "), rootMessage(tooLarge));
  }

  @ParameterizedTest
  @ValueSource(strings = {"extension/CODEGEN_ONLY", "extension/NO_CODEGEN", "register/CODEGEN_ONLY",
      "register/NO_CODEGEN"})
  void retainAbsentStringAndMightContainAnswerAsTheUdfs(String which) {
    SparkSession spark = codegen(which);
    try {
      spark.sql("SELECT user, sparkbloom_build_string(text, 100, 0.01) AS sf,"
          + " sparkbloom_build(item, 100, 0.01) AS lf, collect_list(text) AS texts,"
          + " collect_list(item) AS items FROM history GROUP BY user").createOrReplaceTempView("filters");
      // candidates: the history, and the history shifted (mostly unseen), with a null inside
      Dataset<Row> typed = spark.sql("SELECT user,"
          + " sparkbloom_retain_absent_string(sf, concat(texts, array(NULL, 'zz'))) AS a,"
          + " sparkbloom_retain_absent_string(sf, transform(texts, t -> concat(t, 'x'))) AS b,"
          + " sparkbloom_might_contain(sf, element_at(texts, 1)) AS c,"
          + " sparkbloom_might_contain(lf, element_at(items, 1) + 1) AS d,"
          + " sparkbloom_might_contain(lf, CAST(element_at(items, 1) % 100 AS INT)) AS e,"
          + " sparkbloom_might_contain(sf, concat(element_at(texts, 1), 'y')) AS f FROM filters");
      assertTyped(typed, BloomFunctions.RETAIN_ABSENT_STRING);
      assertTyped(typed, BloomFunctions.MIGHT_CONTAIN);
      Dataset<Row> udfs = spark.sql("SELECT user,"
          + " udf_retain_absent_string(sf, concat(texts, array(NULL, 'zz'))) AS a,"
          + " udf_retain_absent_string(sf, transform(texts, t -> concat(t, 'x'))) AS b,"
          + " udf_might_contain(sf, element_at(texts, 1)) AS c,"
          + " udf_might_contain(lf, element_at(items, 1) + 1) AS d,"
          + " udf_might_contain(lf, CAST(element_at(items, 1) % 100 AS INT)) AS e,"
          + " udf_might_contain(sf, concat(element_at(texts, 1), 'y')) AS f FROM filters");
      List<Row> a = typed.orderBy("user").collectAsList();
      List<Row> b = udfs.orderBy("user").collectAsList();
      assertEquals(USERS, a.size());
      assertEquals(b, a);
      for (Row row : a) {
        assertTrue(row.getList(1).isEmpty() || row.getList(1).equals(List.of("zz")),
            "every seen string dropped: " + row.getList(1));
        assertTrue(row.getBoolean(3), "no false negatives");
      }
    } finally {
      resetCodegen(spark);
    }
  }

  /** {@code BloomFunctions.register} also adds the extension's merge and count. */
  @Test
  void registerAddsMergeAndCount() {
    Row r = registered.sql("SELECT sparkbloom_count(m), sparkbloom_might_contain(m, 7L),"
        + " sparkbloom_might_contain(m, 8L) FROM (SELECT sparkbloom_merge(f) AS m FROM"
        + " (SELECT sparkbloom_build(id, 1000, 0.01) AS f FROM range(100) GROUP BY id % 2))").first();
    // 100 distinct items in 9,585 bits: the estimate's standard error is well under one item
    assertTrue(Math.abs(r.getLong(0) - 100) <= 3, "count " + r.getLong(0));
    assertTrue(r.getBoolean(1) && r.getBoolean(2), "both halves' items in the union");
  }

  /**
   * Rows that repeat one user's filter (sorted by user: the filter decoded once is kept for the
   * run), rows that switch filter on every row (interleaved), and one constant filter: the same
   * answers as the UDF, every item put answered true.
   */
  @ParameterizedTest
  @ValueSource(strings = {"extension/CODEGEN_ONLY", "register/NO_CODEGEN"})
  void mightContainAnswersAsTheUdfWhetherRowsRepeatAFilterOrNot(String which) {
    SparkSession spark = codegen(which);
    try {
      spark.sql("SELECT user, sparkbloom_build(item, 100, 0.01) AS lf FROM history GROUP BY user")
          .createOrReplaceTempView("filters");
      // each item put, and the item + 1 (mostly absent), per user
      spark.sql("SELECT user, item, true AS put FROM history WHERE item IS NOT NULL"
          + " UNION ALL SELECT user, item + 1, false FROM history WHERE item IS NOT NULL")
          .createOrReplaceTempView("probes");
      for (String order : List.of("p.user, p.item", "p.item, p.user")) {
        List<Row> rows = spark.sql("SELECT p.put, sparkbloom_might_contain(f.lf, p.item),"
            + " udf_might_contain(f.lf, p.item) FROM probes p JOIN filters f ON p.user = f.user"
            + " ORDER BY " + order).coalesce(1).collectAsList();
        for (Row row : rows) {
          assertEquals(row.getBoolean(2), row.getBoolean(1), order);
          assertTrue(!row.getBoolean(0) || row.getBoolean(1), "no false negatives (" + order + ")");
        }
        assertTrue(rows.size() > 2 * USERS, "rows: " + rows.size());
      }
      byte[] one = spark.sql("SELECT lf FROM filters WHERE user = 'u1'").first().getAs(0);
      spark.createDataFrame(List.of(RowFactory.create(one)), new StructType().add("f", DataTypes.BinaryType))
          .createOrReplaceTempView("one_filter");
      List<Row> constant = spark.sql("SELECT h.item, sparkbloom_might_contain(o.f, h.item),"
          + " udf_might_contain(o.f, h.item) FROM history h CROSS JOIN one_filter o"
          + " WHERE h.user = 'u1' AND h.item IS NOT NULL").collectAsList();
      assertFalse(constant.isEmpty());
      for (Row row : constant) {
        assertTrue(row.getBoolean(1), "no false negatives for u1's own items");
        assertEquals(row.getBoolean(2), row.getBoolean(1));
      }
    } finally {
      resetCodegen(spark);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"extension/CODEGEN_ONLY", "register/NO_CODEGEN"})
  void nullsAndCorruptFilters(String which) {
    SparkSession spark = codegen(which);
    try {
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
    } finally {
      resetCodegen(spark);
    }
  }

  @Test
  void columnHelpersBuildTheTypedExpressions() {
    Dataset<Row> filters = extension.sql("SELECT user, sparkbloom_build_string(text, 100, 0.01) AS sf,"
        + " sparkbloom_build(item, 100, 0.01) AS lf, collect_list(text) AS texts, collect_list(item) AS items"
        + " FROM history GROUP BY user");
    Dataset<Row> typed = filters.select(
        BloomFunctions.retainAbsentStrings(functions.col("sf"), functions.col("texts")),
        BloomFunctions.retainAbsent(functions.col("lf"), functions.col("items")),
        BloomFunctions.mightContain(functions.col("lf"), functions.element_at(functions.col("items"), 1)));
    assertTyped(typed, BloomFunctions.RETAIN_ABSENT_STRING);
    assertTyped(typed, BloomFunctions.MIGHT_CONTAIN);
    for (Row row : typed.collectAsList()) {
      assertEquals(List.of(), row.getList(0));
      assertEquals(List.of(), row.getList(1));
      assertTrue(row.getBoolean(2));
    }
    assertNull(extension.sql("SELECT sparkbloom_build(id, 10, 0.01) FROM range(0)").first().get(0));
  }

  static String rootMessage(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c.getMessage()).append(" | ");
    }
    return all.toString();
  }
}
