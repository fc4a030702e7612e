package io.sparkbloom.spark.sql;

import static org.apache.spark.sql.functions.col;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.spark.BloomFunctions;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIf;

/**
 * Spark 4's collations: a filter matches strings by their bytes, so a string argument whose
 * collation equates other bytes ({@code 'a' COLLATE UTF8_LCASE} = {@code 'A'}) would get false
 * negatives. Every function that takes string items or candidates refuses such an argument when
 * the query is analyzed, with the extension, after {@code BloomFunctions.register}, and through
 * the DataFrame helpers; the default collation and {@code CHAR}/{@code VARCHAR} types are
 * accepted. Skipped on Spark 3.x, which has no collations.
 */
@DisabledIf(value = "sparkHasNoCollations", disabledReason = "Spark 3.x has no collations")
class CollationTest extends WithBothRegistrations {
  CollationTest() {
    super(2);
  }

  static boolean sparkHasNoCollations() {
    return org.apache.spark.package$.MODULE$.SPARK_VERSION().startsWith("3.");
  }

  private static void assertRefused(SparkSession spark, String sql, String function,
      String parameter, String type) {
    AnalysisException e = assertThrows(AnalysisException.class, () -> spark.sql(sql).collect());
    for (String part : List.of("UNEXPECTED_INPUT_TYPE", function + "(", parameter + " parameter",
        "UTF8_BINARY collation", "has the type \"" + type + "\"")) {
      assertTrue(e.getMessage().contains(part), () -> "no <" + part + "> in " + e.getMessage());
    }
  }

  @Test
  void stringArgumentsOfAnotherCollationFailAnalysis() {
    for (SparkSession spark : List.of(extension, registered)) {
      // the false negative this prevents: 'A' = 'a' under UTF8_LCASE, absent from a bytes filter
      assertRefused(spark, "SELECT sparkbloom_might_contain(sparkbloom_build_string(s, 10, 0.01), 'A')"
          + " FROM (SELECT 'a' COLLATE UTF8_LCASE AS s)", "sparkbloom_build_string", "first",
          "STRING COLLATE UTF8_LCASE");
      assertRefused(spark, "SELECT sparkbloom_might_contain(CAST(NULL AS BINARY), 'A' COLLATE UTF8_LCASE)",
          "sparkbloom_might_contain", "second", "STRING COLLATE UTF8_LCASE");
      assertRefused(spark, "SELECT sparkbloom_retain_absent_string(CAST(NULL AS BINARY),"
          + " array('A' COLLATE UNICODE))", "sparkbloom_retain_absent_string", "second",
          "ARRAY<STRING COLLATE UNICODE>");
      assertRefused(spark, "SELECT sparkbloom_build_array(array('a' COLLATE UTF8_LCASE), 0.01)",
          "sparkbloom_build_array", "first", "ARRAY<STRING COLLATE UTF8_LCASE>");
      assertRefused(spark, "SELECT sparkbloom_build_array(array('a' COLLATE UTF8_LCASE), 10, 0.01)",
          "sparkbloom_build_array", "first", "ARRAY<STRING COLLATE UTF8_LCASE>");
    }
  }

  @Test
  void dataFrameHelpersRefuseThemToo() {
    Dataset<Row> rows = extension.sql("SELECT sparkbloom_build_string('a', 10, 0.01) AS f,"
        + " 'A' COLLATE UTF8_LCASE AS s, array('A' COLLATE UTF8_LCASE) AS a");
    for (org.apache.spark.sql.Column call : List.of(
        BloomFunctions.mightContain(col("f"), col("s")),
        BloomFunctions.retainAbsentStrings(col("f"), col("a")),
        BloomFunctions.buildArray(col("a"), 0.01))) {
      AnalysisException e = assertThrows(AnalysisException.class, () -> rows.select(call).collect());
      assertTrue(e.getMessage().contains("UNEXPECTED_INPUT_TYPE")
          && e.getMessage().contains("COLLATE UTF8_LCASE"), e.getMessage());
    }
  }

  @Test
  void theDefaultCollationAndCharTypesAreAccepted() {
    for (SparkSession spark : List.of(extension, registered)) {
      Row r = spark.sql("SELECT sparkbloom_might_contain(sparkbloom_build_string(s, 10, 0.01), 'a')"
          + " FROM (SELECT 'a' COLLATE UTF8_BINARY AS s)").first();
      assertTrue(r.getBoolean(0));
      r = spark.sql("SELECT sparkbloom_retain_absent_string(sparkbloom_build_array(array(s), 0.01),"
          + " array('a' COLLATE UTF8_BINARY, 'A')) FROM (SELECT 'a' COLLATE UTF8_BINARY AS s)").first();
      assertTrue(r.getList(0).equals(List.of("A")), r.toString());
    }
    // CHAR(n) and VARCHAR(n) kept as such (they are UTF8_BINARY strings)
    extension.conf().set("spark.sql.preserveCharVarcharTypeInfo", "true");
    try {
      Row r = extension.sql("SELECT sparkbloom_might_contain(sparkbloom_build_string(v, 10, 0.01), 'a'),"
          + " sparkbloom_might_contain(sparkbloom_build_string(c, 10, 0.01), 'a  ')"
          + " FROM (SELECT CAST('a' AS VARCHAR(5)) AS v, CAST('a' AS CHAR(3)) AS c)").first();
      assertTrue(r.getBoolean(0) && r.getBoolean(1), r.toString());
    } finally {
      extension.conf().unset("spark.sql.preserveCharVarcharTypeInfo");
    }
  }
}
