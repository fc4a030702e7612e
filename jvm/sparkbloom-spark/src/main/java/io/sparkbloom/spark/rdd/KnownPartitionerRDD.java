package io.sparkbloom.spark.rdd;

import org.apache.spark.Partition;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import scala.Option;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * A pair RDD whose partition {@code i} holds exactly the keys that {@code partitioner} sends to
 * {@code i}, e.g. the files of a partitioned objectFile read back in order. Declaring the
 * partitioner lets a join with it skip the shuffle of this side. Every record is checked as it
 * is read: a key in the wrong partition fails the task with a message instead of giving wrong
 * answers.
 */
public final class KnownPartitionerRDD<K, V> extends RDD<Tuple2<K, V>> {
  private static final long serialVersionUID = 1L;
  private static final ClassTag<Tuple2<Object, Object>> TUPLE = ClassTag$.MODULE$.apply(Tuple2.class);

  private final Partitioner part;
  private final String source;

  @SuppressWarnings({"unchecked", "rawtypes"})
  public KnownPartitionerRDD(RDD<Tuple2<K, V>> prev, Partitioner part, String source) {
    super(prev, (ClassTag) TUPLE);
    this.part = part;
    this.source = source;
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Iterator<Tuple2<K, V>> compute(Partition split, TaskContext context) {
    RDD<Tuple2<K, V>> parent = firstParent((ClassTag) TUPLE);
    int index = split.index();
    return parent.iterator(split, context).map(t -> {
      int expected = part.getPartition(t._1());
      if (expected != index) {
        throw new IllegalStateException("key " + t._1() + " of " + source + " is in partition "
            + index + " but its partitioner (" + part.numPartitions() + " hash partitions) puts it in "
            + expected + ": the files were renamed, or the key's hashCode is not stable across JVMs");
      }
      return t;
    });
  }

  @Override
  @SuppressWarnings({"unchecked", "rawtypes"})
  public Partition[] getPartitions() {
    return firstParent((ClassTag) TUPLE).partitions();
  }

  @Override
  public Option<Partitioner> partitioner() {
    return Option.apply(part);
  }
}
