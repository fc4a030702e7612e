package io.sparkbloom.spark.sql;

import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.analysis.SimpleFunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.Decimal;
import scala.Function1;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;

/**
 * One sparkbloom SQL function, as {@link SparkBloomSql} declares it: its name, its description
 * ({@code DESCRIBE FUNCTION}), the types of its arguments, and what it builds from a call that
 * passes their checks (a typed Catalyst expression, or for the two functions over whole filters
 * a UDF's expression). The session extension injects it ({@link #injection}) and {@code
 * BloomFunctions.register} registers it as a temporary function ({@link #register}), both with the
 * same builder ({@link #build}), so a query sees the same function, checks and errors either way.
 */
public final class SqlFunction {
  private final String name;
  private final String usage;
  private final Class<?> implementation;
  /** The argument types of each accepted argument count, fewest arguments first. */
  private final List<List<ArgumentType>> signatures;
  /** Appended to the accepted types of a refused item argument, e.g. the other item kind's function. */
  private final String hint;
  /** The expression of a call whose arguments passed the checks. */
  private final Function<List<Expression>, Expression> expression;

  SqlFunction(String name, String usage, Class<?> implementation, String hint,
      Function<List<Expression>, Expression> expression, List<List<ArgumentType>> signatures) {
    this.name = name;
    this.usage = usage;
    this.implementation = implementation;
    this.hint = hint;
    this.expression = expression;
    this.signatures = List.copyOf(signatures);
  }

  SqlFunction(String name, String usage, Class<?> implementation, String hint,
      Function<List<Expression>, Expression> expression, ArgumentType... arguments) {
    this(name, usage, implementation, hint, expression, List.of(List.of(arguments)));
  }

  /** The expression of {@code udf} over a call's arguments: an aggregate's function unwrapped. */
  static Function<List<Expression>, Expression> udf(Supplier<UserDefinedFunction> udf) {
    return args -> {
      Column[] columns = new Column[args.size()];
      for (int i = 0; i < columns.length; i++) {
        columns[i] = ColumnExpressions.column(args.get(i));
      }
      Expression call = ColumnExpressions.expression(udf.get().apply(columns));
      return call instanceof AggregateExpression ? ((AggregateExpression) call).aggregateFunction() : call;
    };
  }

  public String name() {
    return name;
  }

  /** The {@code DESCRIBE FUNCTION} text, {@code _FUNC_} standing for the name. */
  public String usage() {
    return usage;
  }

  /**
   * The expression of {@code name(arguments...)} (an aggregate function is wrapped by Spark's
   * analyzer, honouring {@code DISTINCT} and {@code FILTER}).
   *
   * @throws AnalysisException {@code WRONG_NUM_ARGS} if the count differs, {@code
   *     DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE} naming the argument and the accepted types if a
   *     resolved argument has another type, {@code DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT}
   *     naming the call and the argument if a constant sizing argument (n, p) is null or refused
   *     by the rules the filter is made by ({@link SqlSizing}), so that a p outside (0, 1) or an n
   *     too large for the process fails on the driver
   */
  public Expression build(List<Expression> args) throws AnalysisException {
    List<ArgumentType> arguments = null;
    for (List<ArgumentType> signature : signatures) {
      if (signature.size() == args.size()) {
        arguments = signature;
      }
    }
    if (arguments == null) {
      throw SqlErrors.wrongArity(name, expectedCounts(), args.size());
    }
    for (int i = 0; i < args.size(); i++) {
      Expression arg = args.get(i);
      ArgumentType type = arguments.get(i);
      if (arg.resolved() && !type.accepts(arg.dataType())) {
        throw SqlErrors.wrongType(name, args, i, arg, type.required() + (type.isItems() ? hint : ""));
      }
    }
    int p = arguments.indexOf(ArgumentType.NUMERIC);
    if (p >= 0) {
      String items = arguments.get(0) == ArgumentType.ITEM_ARRAY ? "items" : "item";
      int n = arguments.indexOf(ArgumentType.SIZE);
      checkConstantSizing(name + "(" + items + (n >= 0 ? ", n" : "") + ", p)", args, n, p);
    }
    return expression.apply(args);
  }

