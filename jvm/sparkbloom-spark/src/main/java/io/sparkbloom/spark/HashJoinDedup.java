package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.Optional;
import scala.Tuple2;

/**
 * The join behind {@link PerKeyFilters#dedup}: a left outer hash join per partition. Both sides
 * are brought to one partitioner (a side already partitioned that way does not move); each task
 * loads its partition's filters into a hash map (several filters of one key are merged; filters of
 * one key with different shapes are all queried) and
 * streams its candidate records through it, one {@code retainAbsent} call per record. Unlike
 * {@code leftOuterJoin}, no filter goes into Spark's size-estimated cogroup map.
 */
final class HashJoinDedup {
  private HashJoinDedup() {}

  /** Per key, the candidates its filter has not seen; keys without a filter keep all theirs. */
  static <K> JavaPairRDD<K, long[]> dedup(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates, Partitioner partitioner) {
    JavaPairRDD<K, BloomFilter> f = partitionedBy(filters, partitioner);
    JavaPairRDD<K, long[]> c = partitionedBy(candidates, partitioner);
    JavaRDD<Tuple2<K, long[]>> kept = c.zipPartitions(f, HashJoinDedup::retainAbsent);
    return ScalaRdds.toJavaPairs(new KnownPartitionerRDD<>(kept.rdd(), partitioner, "dedup"));
  }

  private static <K, V> JavaPairRDD<K, V> partitionedBy(JavaPairRDD<K, V> rdd, Partitioner partitioner) {
    Optional<Partitioner> p = rdd.partitioner();
    return p.isPresent() && p.get().equals(partitioner) ? rdd : rdd.partitionBy(partitioner);
  }

  /** One partition of the join: the filters into a map, then the candidates streamed through it. */
  private static <K> Iterator<Tuple2<K, long[]>> retainAbsent(
      Iterator<Tuple2<K, long[]>> candidates, Iterator<Tuple2<K, BloomFilter>> filters) {
    Map<K, BloomFilter> byKey = new HashMap<>();
    // filters of a key whose shape differs from its first one (e.g. per-key sized in different
    // runs): they cannot be OR-ed, so a candidate is kept only if every one of them lacks it
    Map<K, List<BloomFilter>> otherShapes = new HashMap<>();
    while (filters.hasNext()) {
      Tuple2<K, BloomFilter> t = filters.next();
      BloomFilter first = byKey.get(t._1());
      if (first == null) {
        byKey.put(t._1(), t._2());
      } else if (first.isCompatible(t._2())) {
        BloomFilter union = first.copy();
        union.merge(t._2());
        byKey.put(t._1(), union);
      } else {
        otherShapes.computeIfAbsent(t._1(), k -> new ArrayList<>()).add(t._2());
      }
    }
    return new Iterator<Tuple2<K, long[]>>() {
      @Override
      public boolean hasNext() {
        return candidates.hasNext();
      }

      @Override
      public Tuple2<K, long[]> next() {
        Tuple2<K, long[]> t = candidates.next();
        BloomFilter filter = byKey.get(t._1());
        long[] items = t._2();
        if (filter == null || items.length == 0) {
          return t;
        }
        long[] kept = filter.retainAbsent(items);
        for (BloomFilter other : otherShapes.getOrDefault(t._1(), List.of())) {
          kept = kept.length == 0 ? kept : other.retainAbsent(kept);
        }
        return new Tuple2<>(t._1(), kept);
      }
    };
  }

  /** {@link #dedup} for string candidates (one {@code retainAbsent(String[])} call per record). */
  static <K> JavaPairRDD<K, String[]> dedupStrings(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, String[]> candidates, Partitioner partitioner) {
    JavaPairRDD<K, BloomFilter> f = partitionedBy(filters, partitioner);
    JavaPairRDD<K, String[]> c = partitionedBy(candidates, partitioner);
    JavaRDD<Tuple2<K, String[]>> kept = c.zipPartitions(f, HashJoinDedup::retainAbsentStrings);
    return ScalaRdds.toJavaPairs(new KnownPartitionerRDD<>(kept.rdd(), partitioner, "dedupStrings"));
  }

  private static <K> Iterator<Tuple2<K, String[]>> retainAbsentStrings(
      Iterator<Tuple2<K, String[]>> candidates, Iterator<Tuple2<K, BloomFilter>> filters) {
    Map<K, BloomFilter> byKey = new HashMap<>();
    while (filters.hasNext()) {
      Tuple2<K, BloomFilter> t = filters.next();
      byKey.merge(t._1(), t._2(), (a, b) -> {
        BloomFilter union = a.copy();
        union.merge(b);
        return union;
      });
    }
    return new Iterator<Tuple2<K, String[]>>() {
      @Override
      public boolean hasNext() {
        return candidates.hasNext();
      }

      @Override
      public Tuple2<K, String[]> next() {
        Tuple2<K, String[]> t = candidates.next();
        BloomFilter filter = byKey.get(t._1());
        String[] items = t._2();
        return filter == null || items.length == 0 ? t : new Tuple2<>(t._1(), filter.retainAbsent(items));
      }
    };
  }
}
