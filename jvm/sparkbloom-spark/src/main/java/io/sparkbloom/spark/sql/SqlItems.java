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

  /** Java types as Spark hands them to a Java UDF, then the SQL type's name. */
  private static final Object[] SQL_TYPES = {
    Long.class, "bigint", Integer.class, "int", Short.class, "smallint", Byte.class, "tinyint",
    String.class, "string", Double.class, "double", Float.class, "float", BigDecimal.class,
    "decimal", Boolean.class, "boolean", byte[].class, "binary", java.sql.Date.class, "date",
    java.time.LocalDate.class, "date", java.sql.Timestamp.class, "timestamp",
    java.time.Instant.class, "timestamp", scala.collection.Seq.class, "array",
    scala.collection.Map.class, "map", org.apache.spark.sql.Row.class, "struct",
  };

  /** The SQL type name of a value as Spark hands it to a Java UDF (best effort, for messages). */
  static String sqlType(Object value) {
    for (int i = 0; i < SQL_TYPES.length; i += 2) {
      if (((Class<?>) SQL_TYPES[i]).isInstance(value)) {
        return (String) SQL_TYPES[i + 1];
      }
    }
    return value.getClass().getName();
  }
}