  /**
   * Checks the sizing arguments that are constants: n and p (a fixed sizing: its filter must be
   * one this process can allocate), or p alone ({@code n} -1). A constant SQL NULL is refused
   * too; arguments that are not constants are checked row by row, with the same messages.
   *
   * @param call the call as the messages name it, e.g. "sparkbloom_build(item, n, p)"
   */
  private void checkConstantSizing(String call, List<Expression> args, int n, int p)
      throws AnalysisException {
    boolean constantN = n >= 0 && isConstant(args.get(n));
    boolean constantP = isConstant(args.get(p));
    try {
      Object nValue = constantN ? args.get(n).eval(null) : null;
      Object pValue = constantP ? args.get(p).eval(null) : null;
      if ((constantN && nValue == null) || (constantP && pValue == null)) {
        throw SqlSizing.isNull(call);
      }
      // a value that is not a constant (or not a number, which the type checks refuse) is
      // checked row by row
      if (isNumber(pValue)) {
        SqlSizing.checkP(call, SqlSizing.toDouble(pValue));
        if (isNumber(nValue)) {
          SqlSizing.fixed(call, SqlSizing.toLong(nValue), SqlSizing.toDouble(pValue));
        }
      }
    } catch (IllegalArgumentException e) {
      throw SqlErrors.invalidArgument(name, args, e);
    }
  }

  private static boolean isConstant(Expression e) {
    return e.resolved() && e.foldable();
  }

  private static boolean isNumber(Object v) {
    return v instanceof Number || v instanceof Decimal;
  }

  /** The accepted argument count, as Spark's errors name it: "3", or "[2, 3]". */
  private String expectedCounts() {
    return signatures.size() == 1 ? Integer.toString(signatures.get(0).size())
        : signatures.stream().map(s -> Integer.toString(s.size())).collect(Collectors.joining(", ", "[", "]"));
  }

  /** The {@code DESCRIBE FUNCTION} entry. */
  private ExpressionInfo info() {
    return new ExpressionInfo(implementation.getName(), null, name, usage, "");
  }

  /**
   * The {@code (identifier, description, builder)} triple {@code
   * SparkSessionExtensions.injectFunction} takes. Raw: the builder's parameter is a {@code
   * scala.collection.Seq} on Scala 2.12 and a {@code scala.collection.immutable.Seq} on 2.13;
   * the builder takes either.
   */
  @SuppressWarnings("rawtypes")
  public Tuple3 injection() {
    return new Tuple3<>(new FunctionIdentifier(name), info(), new Builder(this));
  }

  /**
   * Registers this function as a temporary function of {@code spark}'s session, under the
   * identifier this Spark gives temporary functions ({@link #TEMPORARY}). A function that an
   * earlier registration of sparkbloom's put there is dropped first, so that registering again
   * is as quiet as the first time; anything else under the name (the user's own function) Spark
   * replaces, warning as it does.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public void register(SparkSession spark) {
    FunctionRegistry registry = spark.sessionState().functionRegistry();
    FunctionIdentifier id = new FunctionIdentifier(name, TEMPORARY.database(), TEMPORARY.catalog());
    scala.Option<?> earlier = registry.lookupFunctionBuilder(id);
    if (earlier.isDefined() && earlier.get() instanceof Builder) {
      registry.dropFunction(id);
    }
    registry.registerFunction(id, info(), (Function1) new Builder(this));
  }

  /**
   * The identifier of a temporary function named "f" on this Spark, as {@code spark.udf().register}
   * makes it, read off a registry of its own: Spark 3.5 and 4.1 keep temporary functions under
   * the bare name, later versions under {@code system.session.name} (and look them up there).
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final FunctionIdentifier TEMPORARY;

  static {
    FunctionRegistry scratch = new SimpleFunctionRegistry();
    scratch.createOrReplaceTempFunction("f", (Function1) new Builder(null), "java_udf");
    TEMPORARY = scratch.listFunction().head();
  }

  /** {@code Seq<Expression> => Expression}, Spark's {@code FunctionBuilder}, from Java. */
  static final class Builder extends AbstractFunction1<scala.collection.Seq<Expression>, Expression> {
    private final SqlFunction function;

    Builder(SqlFunction function) {
      this.function = function;
    }

    @Override
    public Expression apply(scala.collection.Seq<Expression> children) {
      try {
        return function.build(List.of(CatalystTrees.toArray(children)));
      } catch (AnalysisException e) {
        throw SqlErrors.rethrow(e);
      }
    }
  }
}
