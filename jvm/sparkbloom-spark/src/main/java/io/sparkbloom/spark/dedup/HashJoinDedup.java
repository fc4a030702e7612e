package io.sparkbloom.spark.dedup;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.NullItems;
import io.sparkbloom.spark.rdd.KnownPartitionerRDD;
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

  /** How one candidate record of type {@code A} ({@code long[]}, {@code String[]}) is answered. */
  public interface Query<A> extends java.io.Serializable {
    /** The items of {@code candidates} that {@code filter} has not seen, in order. */
    A retainAbsent(BloomFilter filter, A candidates);

    /** Whether {@code candidates} has no item left to query. */
    boolean isEmpty(A candidates);
  }

  /** {@code long[]} candidates, one {@code retainAbsent(long[])} call per record. */
  static final Query<long[]> LONGS = new Query<long[]>() {
    private static final long serialVersionUID = 1L;

    @Override
    public long[] retainAbsent(BloomFilter filter, long[] candidates) {
      return filter.retainAbsent(candidates);
    }

    @Override
    public boolean isEmpty(long[] candidates) {
      return candidates.length == 0;
    }
  };

  /** {@code String[]} candidates (null elements dropped), one {@code retainAbsent(String[])} call per record. */
  static final Query<String[]> STRINGS = new Query<String[]>() {
    private static final long serialVersionUID = 1L;

    @Override
    public String[] retainAbsent(BloomFilter filter, String[] candidates) {
      return filter.retainAbsent(NullItems.withoutNulls(candidates));
    }

    @Override
    public boolean isEmpty(String[] candidates) {
      return candidates.length == 0;
    }
  };

  /** {@code long[]} or {@code String[]} candidates, by each record's type. */
  public static final Query<Object> ANY = new Query<Object>() {
    private static final long serialVersionUID = 1L;

    @Override
    public Object retainAbsent(BloomFilter filter, Object candidates) {
      if (candidates instanceof long[]) {
        return LONGS.retainAbsent(filter, (long[]) candidates);
      }
      if (candidates instanceof String[]) {
        return STRINGS.retainAbsent(filter, (String[]) candidates);
      }
      throw new IllegalArgumentException("dedup: candidates must be long[] or String[], got "
          + candidates.getClass().getName());
    }

    @Override
    public boolean isEmpty(Object candidates) {
      return java.lang.reflect.Array.getLength(candidates) == 0;
    }
  };

  /**
   * Per key, the candidates its filter has not seen; keys without a filter keep all theirs. A
   * null filter is no filter; null candidates stay null ({@code PerKeyFilters}' null policy).
   */
  public static <K, A> JavaPairRDD<K, A> dedup(JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, A> candidates,
      Partitioner partitioner, Query<A> query) {
    JavaPairRDD<K, BloomFilter> f = partitionedBy(filters, partitioner);
    JavaPairRDD<K, A> c = partitionedBy(candidates, partitioner);
    JavaRDD<Tuple2<K, A>> kept = c.zipPartitions(f, (cs, fs) -> retainAbsent(cs, fs, query));
    return ScalaRdds.toJavaPairs(new KnownPartitionerRDD<>(kept.rdd(), partitioner, "dedup"));
  }

  private static <K, V> JavaPairRDD<K, V> partitionedBy(JavaPairRDD<K, V> rdd, Partitioner partitioner) {
    Optional<Partitioner> p = rdd.partitioner();
    return p.isPresent() && p.get().equals(partitioner) ? rdd : rdd.partitionBy(partitioner);
  }

  /** One partition of the join: the filters into a map, then the candidates streamed through it. */
  private static <K, A> Iterator<Tuple2<K, A>> retainAbsent(
      Iterator<Tuple2<K, A>> candidates, Iterator<Tuple2<K, BloomFilter>> filters, Query<A> query) {
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
    return new Iterator<Tuple2<K, A>>() {
      @Override
      public boolean hasNext() {
        return candidates.hasNext();
      }

      @Override
      public Tuple2<K, A> next() {
        Tuple2<K, A> t = candidates.next();
        BloomFilter filter = byKey.get(t._1());
        A items = t._2();
        if (filter == null || items == null) {
          return t;
        }
        A kept = query.retainAbsent(filter, items);
        for (BloomFilter other : otherShapes.getOrDefault(t._1(), List.of())) {
          kept = query.isEmpty(kept) ? kept : query.retainAbsent(other, kept);
        }
        return new Tuple2<>(t._1(), kept);
      }
    };
  }
}
