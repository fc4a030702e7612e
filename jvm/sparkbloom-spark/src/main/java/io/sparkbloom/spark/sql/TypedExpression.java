package io.sparkbloom.spark.sql;

import java.util.Arrays;
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenContext;
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback;
import org.apache.spark.sql.catalyst.expressions.codegen.ExprCode;

/**
 * What sparkbloom's scalar Catalyst expressions written in Java share on both Scala versions:
 * evaluation by {@code eval} also inside generated code ({@link CodegenFallback}: a row's work is
 * a native call over a filter, which generated code would not make cheaper), the two {@code
 * withNewChildrenInternal} overloads, Product, equality and hash over the constructor's arguments
 * ({@link #fields}), as a case class defines them (Catalyst's tree operations read them so), the
 * plan string of the children alone, and the analysis-time refusal of string arguments of another
 * collation ({@link Collations}).
 */
abstract class TypedExpression extends Expression
    implements CodegenFallback, java.io.Serializable {
  private static final long serialVersionUID = 1L;

  /** The constructor's arguments, in its order: {@code TreeNode.makeCopy} calls it with them. */
  abstract Object[] fields();

  /** This expression over {@code children} in place of {@link #children()}, other fields kept. */
  abstract Expression withChildren(Expression[] children);

  @Override
  public ExprCode doGenCode(CodegenContext ctx, ExprCode ev) {
    return CodegenFallback.super.doGenCode(ctx, ev);
  }

  /** Refuses string arguments of a collation other than UTF8_BINARY ({@link Collations}). */
  @Override
  public TypeCheckResult checkInputDataTypes() {
    return Collations.check(children());
  }

  /**
   * In plans, {@code name(children...)}: the other fields (a flag that {@code prettyName} already
   * tells, a decode limit) left out.
   */
  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public scala.collection.Iterator<Object> stringArgs() {
    return (scala.collection.Iterator) children().iterator();
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.13 (an overload, unused, on 2.12). */
  public Expression withNewChildrenInternal(scala.collection.immutable.IndexedSeq<Expression> children) {
    return withChildren(CatalystTrees.toArray(children));
  }

  /** {@code TreeNode.withNewChildrenInternal} on Scala 2.12 (an overload, unused, on 2.13). */
  public Expression withNewChildrenInternal(scala.collection.IndexedSeq<Expression> children) {
    return withChildren(CatalystTrees.toArray(children));
  }

  @Override
  public int productArity() {
    return fields().length;
  }

  @Override
  public Object productElement(int n) {
    return CatalystTrees.element(fields(), n);
  }

  @Override
  public boolean canEqual(Object other) {
    return other != null && other.getClass() == getClass();
  }

  @Override
  public boolean equals(Object other) {
    return canEqual(other) && Arrays.equals(fields(), ((TypedExpression) other).fields());
  }

  @Override
  public int hashCode() {
    return 31 * getClass().hashCode() + Arrays.hashCode(fields());
  }
}
