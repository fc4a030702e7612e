package io.sparkbloom.spark;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The SQL functions on each item type Spark may hand them: {@code int} items and {@code
 * array<int>} candidates answer as {@code bigint} ones of the same values (they once failed with
 * {@code ClassCastException: Integer cannot be cast to Long}), and an unsupported type fails
 * analysis with Spark's {@code DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE} naming the call and the
 * SQL type.
 */
class SqlArgumentTypesTest extends WithSparkSession {
  @BeforeAll
  void start() {
    BloomFunctions.register(spark);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      rows.add(RowFactory.create("u" + (i % 3), i * 7919));
    }
    Dataset<Row> df = spark.createDataFrame(rows, new StructType()
        .add("user", DataTypes.StringType).add("item", DataTypes.IntegerType));
    df.createOrReplaceTempView("int_history");
  }

  @Test
  void intItemsBuildAndQueryAsBigint() {
    List<Row> byInt = spark.sql("SELECT user, sparkbloom_build(item, 2000, 0.01) FROM int_history"
        + " GROUP BY user ORDER BY user").collectAsList();
    List<Row> byBigint = spark.sql("SELECT user, sparkbloom_build(CAST(item AS BIGINT), 2000, 0.01)"
        + " FROM int_history GROUP BY user ORDER BY user").collectAsList();
    List<Row> byColumn = spark.table("int_history").groupBy("user")
        .agg(BloomFunctions.build(col("item"), 2000, 0.01)).orderBy("user").collectAsList();
    assertEquals(3, byInt.size());
    for (int u = 0; u < 3; u++) {
      assertArrayEquals((byte[]) byBigint.get(u).get(1), (byte[]) byInt.get(u).get(1));
      assertArrayEquals((byte[]) byBigint.get(u).get(1), (byte[]) byColumn.get(u).get(1));
    }
    spark.sql("SELECT user, sparkbloom_build(item, 2000, 0.01) AS filter FROM int_history GROUP BY user")
        .createOrReplaceTempView("int_filters");

    // int items: every inserted one is found, exactly as its bigint value
    Row counts = spark.sql("SELECT count(*), count_if(sparkbloom_might_contain(f.filter, h.item)),"
        + " count_if(sparkbloom_might_contain(f.filter, h.item) = sparkbloom_might_contain(f.filter,"
        + " CAST(h.item AS BIGINT))) FROM int_history h JOIN int_filters f USING (user)").first();
    assertEquals(3_000L, counts.getLong(0));
    assertEquals(3_000L, counts.getLong(1));
    assertEquals(3_000L, counts.getLong(2));

    // array<int> candidates: the seen ones go, the others are those array<bigint> keeps
    Row kept = spark.sql("SELECT sparkbloom_retain_absent(filter, array(0, 23757, 1, 2, 3)),"
        + " sparkbloom_retain_absent(filter, array(CAST(0 AS BIGINT), 23757, 1, 2, 3)),"
        + " sparkbloom_retain_absent(filter, array(CAST(0 AS SMALLINT), CAST(1 AS TINYINT)))"
        + " FROM int_filters WHERE user = 'u0'").first();
    assertEquals(kept.getList(1), kept.getList(0));
    // 0 and 23757 (= 3 * 7919) are u0's items
    assertTrue(!kept.getList(0).contains(0L) && !kept.getList(0).contains(23757L), kept.toString());
    assertEquals(kept.getList(0).contains(1L) ? List.of(1L) : List.of(), kept.getList(2));
  }

  private void assertRejected(String sql, String... inMessage) {
    AnalysisException e = assertThrows(AnalysisException.class, () -> spark.sql(sql).collectAsList());
    assertTrue(e.getMessage().contains("UNEXPECTED_INPUT_TYPE"), e.getMessage());
    for (String part : inMessage) {
      assertTrue(e.getMessage().contains(part), () -> part + " not in " + e.getMessage());
    }
  }

  @Test
  void unsupportedItemTypesNameTheType() {
    String filter = "(SELECT sparkbloom_build(item, 2000, 0.01) FROM int_history)";
    assertRejected("SELECT sparkbloom_might_contain(" + filter + ", 1.5D)",
        "sparkbloom_might_contain", "\"DOUBLE\"", "\"INT\", \"BIGINT\" or \"STRING\"");
    assertRejected("SELECT sparkbloom_might_contain(" + filter + ", true)", "\"BOOLEAN\"");
    assertRejected("SELECT sparkbloom_retain_absent(" + filter + ", array(1.5D))",
        "sparkbloom_retain_absent", "\"ARRAY<DOUBLE>\"");
    assertRejected("SELECT sparkbloom_retain_absent(" + filter + ", array('a'))",
        "\"ARRAY<STRING>\"", "sparkbloom_retain_absent_string");
    assertRejected("SELECT sparkbloom_retain_absent_string(" + filter + ", array(CAST(1 AS BIGINT)))",
        "sparkbloom_retain_absent_string", "\"ARRAY<BIGINT>\"", "call sparkbloom_retain_absent)");
  }

  /**
   * The build aggregates refuse, when the query is analyzed, item types they would only see cast
   * to bigint or string (a double column was once hashed as its values cast to bigint): no job
   * runs, so the error comes from {@code spark.sql} itself.
   */
  @Test
  void buildAggregatesRefuseOtherItemTypesAtAnalysis() {
    String[][] cases = {
        {"sparkbloom_build(CAST(item AS DOUBLE), 2000, 0.01)", "\"DOUBLE\""},
        {"sparkbloom_build(CAST(item AS STRING), 2000, 0.01)", "\"STRING\""},
        {"sparkbloom_build(CAST(item AS DECIMAL(10, 0)), 2000, 0.01)", "\"DECIMAL(10,0)\""},
        {"sparkbloom_build_per_key(CAST(item AS DOUBLE), 0.01)", "\"DOUBLE\""},
        {"sparkbloom_build_string(item, 2000, 0.01)", "\"INT\""},
        {"sparkbloom_retain_absent(NULL, array(1.5D))", "\"ARRAY<DOUBLE>\""},
        {"sparkbloom_might_contain(NULL, 1.5D)", "\"DOUBLE\""},
    };
    for (String[] c : cases) {
      AnalysisException e = assertThrows(AnalysisException.class,
          () -> spark.sql("SELECT " + c[0] + " FROM int_history"), c[0]);
      String call = c[0].substring(0, c[0].indexOf('('));
      assertTrue(e.getMessage().contains("UNEXPECTED_INPUT_TYPE") && e.getMessage().contains("\"" + call + "("),
          e.getMessage());
      assertTrue(e.getMessage().contains("has the type " + c[1]), e.getMessage());
    }
    // accepted: the integer types, and NULL items
    spark.sql("SELECT sparkbloom_build(CAST(item AS SMALLINT), 2000, 0.01),"
        + " sparkbloom_build(NULL, 2000, 0.01), sparkbloom_build_string(CAST(item AS STRING), 2000, 0.01)"
        + " FROM int_history");
  }

  @Test
  void stringAndLongItemsHashDifferently() {
    // a filter of strings answers for strings; "42" and 42 are different keys
    try (BloomFilter f = BloomFilter.create(100, 0.001)) {
      f.put("42");
      Row r = spark.sql("SELECT sparkbloom_might_contain(unhex('" + hex(f.toByteArray()) + "'), '42'),"
          + " sparkbloom_might_contain(unhex('" + hex(f.toByteArray()) + "'), 42)").first();
      assertTrue(r.getBoolean(0));
      assertEquals(f.mightContain(42L), r.getBoolean(1));
    }
  }

  private static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder();
    for (byte x : bytes) {
      b.append(String.format("%02x", x));
    }
    return b.toString();
  }
}
