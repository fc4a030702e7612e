package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * What the typed Catalyst expressions written in Java need of Scala collections, on both Scala
 * versions this module is compiled for: a {@code scala.collection.immutable.Seq} of children
 * (the type {@code children()} returns on 2.13, a subtype of the one it returns on 2.12).
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
}
