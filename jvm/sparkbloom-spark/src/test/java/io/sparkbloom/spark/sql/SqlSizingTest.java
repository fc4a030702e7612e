package io.sparkbloom.spark.sql;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.SparkException;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;

/**
 * The sizing arguments (n, p) of the build functions, with the extension ("extension") and after
 * {@code BloomFunctions.register} ("register"): constant ones are checked when the query is
 * analyzed, before any job and whatever the input (an empty one too), and values computed per row
 * fail their job; either way the error starts with the SQL call and names the argument.
 */
class SqlSizingTest extends WithBothRegistrations {
  SqlSizingTest() {
    super(2);
  }

  /** {@code sql} fails when it is analyzed ({@code spark.sql} itself throws, no job runs). */
  private static void assertAnalysisError(SparkSession spark, String sql, String message) {
    AnalysisException e = assertThrows(AnalysisException.class, () -> spark.sql(sql));
    assertTrue(e.getMessage().contains("DATATYPE_MISMATCH") && e.getMessage().contains(message),
        () -> "no <" + message + "> in " + e.getMessage());
    assertNotNull(cause(e, IllegalArgumentException.class), "the check's exception as the cause");
  }

  @EachRegistration
  void constantSizingIsCheckedAtAnalysis(String which) {
    SparkSession spark = session(which);
    assertAnalysisError(spark, "SELECT sparkbloom_build(id, -5, 0.01) FROM range(0)",
        "sparkbloom_build(item, n, p): n = -5 at p = 0.01 is refused");
    assertAnalysisError(spark, "SELECT sparkbloom_build(id, 10, 0) FROM range(3)",
        "sparkbloom_build(item, n, p): p must be in (0, 1), got 0.0");
    assertAnalysisError(spark, "SELECT sparkbloom_build(id, NULL, 0.01) FROM range(3)",
        "sparkbloom_build(item, n, p): n and p must not be null");
    assertAnalysisError(spark, "SELECT sparkbloom_build(id, 100000000000, 0.01) FROM range(0)",
        "sparkbloom_build(item, n, p): n = 100000000000 at p = 0.01 is refused");
    assertAnalysisError(spark, "SELECT sparkbloom_build_string(CAST(id AS STRING), 10, 1.5)"
        + " FROM range(3)", "sparkbloom_build_string(item, n, p): p must be in (0, 1), got 1.5");
    assertAnalysisError(spark, "SELECT sparkbloom_build_per_key(id, 7) FROM range(0)",
        "sparkbloom_build_per_key(item, p): p must be in (0, 1), got 7.0");
    assertAnalysisError(spark, "SELECT sparkbloom_build_per_key(id, CAST(NULL AS DOUBLE)) FROM range(0)",
        "sparkbloom_build_per_key(item, p): p must not be null");
    // p constant, n per row: p is checked all the same
    assertAnalysisError(spark, "SELECT sparkbloom_build(id, id + 10, 0) FROM range(3)",
        "sparkbloom_build(item, n, p): p must be in (0, 1), got 0.0");
    assertAnalysisError(spark, "SELECT sparkbloom_build_array(array(1), 0)",
        "sparkbloom_build_array(items, p): p must be in (0, 1), got 0.0");
    assertAnalysisError(spark, "SELECT sparkbloom_build_array(array('a'), -1, 0.5)",
        "sparkbloom_build_array(items, n, p): n = -1 at p = 0.5 is refused");
  }

  /** The message of {@code sql}'s failed job, which must be an IllegalArgumentException's. */
  private static String jobError(SparkSession spark, String sql) {
    SparkException e = assertThrows(SparkException.class, () -> spark.sql(sql).collect());
    IllegalArgumentException iae = cause(e, IllegalArgumentException.class);
    assertNotNull(iae, e::toString);
    return iae.getMessage();
  }

  private static void assertStartsWith(String prefix, String message) {
    assertTrue(message.startsWith(prefix), () -> "not <" + prefix + "...>: " + message);
  }

  @EachRegistration
  void sizingFromRowsFailsItsJobNamingTheCallAndTheArgument(String which) {
    SparkSession spark = session(which);
    assertStartsWith("sparkbloom_build(item, n, p): p must be in (0, 1), got 0.0", jobError(spark,
        "SELECT sparkbloom_build(id, 10, IF(id < 0, 0.5, 0)) FROM range(3)"));
    assertStartsWith("sparkbloom_build(item, n, p): n = -3 at p = 0.01 is refused", jobError(spark,
        "SELECT sparkbloom_build(id, id - 3, 0.01) FROM range(1)"));
    assertStartsWith("sparkbloom_build_per_key(item, p): p must be in (0, 1), got 0.0", jobError(
        spark, "SELECT sparkbloom_build_per_key(id, IF(id < 0, 0.5, 0)) FROM range(3)"));
    assertStartsWith("sparkbloom_build_array(items, p): p must be in (0, 1), got 0.0", jobError(
        spark, "SELECT sparkbloom_build_array(array(id), IF(id < 0, 0.5, 0)) FROM range(3)"));
    assertStartsWith("sparkbloom_build_array(items, n, p): n = -1 at p = 0.01 is refused", jobError(
        spark, "SELECT sparkbloom_build_array(array(id), id - 1, 0.01) FROM range(1)"));
    // rows of one group with different n or p in different partitions: each partition's buffer
    // is consistent, the merge of the two (in either order) is where they meet
    assertStartsWith("sparkbloom_build(item, n, p): n and p must be the same for every row of a"
        + " group: got (n=", jobError(spark,
        "SELECT sparkbloom_build(id, IF(id < 50, 100, 200), 0.01) FROM range(0, 100, 1, 2)"));
    assertStartsWith("sparkbloom_build_string(item, n, p): n and p must be the same for every row"
        + " of a group", jobError(spark, "SELECT sparkbloom_build_string(CAST(id AS STRING), 100,"
        + " IF(id < 50, 0.01, 0.02)) FROM range(0, 100, 1, 2)"));
    assertStartsWith("sparkbloom_build_per_key(item, p): p must be the same for every row of a"
        + " group: got (p=0.0", jobError(spark,
        "SELECT sparkbloom_build_per_key(id, IF(id < 50, 0.01, 0.02)) FROM range(0, 100, 1, 2)"));
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
