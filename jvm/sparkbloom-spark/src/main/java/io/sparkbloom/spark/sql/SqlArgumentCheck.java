package io.sparkbloom.spark.sql;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import scala.Function1;
import scala.runtime.AbstractFunction1;

/**
 * Checks the SQL functions' arguments when a query is analyzed, before any job. A typed
 * aggregate's inputs are cast implicitly to its declared types, so without this check {@code
 * sparkbloom_build} over a {@code double} column would hash the values cast to {@code bigint}
 * (1.5 and 1.9 alike) and over a {@code string} column the strings' numeric values. Each function
 * is registered as Spark registers a UDF, then its builder is wrapped with a check of the
 * resolved argument types: an item of a type the function does not hash exactly fails with an
 * {@link IllegalArgumentException} naming the function and the SQL type. The sizing arguments (n,
 * p) are checked as the session extension checks them ({@link SqlFunction#build}): of a numeric
 * type, and when constant, by the rules the filter is made by ({@link #checkConstantSizing}), so a
 * p outside (0, 1) or an n too large for the process fails on the driver, with an {@link
 * AnalysisException} naming the call and the argument.
 */
public final class SqlArgumentCheck {
  private SqlArgumentCheck() {}

  /** The item types a function hashes exactly. */
  public enum Items {
    /** {@code tinyint}, {@code smallint}, {@code int}, {@code bigint}: hashed as the long value. */
    INTEGRAL("int or bigint"),
    /** {@code string}: hashed as its UTF-8 bytes. */
    STRING("string"),
    /** Either of the above. */
    INTEGRAL_OR_STRING("int, bigint or string");

    final String expected;

    Items(String expected) {
      this.expected = expected;
    }

    boolean accepts(DataType t) {
      boolean integral = t instanceof LongType || t instanceof IntegerType || t instanceof ShortType
          || t instanceof ByteType;
      switch (this) {
        case INTEGRAL:
          return integral;
        case STRING:
          return t instanceof StringType;
        default:
          return integral || t instanceof StringType;
      }
    }
  }

  /** How a function's arguments are checked. */
  public static final class Rule {
    final int itemArgument;
    final boolean itemIsArray;
    final Items items;
    /**
     * The positions of n and p: both for a fixed sizing, p alone (n at -1) for per-key sizing,
     * both -1 for a function without sizing arguments.
     */
    final int sizeArgument;
    final int fppArgument;
    /** Appended to the error, e.g. which function takes the other item type. */
    final String hint;

    public Rule(int itemArgument, boolean itemIsArray, Items items, int sizeArgument, int fppArgument, String hint) {
      this.hint = hint;
      this.itemArgument = itemArgument;
      this.itemIsArray = itemIsArray;
      this.items = items;
      this.sizeArgument = sizeArgument;
      this.fppArgument = fppArgument;
    }
  }

  /**
   * Registers {@code udf} as {@code name} in {@code spark}'s session, its arguments checked by
   * {@code rule}: the builder is replaced under the identifier Spark registered the UDF with.
   */
  public static void register(SparkSession spark, String name, UserDefinedFunction udf, Rule rule) {
    register(spark, name, udf, rule, -1, null);
  }

