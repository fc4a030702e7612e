package io.sparkbloom.spark.sql;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;

/**
 * The SQL types one argument of a sparkbloom function accepts, checked when a query is analysed.
 * Every kind also accepts an untyped {@code NULL} literal, which the functions treat as a null
 * value. Integer items are hashed as the {@code long} of the value, so {@code tinyint}, {@code
 * smallint}, {@code int} and {@code bigint} all query the same filter.
 */
enum ArgumentType {
  /** An integer item: tinyint, smallint, int or bigint. */
  INTEGRAL("\"INT\" or \"BIGINT\" (or \"TINYINT\", \"SMALLINT\")"),
  /**
   * The sizing argument n, the expected insertions: an integer type, as {@link #INTEGRAL}. A
   * constant n is checked with p when the call is built ({@link SqlFunction#build}).
   */
  SIZE(INTEGRAL.required),
  /**
   * The sizing argument p, the false-positive probability: any numeric type (double, float,
   * decimal or integer literals). A constant p is checked when the call is built.
   */
  NUMERIC("\"NUMERIC\" (\"DOUBLE\", \"DECIMAL\", ...)"),
  /** A string item. */
  STRING("\"STRING\""),
  /** An integer or string item. */
  INTEGRAL_OR_STRING("\"INT\", \"BIGINT\" or \"STRING\""),
  /** Filter bytes (FORMAT.md). */
  BINARY("\"BINARY\""),
  /** Integer candidates. */
  INTEGRAL_ARRAY("\"ARRAY<BIGINT>\" or \"ARRAY<INT>\""),
  /** String candidates. */
  STRING_ARRAY("\"ARRAY<STRING>\""),
  /** Integer or string items. */
  ITEM_ARRAY("\"ARRAY<BIGINT>\", \"ARRAY<INT>\" or \"ARRAY<STRING>\"");

  private final String required;

  ArgumentType(String required) {
    this.required = required;
  }

  /** The accepted types as an error message names them. */
  String required() {
    return required;
  }

  /** Whether this is an argument of items (or candidates), not a filter or a sizing argument. */
  boolean isItems() {
    return this != SIZE && this != NUMERIC && this != BINARY;
  }

  boolean accepts(DataType type) {
    if (type instanceof NullType) {
      return true;
    }
    switch (this) {
      case INTEGRAL:
      case SIZE:
        return integral(type);
      case NUMERIC:
        return type instanceof NumericType;
      case STRING:
        return type instanceof StringType;
      case INTEGRAL_OR_STRING:
        return integral(type) || type instanceof StringType;
      case BINARY:
        return type instanceof BinaryType;
      case INTEGRAL_ARRAY:
        return type instanceof ArrayType && (integral(elements(type)) || elements(type) instanceof NullType);
      case STRING_ARRAY:
        return type instanceof ArrayType
            && (elements(type) instanceof StringType || elements(type) instanceof NullType);
      case ITEM_ARRAY:
        return INTEGRAL_ARRAY.accepts(type) || STRING_ARRAY.accepts(type);
      default:
        throw new AssertionError(this);
    }
  }

  private static boolean integral(DataType type) {
    return type instanceof LongType || type instanceof IntegerType || type instanceof ShortType
        || type instanceof ByteType;
  }

  private static DataType elements(DataType arrayType) {
    return ((ArrayType) arrayType).elementType();
  }
}
