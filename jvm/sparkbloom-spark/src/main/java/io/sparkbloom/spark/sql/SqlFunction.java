package io.sparkbloom.spark.sql;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import scala.Tuple3;
import scala.runtime.AbstractFunction1;

/**
 * One sparkbloom SQL function as a session extension injects it: its name, its description
 * ({@code DESCRIBE FUNCTION}), the types of its arguments, and what evaluates it: a typed
 * Catalyst expression where the function has one ({@link BuildAggregate}, {@link
 * RetainAbsentExpression}, {@link MightContainExpression}, {@link BuildArrayExpression}), else the
 * UDF or aggregate's expression as {@code spark.udf().register} would make it. {@link #build}
 * checks the call at analysis time (argument count, each resolved argument's type, constant
 * sizing arguments) and returns that expression; {@code BloomFunctions.register} builds
 * the same ones ({@link #typed}), so a query sees the same function either way.
 */
public final class SqlFunction {
  private final String name;
  private final String usage;
  private final Class<?> implementation;
  /** The argument types of each accepted argument count, fewest arguments first. */
  private final List<List<ArgumentType>> signatures;
  /** Null for a function that only has its typed expression. */
  private final Supplier<UserDefinedFunction> udf;
  /** The typed expression of a call whose arguments passed the checks; null: the UDF's. */
  private final Function<List<Expression>, Expression> typed;

  SqlFunction(String name, String usage, Class<?> implementation, Supplier<UserDefinedFunction> udf,
      ArgumentType... arguments) {
    this(name, usage, implementation, udf, null, arguments);
  }

  SqlFunction(String name, String usage, Class<?> implementation, Supplier<UserDefinedFunction> udf,
      Function<List<Expression>, Expression> typed, ArgumentType... arguments) {
    this.name = name;
    this.usage = usage;
    this.implementation = implementation;
    this.udf = udf;
    this.typed = typed;
    this.signatures = List.of(List.of(arguments));
  }

  /**
   * A function with only a typed expression, taking as many arguments as one of {@code
   * signatures} lists (each a different count).
   */
  SqlFunction(String name, String usage, Class<?> implementation,
      Function<List<Expression>, Expression> typed, List<List<ArgumentType>> signatures) {
    this.name = name;
    this.usage = usage;
    this.implementation = implementation;
    this.udf = null;
    this.typed = java.util.Objects.requireNonNull(typed, "typed");
    this.signatures = List.copyOf(signatures);
  }

  /** The typed Catalyst expression builder of this function, or null if it runs as its UDF. */
  public Function<List<Expression>, Expression> typed() {
    return typed;
  }

  public String name() {
    return name;
  }

  /** The {@code DESCRIBE FUNCTION} text, {@code _FUNC_} standing for the name. */
  public String usage() {
    return usage;
  }

  /**
   * The expression of {@code name(arguments...)}: the typed expression, a {@code ScalaUDF}, or an
   * aggregate function (the typed one or a {@code ScalaAggregator}; Spark's analyzer wraps it,
   * honouring {@code DISTINCT} and {@code FILTER}).
   *
   * @throws org.apache.spark.sql.AnalysisException {@code WRONG_NUM_ARGS} if the count differs,
   *     {@code DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE} naming the argument and the accepted types
   *     if a resolved argument has another type, {@code
   *     DATATYPE_MISMATCH.TYPE_CHECK_FAILURE_WITH_HINT} naming the call and the argument if a
   *     constant sizing argument (n, p) is null or refused ({@link
   *     SqlArgumentCheck#checkConstantSizing})
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
      if (arg.resolved() && !arguments.get(i).accepts(arg.dataType())) {
        throw SqlErrors.wrongType(name, args, i, arg, arguments.get(i));
      }
    }
    int p = arguments.indexOf(ArgumentType.NUMERIC);
    if (p >= 0) {
      int n = arguments.indexOf(ArgumentType.SIZE);
      String items = arguments.get(0) == ArgumentType.ITEM_ARRAY ? "items" : "item";
      SqlArgumentCheck.checkConstantSizing(name, args, n, p,
          name + "(" + items + (n >= 0 ? ", n" : "") + ", p)");
    }
    if (typed != null) {
      return typed.apply(args);
    }
    Column[] columns = new Column[args.size()];
    for (int i = 0; i < columns.length; i++) {
      columns[i] = ColumnExpressions.column(args.get(i));
    }
    Expression call = ColumnExpressions.expression(udf.get().apply(columns));
    return call instanceof AggregateExpression ? ((AggregateExpression) call).aggregateFunction() : call;
  }

  /** The accepted argument count, as Spark's errors name it: "3", or "[2, 3]". */
  private String expectedCounts() {
    if (signatures.size() == 1) {
      return Integer.toString(signatures.get(0).size());
    }
    StringBuilder out = new StringBuilder("[");
    for (List<ArgumentType> signature : signatures) {
      out.append(out.length() > 1 ? ", " : "").append(signature.size());
    }
    return out.append(']').toString();
  }

  /** The {@code DESCRIBE FUNCTION} entry. */
  ExpressionInfo info() {
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

  /** {@code Seq<Expression> => Expression}, Spark's {@code FunctionBuilder}, from Java. */
  static final class Builder extends AbstractFunction1<scala.collection.Seq<Expression>, Expression> {
    private final SqlFunction function;

    Builder(SqlFunction function) {
      this.function = function;
    }

    @Override
    public Expression apply(scala.collection.Seq<Expression> children) {
      List<Expression> args = new ArrayList<>(children.length());
      scala.collection.Iterator<Expression> it = children.iterator();
      while (it.hasNext()) {
        args.add(it.next());
      }
      try {
        return function.build(Collections.unmodifiableList(args));
      } catch (AnalysisException e) {
        throw SqlErrors.rethrow(e);
      }
    }
  }
}