  /**
   * As {@link #register(SparkSession, String, UserDefinedFunction, Rule)}, but a call with {@code
   * arity} arguments that passes the checks is built by {@code typed}, the function's typed
   * Catalyst expression (the one the session extension injects), instead of by the UDF; a call
   * with another count goes to the UDF's builder, which reports it as Spark reports any UDF's.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void register(SparkSession spark, String name, UserDefinedFunction udf, Rule rule,
      int arity, Function<List<Expression>, Expression> typed) {
    FunctionRegistry registry = spark.sessionState().functionRegistry();
    FunctionIdentifier registered = registeredAs(spark, name, udf);
    ExpressionInfo info = registry.lookupFunction(registered).get();
    // Scala 2.12 and 2.13 builds differ in the Seq type of the builder: handled as raw types
    Function1 builder = (Function1) registry.lookupFunctionBuilder(registered).get();
    replace(registry, registered, info, new CheckedBuilder(name, rule, arity, typed, builder));
  }

  /**
   * Registers {@code function}, one that has only a typed expression, in {@code spark}'s session
   * with the builder and description the session extension injects, so its calls are checked and
   * built alike either way. A placeholder UDF is registered first under the name, only to learn
   * the identifier this Spark keeps temporary functions under; the function replaces it at once.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static void register(SparkSession spark, SqlFunction function) {
    UserDefinedFunction placeholder = org.apache.spark.sql.functions.udf(
        (org.apache.spark.sql.api.java.UDF0<Object>) () -> null, DataTypes.NullType);
    FunctionIdentifier registered = registeredAs(spark, function.name(), placeholder);
    replace(spark.sessionState().functionRegistry(), registered, function.info(),
        (Function1) new SqlFunction.Builder(function));
  }

  /**
   * Puts {@code builder} under {@code id} in place of the UDF just registered there, dropping that
   * first: the registry logs "replaced a previously registered function" whenever a registration
   * finds another function under its identifier.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void replace(FunctionRegistry registry, FunctionIdentifier id, ExpressionInfo info,
      Function1 builder) {
    registry.dropFunction(id);
    registry.registerFunction(id, info, builder);
  }

  /**
   * Registers {@code udf} as {@code name} and returns the identifier Spark registered it under,
   * found by listing: Spark 3.5 keeps temporary functions under their bare name, Spark 4.3 under
   * a qualified one ({@code system.session.name}), and its registry refuses a bare name. A
   * function an earlier registration of sparkbloom's (or the session extension) put under the
   * name is dropped first, so that registering again is as quiet as the first time; anything else
   * of that name (a built-in, the user's own function) Spark replaces, warning as it does.
   */
  private static FunctionIdentifier registeredAs(SparkSession spark, String name, UserDefinedFunction udf) {
    FunctionRegistry registry = spark.sessionState().functionRegistry();
    FunctionIdentifier earlier = find(registry, name);
    if (earlier != null && isSparkBloom(registry.lookupFunctionBuilder(earlier))) {
      registry.dropFunction(earlier);
    }
    spark.udf().register(name, udf);
    FunctionIdentifier registered = find(registry, name);
    if (registered == null) {
      throw new IllegalStateException(name + ": not found in the session's function registry after registering it");
    }
    return registered;
  }

  /** The most qualified identifier {@code name} is registered under, or null. */
  private static FunctionIdentifier find(FunctionRegistry registry, String name) {
    FunctionIdentifier found = null;
    scala.collection.Iterator<FunctionIdentifier> all = registry.listFunction().iterator();
    while (all.hasNext()) {
      FunctionIdentifier id = all.next();
      if (id.funcName().equalsIgnoreCase(name)
          && (found == null || id.nameParts().length() > found.nameParts().length())) {
        found = id;
      }
    }
    return found;
  }

  private static boolean isSparkBloom(scala.Option<?> builder) {
    return builder.isDefined()
        && (builder.get() instanceof CheckedBuilder || builder.get() instanceof SqlFunction.Builder);
  }

