package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * What the typed Catalyst expressions and the aggregate written in Java need of Scala
 * collections and Product, on both Scala versions this module is compiled for: a {@code
 * scala.collection.immutable.Seq} of children (the type {@code children()} returns on 2.13, a
 * subtype of the one it returns on 2.12), and back.
 */
final class CatalystTrees {
  private CatalystTrees() {}

  /** The immutable list of {@code expressions}, in order. */
  static scala.collection.immutable.Seq<Expression> seq(Expression... expressions) {
    scala.collection.immutable.List<Expression> list = scala.collection.immutable.List$.MODULE$.empty();
    for (int i = expressions.length - 1; i >= 0; i--) {
      list = list.$colon$colon(expressions[i]);
    }
    return list;
  }

  /** The expressions of {@code children}, in order. */
  static Expression[] toArray(scala.collection.Seq<Expression> children) {
    Expression[] out = new Expression[children.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = children.apply(i);
    }
    return out;
  }

  /** {@code productElement(n)} over a case class's {@code fields}. */
  static Object element(Object[] fields, int n) {
    if (n < 0 || n >= fields.length) {
      throw new IndexOutOfBoundsException(Integer.toString(n));
    }
    return fields[n];
  }
}
