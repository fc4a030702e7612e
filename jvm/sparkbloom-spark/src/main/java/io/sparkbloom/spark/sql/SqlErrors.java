package io.sparkbloom.spark.sql;

import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * The analysis errors of the sparkbloom SQL functions, under Spark's own error conditions (so
 * they carry Spark's SQLSTATE and read like a built-in function's): {@code
 * WRONG_NUM_ARGS.WITHOUT_SUGGESTION}, {@code DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE} and {@code
 * DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT}, all defined with the same parameters in Spark
 * 3.5 and 4.x.
 */
final class SqlErrors {
  private SqlErrors() {}

  private static final String DOC_ROOT = "https://spark.apache.org/docs/latest";
  private static final String[] ORDINALS = {"first", "second", "third", "fourth", "fifth"};

  /** @param expected the accepted counts, e.g. "[2, 3]" */
  static AnalysisException wrongArity(String function, String expected, int actual) {
    return new AnalysisException("WRONG_NUM_ARGS.WITHOUT_SUGGESTION", parameters(
        "functionName", "`" + function + "`",
        "expectedNum", expected,
        "actualNum", Integer.toString(actual),
        "docroot", DOC_ROOT));
  }

  /**
   * Argument {@code index} (0-based) of {@code function} is {@code argument}, of a type not
   * accepted: {@code required} names those accepted.
   */
  static AnalysisException wrongType(String function, Iterable<Expression> arguments, int index,
      Expression argument, String required) {
    return new AnalysisException("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
        inputType(index, argument, required).updated("sqlExpr", call(function, arguments)));
  }

  /**
   * {@code DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE}'s parameters but {@code sqlExpr} (which Spark
   * adds to an expression's own type check failure): argument {@code index} (0-based) is {@code
   * argument}, whose type is not {@code required} (as the message names it: {@code "\"BINARY\""}).
   */
  static scala.collection.immutable.Map<String, String> inputType(int index, Expression argument,
      String required) {
    return parameters(
        "paramIndex", index < ORDINALS.length ? ORDINALS[index] : Integer.toString(index + 1),
        "requiredType", required,
        "inputSql", "\"" + argument.sql() + "\"",
        "inputType", "\"" + argument.dataType().sql() + "\"");
  }

  /**
   * A constant argument of {@code function} that {@code refused} refuses, under Spark's {@code
   * DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT}: the message is {@code refused}'s (it names
   * the call and the argument), which is kept as the cause.
   */
  static AnalysisException invalidArgument(String function, Iterable<Expression> arguments,
      IllegalArgumentException refused) {
    return new AnalysisException("DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT", parameters(
        "sqlExpr", call(function, arguments),
        "msg", refused.getMessage(),
        "hint", ""), scala.Option.apply(refused));
  }

  /** The call as Spark's messages quote it: {@code "name(arg1, arg2)"}, the arguments' SQL. */
  private static String call(String function, Iterable<Expression> arguments) {
    StringBuilder call = new StringBuilder("\"").append(function).append('(');
    String sep = "";
    for (Expression e : arguments) {
      call.append(sep).append(e.sql());
      sep = ", ";
    }
    return call.append(")\"").toString();
  }

  /**
   * Throws {@code e} as is from code that may not declare it (a Scala function's body): Scala has
   * no checked exceptions, and Spark's analyzer reports an AnalysisException from a function
   * builder to the user as it does its own.
   */
  @SuppressWarnings("unchecked")
  static <T extends Throwable> RuntimeException rethrow(Throwable e) throws T {
    throw (T) e;
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
