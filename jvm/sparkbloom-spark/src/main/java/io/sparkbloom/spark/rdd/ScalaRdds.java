package io.sparkbloom.spark.rdd;

import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.rdd.RDD;
import scala.Tuple2;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * What the {@code RDD} overloads of {@code PerKeyFilters} need to reach the Java ones: a Scala
 * pair RDD viewed as a {@code JavaPairRDD} (no copy, no job), and Scala's integral item values
 * as {@code long}.
 */
public final class ScalaRdds {
  private ScalaRdds() {}

  /** {@code rdd} as a {@code JavaPairRDD} with {@code AnyRef} class tags. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public static <K, V> JavaPairRDD<K, V> toJavaPairs(RDD<? extends Tuple2<K, ?>> rdd) {
    ClassTag<Object> anyRef = ClassTag$.MODULE$.AnyRef();
    return new JavaPairRDD<K, V>((RDD) rdd, (ClassTag) anyRef, (ClassTag) anyRef);
  }

  /** {@code rdd}'s integral values (Scala's Long, Int, Short or Byte) as {@code Long}; null stays null. */
  public static <K> JavaPairRDD<K, Long> withLongValues(RDD<? extends Tuple2<K, ?>> rdd) {
    return ScalaRdds.<K, Object>toJavaPairs(rdd).mapValues(v -> v == null ? null : toLong(v));
  }

  static long toLong(Object v) {
    if (v instanceof Long) {
      return (Long) v;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    throw new IllegalArgumentException(
        "expected an integral item (Long, Int, Short, Byte), got "
            + (v == null ? "null" : v.getClass().getName()));
  }
}
