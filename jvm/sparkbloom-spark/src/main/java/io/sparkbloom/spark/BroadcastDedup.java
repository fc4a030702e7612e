package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import scala.Tuple2;

/**
 * The map-side join behind {@link PerKeyFilters#dedupBroadcast}: the filters are collected to the
 * driver and broadcast, and every candidate record is answered where it is, so the candidates
 * (usually far larger: 1,000 candidates are 8,000 bytes, a per-key filter of 200 items ~410)
 * never go through a shuffle. Filters of one key are merged when their shapes agree and all
 * queried otherwise, as in {@link HashJoinDedup}.
 */
final class BroadcastDedup {
  private BroadcastDedup() {}

  static <K> JavaPairRDD<K, long[]> dedup(JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates) {
    Map<K, BloomFilter[]> byKey = new HashMap<>();
    for (Tuple2<K, BloomFilter> t : filters.collect()) {
      BloomFilter[] have = byKey.get(t._1());
      if (have == null) {
        byKey.put(t._1(), new BloomFilter[] {t._2()});
      } else {
        byKey.put(t._1(), add(have, t._2()));
      }
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(candidates.context());
    Broadcast<Map<K, BloomFilter[]>> shared = jsc.broadcast(byKey);
    // mapValues cannot see the key: map the pair, keep the candidates' partitioner
    return candidates.mapPartitionsToPair(records -> {
      Map<K, BloomFilter[]> map = shared.value();
      return new java.util.Iterator<Tuple2<K, long[]>>() {
        @Override
        public boolean hasNext() {
          return records.hasNext();
        }

        @Override
        public Tuple2<K, long[]> next() {
          Tuple2<K, long[]> t = records.next();
          BloomFilter[] fs = map.get(t._1());
          long[] kept = t._2();
          if (fs == null || kept.length == 0) {
            return t;
          }
          for (BloomFilter f : fs) {
            kept = kept.length == 0 ? kept : f.retainAbsent(kept);
          }
          return new Tuple2<>(t._1(), kept);
        }
      };
    }, true);
  }

  /** {@code have} with {@code f} OR-ed into a filter of the same shape, or appended. */
  private static BloomFilter[] add(BloomFilter[] have, BloomFilter f) {
    List<BloomFilter> out = new ArrayList<>(List.of(have));
    for (int i = 0; i < out.size(); i++) {
      if (out.get(i).isCompatible(f)) {
        BloomFilter union = out.get(i).copy();
        union.merge(f);
        out.set(i, union);
        return out.toArray(new BloomFilter[0]);
      }
    }
    out.add(f);
    return out.toArray(new BloomFilter[0]);
  }
}
