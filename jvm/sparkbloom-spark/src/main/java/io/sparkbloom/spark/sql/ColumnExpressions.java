package io.sparkbloom.spark.sql;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * Catalyst {@link Expression} to {@link Column} and back, on both Spark lines this module is
 * compiled for from one source tree. Spark 3.5's Column wraps an Expression ({@code new
 * Column(expr)}, {@code column.expr()}); Spark 4's Column wraps a ColumnNode ({@code
 * ExpressionUtils.column(expr)}, {@code ColumnNodeToExpressionConverter.apply(column.node())} of
 * the classic session). Neither pair exists on the other line, so the pair present is looked up
 * once, by method handle.
 */
final class ColumnExpressions {
  private ColumnExpressions() {}

  private static final MethodHandle TO_COLUMN;
  private static final MethodHandle TO_EXPRESSION;

  static {
    MethodHandle[] pair = spark4();
    if (pair == null) {
      pair = spark35();
    }
    TO_COLUMN = pair[0];
    TO_EXPRESSION = pair[1];
  }

  /**
   * Spark 4: {@code ExpressionUtils.column(expr)} one way; the other way the eager {@code
   * ColumnNodeToExpressionConverter.apply(column.node())}, as {@code ExpressionUtils.expression}
   * may defer the conversion to an analyzer rule that has already run when a function is built.
   * Null on Spark 3.5.
   */
  private static MethodHandle[] spark4() {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    ClassLoader loader = Column.class.getClassLoader();
    try {
      Class<?> utils = Class.forName("org.apache.spark.sql.classic.ExpressionUtils", true, loader);
      Class<?> node = Class.forName("org.apache.spark.sql.internal.ColumnNode", true, loader);
      Class<?> converter =
          Class.forName("org.apache.spark.sql.classic.ColumnNodeToExpressionConverter$", true, loader);
      MethodHandle toColumn = lookup.findStatic(utils, "column",
          MethodType.methodType(Column.class, Expression.class));
      MethodHandle convert = lookup.findVirtual(converter, "apply",
          MethodType.methodType(Expression.class, node))
          .bindTo(converter.getField("MODULE$").get(null));
      MethodHandle nodeOf = lookup.findVirtual(Column.class, "node", MethodType.methodType(node));
      return new MethodHandle[] {toColumn, MethodHandles.filterArguments(convert, 0, nodeOf)};
    } catch (ReflectiveOperationException e) {
      return null;
    }
  }

  /** Spark 3.5: {@code new Column(expr)} and {@code column.expr()}. */
  private static MethodHandle[] spark35() {
    MethodHandles.Lookup lookup = MethodHandles.publicLookup();
    try {
      return new MethodHandle[] {
        lookup.findConstructor(Column.class, MethodType.methodType(void.class, Expression.class)),
        lookup.findVirtual(Column.class, "expr", MethodType.methodType(Expression.class)),
      };
    } catch (NoSuchMethodException | IllegalAccessException e) {
      throw new IllegalStateException("sparkbloom: this Spark has neither Column(Expression) nor"
          + " ExpressionUtils.column(Expression); the SQL extension supports Spark 3.5 and 4.x", e);
    }
  }

  /** The column that evaluates {@code expression}. */
  static Column column(Expression expression) {
    return (Column) invoke(TO_COLUMN, expression);
  }

  /** The expression {@code column} evaluates. */
  static Expression expression(Column column) {
    return (Expression) invoke(TO_EXPRESSION, column);
  }

  /** {@code conversion} applied to {@code argument}; a checked exception as IllegalStateException. */
  private static Object invoke(MethodHandle conversion, Object argument) {
    try {
      return conversion.invoke(argument);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  /**
   * The column of a typed expression over {@code arguments}: how the DataFrame helpers build the
   * same expression SQL does. The arguments' types are checked when the plan is analyzed, as the
   * expression reads them.
   */
  static Column call(Function<List<Expression>, Expression> typed, Column... arguments) {
    List<Expression> args = new ArrayList<>(arguments.length);
    for (Column c : arguments) {
      args.add(expression(c));
    }
    return column(typed.apply(args));
  }
}