  /**
   * A UDF's builder behind the checks of {@code rule}: a call with {@code arity} arguments that
   * passes them is built by {@code typed} (when given), any other by the UDF's builder.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static final class CheckedBuilder extends AbstractFunction1<Object, Object> {
    private final String name;
    private final Rule rule;
    private final int arity;
    private final Function<List<Expression>, Expression> typed;
    private final Function1 udfBuilder;

    CheckedBuilder(String name, Rule rule, int arity, Function<List<Expression>, Expression> typed,
        Function1 udfBuilder) {
      this.name = name;
      this.rule = rule;
      this.arity = arity;
      this.typed = typed;
      this.udfBuilder = udfBuilder;
    }

    @Override
    public Object apply(Object arguments) {
      scala.collection.Seq<Expression> args = (scala.collection.Seq<Expression>) arguments;
      try {
        check(name, args, rule);
      } catch (AnalysisException e) {
        throw SqlErrors.rethrow(e);
      }
      if (typed != null && args.length() == arity) {
        List<Expression> list = new ArrayList<>(arity);
        for (int i = 0; i < arity; i++) {
          list.add(args.apply(i));
        }
        return typed.apply(Collections.unmodifiableList(list));
      }
      return udfBuilder.apply(arguments);
    }
  }

  /**
   * Checks a call of a registered function by {@code rule}.
   *
   * @throws IllegalArgumentException naming the function and the SQL type of an item it does not
   *     hash exactly
   * @throws AnalysisException as the session extension's functions report them, for a sizing
   *     argument of the wrong type or a constant one that the filter's sizing refuses
   */
  static void check(String function, scala.collection.Seq<Expression> arguments, Rule rule)
      throws AnalysisException {
    if (arguments.length() <= rule.itemArgument) {
      return; // Spark reports the wrong number of arguments itself
    }
    Expression item = arguments.apply(rule.itemArgument);
    if (item.resolved()) {
      DataType t = item.dataType();
      DataType element = t;
      if (rule.itemIsArray && t instanceof ArrayType) {
        element = ((ArrayType) t).elementType();
      }
      boolean ok = element instanceof NullType
          || (rule.itemIsArray && !(t instanceof ArrayType) ? false : rule.items.accepts(element));
      if (!ok) {
        String what = rule.itemIsArray ? "candidates" : "item";
        throw new IllegalArgumentException(function + ": " + what + " of SQL type "
            + t.simpleString() + " is not supported; expected " + (rule.itemIsArray
                ? "array<" + rule.items.expected + ">" : rule.items.expected)
            + rule.hint);
      }
    }
    if (rule.fppArgument < 0 || arguments.length() <= Math.max(rule.sizeArgument, rule.fppArgument)) {
      return;
    }
    List<Expression> args = new ArrayList<>(arguments.length());
    for (int i = 0; i < arguments.length(); i++) {
      args.add(arguments.apply(i));
    }
    for (int i : new int[] {rule.sizeArgument, rule.fppArgument}) {
      ArgumentType type = i == rule.sizeArgument ? ArgumentType.SIZE : ArgumentType.NUMERIC;
      if (i >= 0 && args.get(i).resolved() && !type.accepts(args.get(i).dataType())) {
        throw SqlErrors.wrongType(function, args, i, args.get(i), type);
      }
    }
    String call = function + (rule.sizeArgument >= 0 ? "(item, n, p)" : "(item, p)");
    checkConstantSizing(function, args, rule.sizeArgument, rule.fppArgument, call);
  }

  /**
   * Checks the sizing arguments of a call that are constants, by the rules the filter is made
   * by ({@link SqlSizing}), before any job: n and p (a fixed sizing: its filter must be one this
   * process can allocate), or p alone (per-key sizing, {@code sizeArgument} -1). A constant SQL
   * NULL is refused too. Arguments that are not constants are checked row by row when the query
   * runs, with the same messages.
   *
   * @param call the call as the messages name it, e.g. "sparkbloom_build(item, n, p)"
   * @throws AnalysisException {@code DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT} naming the
   *     call and the argument, the {@link IllegalArgumentException} of the check as its cause
   */
  static void checkConstantSizing(String function, List<Expression> arguments, int sizeArgument,
      int fppArgument, String call) throws AnalysisException {
    Expression n = sizeArgument >= 0 ? arguments.get(sizeArgument) : null;
    Expression p = arguments.get(fppArgument);
    boolean constantN = n != null && isConstant(n);
    boolean constantP = isConstant(p);
    try {
      Object nValue = constantN ? n.eval(null) : null;
      Object pValue = constantP ? p.eval(null) : null;
      if ((constantN && nValue == null) || (constantP && pValue == null)) {
        throw SqlSizing.isNull(call);
      }
      // a value that is not a constant (or not a number, which the type checks refuse) is
      // checked row by row
      if (isNumber(pValue)) {
        SqlSizing.checkP(call, toDouble(pValue));
        if (isNumber(nValue)) {
          SqlSizing.fixed(call, toLong(nValue), toDouble(pValue));
        }
      }
    } catch (IllegalArgumentException e) {
      throw SqlErrors.invalidArgument(function, arguments, e);
    }
  }

  private static boolean isConstant(Expression e) {
    return e.resolved() && e.foldable();
  }

  private static boolean isNumber(Object v) {
    return v instanceof Number || v instanceof Decimal;
  }

  private static long toLong(Object v) {
    if (v instanceof Decimal) {
      return ((Decimal) v).toBigDecimal().bigDecimal().longValue();
    }
    if (v instanceof Double || v instanceof Float) {
      return (long) ((Number) v).doubleValue();
    }
    return ((Number) v).longValue();
  }

  private static double toDouble(Object v) {
    return v instanceof Decimal ? ((Decimal) v).toDouble() : ((Number) v).doubleValue();
  }
}
