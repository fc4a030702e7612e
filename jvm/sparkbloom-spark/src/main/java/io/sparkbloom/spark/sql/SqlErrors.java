package io.sparkbloom.spark.sql;

import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * The analysis errors of the sparkbloom SQL functions, under Spark's own error conditions (so
 * they carry Spark's SQLSTATE and read like a built-in function's): {@code
 * WRONG_NUM_ARGS.WITHOUT_SUGGESTION} and {@code DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE}, both
 * defined with the same parameters in Spark 3.5 and 4.x.
 */
final class SqlErrors {
  private SqlErrors() {}

  private static final String DOC_ROOT = "https://spark.apache.org/docs/latest";
  private static final String[] ORDINALS = {"first", "second", "third", "fourth", "fifth"};

  static AnalysisException wrongArity(String function, int expected, int actual) {
    return wrongArity(function, Integer.toString(expected), actual);
  }

  /** @param expected the accepted counts, e.g. "[2, 3]" */
  static AnalysisException wrongArity(String function, String expected, int actual) {
    return new AnalysisException("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", parameters(
        "functionName", "`" + function + "`",
        "expectedNum", expected,
        "actualNum", Integer.toString(actual),
        "docroot", DOC_ROOT));
  }

  /** Argument {@code index} (0-based) of {@code function} is {@code argument}, of a type not accepted. */
  static AnalysisException wrongType(String function, Iterable<Expression> arguments, int index,
      Expression argument, ArgumentType required) {
    StringBuilder call = new StringBuilder(function).append('(');
    String sep = "";
    for (Expression e : arguments) {
      call.append(sep).append(e.sql());
      sep = ", ";
    }
    call.append(')');
    return new AnalysisException("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", parameters(
        "sqlExpr", "\"" + call + "\"",
        "paramIndex", index < ORDINALS.length ? ORDINALS[index] : Integer.toString(index + 1),
        "requiredType", required.required(),
        "inputSql", "\"" + argument.sql() + "\"",
        "inputType", "\"" + argument.dataType().sql() + "\""));
  }

  @SuppressWarnings("unchecked")
  private static scala.collection.immutable.Map<String, String> parameters(String... keyValues) {
    scala.collection.immutable.Map<String, String> map = scala.collection.immutable.Map$.MODULE$.empty();
    for (int i = 0; i + 1 < keyValues.length; i += 2) {
      map = map.updated(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }
}
