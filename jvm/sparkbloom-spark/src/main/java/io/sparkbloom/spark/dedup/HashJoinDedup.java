package io.sparkbloom.spark.dedup;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.ItemArrays;
import io.sparkbloom.spark.rdd.KnownPartitionerRDD;
import io.sparkbloom.spark.rdd.MappedIterator;
import io.sparkbloom.spark.rdd.ScalaRdds;
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
 * The join behind {@code PerKeyFilters.dedup}: a left outer hash join per partition. Both sides
 * are brought to one partitioner (a side already partitioned that way does not move); each task
 * loads its partition's filters into a hash map (several filters of one key are merged; filters of
 * one key with different shapes are all queried, for {@code long} and string candidates alike) and
 * streams its candidate records through it, one {@code retainAbsent} call per record. Unlike
 * {@code leftOuterJoin}, no filter goes into Spark's size-estimated cogroup map.
 */
public final class HashJoinDedup {
  private HashJoinDedup() {}

  /** The candidates' name in the error for a record that is neither {@code long[]} nor {@code String[]}. */
  static final String CANDIDATES = "dedup: candidates";

  /**
   * Per key, the candidates its filter has not seen; keys without a filter keep all theirs. A
   * null filter is no filter; null candidates stay null ({@code PerKeyFilters}' null policy).
   */
  public static <K, A> JavaPairRDD<K, A> dedup(JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, A> candidates,
      Partitioner partitioner) {
    JavaPairRDD<K, BloomFilter> f = partitionedBy(filters, partitioner);
    JavaPairRDD<K, A> c = partitionedBy(candidates, partitioner);
    JavaRDD<Tuple2<K, A>> kept = c.zipPartitions(f, (cs, fs) -> retainAbsent(cs, fs));
    return ScalaRdds.toJavaPairs(new KnownPartitionerRDD<>(kept.rdd(), partitioner, "dedup"));
  }

  private static <K, V> JavaPairRDD<K, V> partitionedBy(JavaPairRDD<K, V> rdd, Partitioner partitioner) {
    Optional<Partitioner> p = rdd.partitioner();
    return p.isPresent() && p.get().equals(partitioner) ? rdd : rdd.partitionBy(partitioner);
  }

  /** One partition of the join: the filters into a map, then the candidates streamed through it. */
  private static <K, A> Iterator<Tuple2<K, A>> retainAbsent(
      Iterator<Tuple2<K, A>> candidates, Iterator<Tuple2<K, BloomFilter>> filters) {
    Map<K, BloomFilter> byKey = new HashMap<>();
    // filters of a key whose shape differs from its first one (e.g. per-key sized in different
    // runs): they cannot be OR-ed, so a candidate is kept only if every one of them lacks it
    Map<K, List<BloomFilter>> otherShapes = new HashMap<>();
    while (filters.hasNext()) {
      Tuple2<K, BloomFilter> t = filters.next();
      if (t._2() == null) {
        continue; // a null filter is no filter
      }
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
    return MappedIterator.of(candidates, t -> {
      BloomFilter filter = byKey.get(t._1());
      A items = t._2();
      if (filter == null || items == null) {
        return t;
      }
      ItemArrays<A> type = ItemArrays.of(items, CANDIDATES);
      A kept = type.retainAbsent(filter, items);
      for (BloomFilter other : otherShapes.getOrDefault(t._1(), List.of())) {
        kept = type.length(kept) == 0 ? kept : type.retainAbsent(other, kept);
      }
      return new Tuple2<>(t._1(), kept);
    });
  }
}
