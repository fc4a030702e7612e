package io.sparkbloom.spark.sql;

import java.math.BigDecimal;

/**
 * The item values that the untyped SQL functions receive, and the errors for the others. Spark
 * hands an untyped Java UDF each argument as the Java type of the column's SQL type ({@code int}
 * → {@link Integer}, {@code bigint} → {@link Long}, {@code string} → {@link String}), not as the
 * UDF's declared type, so a {@code UDF2<byte[], Long, ...>} fails with a {@code
 * ClassCastException} on an {@code int} column. These helpers take {@code Object} and decide.
 */
public final class SqlItems {
  private SqlItems() {}

  /**
   * An integral item as the long it is hashed as ({@code int} and {@code bigint} items of equal
   * value hash alike, so a filter built from one answers for the other).
   *
   * @throws IllegalArgumentException naming the SQL type of {@code value} if it is not an integer
   */
  public static long integral(Object value, String function, String argument) {
    if (isIntegral(value)) {
      return ((Number) value).longValue();
    }
    throw unsupported(value, function, argument, "int or bigint");
  }

  /** Whether {@code value} is a {@code tinyint}, {@code smallint}, {@code int} or {@code bigint}. */
  public static boolean isIntegral(Object value) {
    return value instanceof Long || value instanceof Integer || value instanceof Short
        || value instanceof Byte;
  }

  /** The error for an item whose type the function does not take. */
  public static IllegalArgumentException unsupported(
      Object value, String function, String argument, String expected) {
    return new IllegalArgumentException(function + ": " + argument + " of SQL type "
        + sqlType(value) + " is not supported; expected " + expected);
  }

  /** The SQL type name of a value as Spark hands it to a Java UDF (best effort, for messages). */
  static String sqlType(Object value) {
    if (value instanceof Long) {
      return "bigint";
    } else if (value instanceof Integer) {
      return "int";
    } else if (value instanceof Short) {
      return "smallint";
    } else if (value instanceof Byte) {
      return "tinyint";
    } else if (value instanceof String) {
      return "string";
    } else if (value instanceof Double) {
      return "double";
    } else if (value instanceof Float) {
      return "float";
    } else if (value instanceof BigDecimal) {
      return "decimal";
    } else if (value instanceof Boolean) {
      return "boolean";
    } else if (value instanceof byte[]) {
      return "binary";
    } else if (value instanceof java.sql.Date || value instanceof java.time.LocalDate) {
      return "date";
    } else if (value instanceof java.sql.Timestamp || value instanceof java.time.Instant) {
      return "timestamp";
    } else if (value instanceof scala.collection.Seq) {
      return "array";
    } else if (value instanceof scala.collection.Map) {
      return "map";
    } else if (value instanceof org.apache.spark.sql.Row) {
      return "struct";
    }
    return value.getClass().getName();
  }
}
