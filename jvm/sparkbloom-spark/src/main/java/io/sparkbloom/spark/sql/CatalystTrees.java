package io.sparkbloom.spark.sql;

import org.apache.spark.sql.catalyst.expressions.Expression;

/**
 * What the typed Catalyst expressions written in Java need of Scala collections, on both Scala
 * versions this module is compiled for: a {@code scala.collection.immutable.Seq} of children
 * (the type {@code children()} returns on 2.13, a subtype of the one it returns on 2.12).
 */
final class CatalystTrees {
  private CatalystTrees() {}

  /** The immutable list {@code (first, second)}. */
  static scala.collection.immutable.Seq<Expression> seq(Expression first, Expression second) {
    scala.collection.immutable.List<Expression> nil = scala.collection.immutable.List$.MODULE$.empty();
    return nil.$colon$colon(second).$colon$colon(first);
  }
}
