package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.CharType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.VarcharType;

/**
 * String items must have Spark's default collation, UTF8_BINARY. A filter hashes a string's
 * UTF-8 bytes, so it answers by byte equality; a string under another collation (Spark 4's
 * {@code 'a' COLLATE UTF8_LCASE}) is equal to strings with other bytes ({@code 'A'}), for which
 * the filter would answer "definitely not seen": a false negative. The functions refuse such
 * arguments when the query is analyzed, from SQL and from the DataFrame helpers alike, through
 * their expressions' {@code checkInputDataTypes}.
 *
 * <p>Spark 4's {@code StringType} equals {@link DataTypes#StringType} only with the default
 * collation (and no length constraint: {@code CHAR(n)} and {@code VARCHAR(n)} types, which are
 * always UTF8_BINARY there, are accepted as such). Spark 3.5 has no collations: its one string
 * type is {@link DataTypes#StringType}.
 */
final class Collations {
  private Collations() {}

  /** Whether {@code type} is a string type whose strings compare other than by their bytes. */
  static boolean notBinary(DataType type) {
    return type instanceof StringType && !DataTypes.StringType.equals(type)
        && !(type instanceof CharType) && !(type instanceof VarcharType);
  }

  /** Whether {@code type} is such a string type, or an array of them. */
  static boolean holdsNotBinary(DataType type) {
    return notBinary(type)
        || type instanceof ArrayType && notBinary(((ArrayType) type).elementType());
  }

  /**
   * Success unless one of {@code arguments} is a string or an array of strings of another
   * collation; then {@code DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE} naming that argument (its
   * position, its SQL and its type, which names the collation).
   */
  static TypeCheckResult check(scala.collection.Seq<Expression> arguments) {
    for (int i = 0; i < arguments.length(); i++) {
      Expression argument = arguments.apply(i);
      if (argument.resolved() && holdsNotBinary(argument.dataType())) {
        String required = argument.dataType() instanceof ArrayType ? "\"ARRAY<STRING>\"" : "\"STRING\"";
        return new TypeCheckResult.DataTypeMismatch("UNEXPECTED_INPUT_TYPE",
            SqlErrors.inputType(i, argument, required
                + " (UTF8_BINARY collation: a filter matches strings by their bytes)"));
      }
    }
    return TypeCheckResult.TypeCheckSuccess$.MODULE$;
  }
}
