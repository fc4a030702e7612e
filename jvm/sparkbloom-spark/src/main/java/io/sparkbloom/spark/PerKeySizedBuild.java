package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.DistinctLongs;
import io.sparkbloom.spark.build.NullItems;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
import io.sparkbloom.spark.rdd.MappedIterator;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.function.Function2;
import scala.Tuple2;

/**
 * The RDD builds of {@link PerKeyFilters} with per-key sizing: each key's distinct items are
 * gathered through {@code aggregateByKey} into a {@link DistinctLongs} (8 bytes per distinct item
 * through the shuffle, duplicates dropped as they come), then its filter is sized for their count.
 *
 * <p>A key's buffer holds at most the {@code SparkContext}'s {@link PerKeyBufferLimit} (read when
 * the build is called): past it the buffer drops its items and only records the overflow, so
 * neither an executor's heap nor the shuffle (where each map task's buffer of a key is one
 * serialized object, at most twice the limit in slots) carries more; the job then fails where the
 * key's buffers are merged, with an {@link IllegalArgumentException} naming the key, the limit and
 * the conf.
 */
final class PerKeySizedBuild {
  private PerKeySizedBuild() {}

  /** {@code PerKeyFilters.buildPerKey} with per-key sizing: {@code (key, item)} pairs. */
  static <K> JavaPairRDD<K, BloomFilter> pairs(JavaPairRDD<K, Long> pairs, Sizing sizing, int partitions) {
    return build(pairs, sizing, partitions, "PerKeyFilters.buildPerKey",
        (b, item) -> item == null ? b : b.add(item));
  }

  /** {@code PerKeyFilters.buildPerKeyFromArrays} with per-key sizing: {@code (key, long[])} records. */
  static <K> JavaPairRDD<K, BloomFilter> arrays(JavaPairRDD<K, long[]> records, Sizing sizing, int partitions) {
    return build(records, sizing, partitions, "PerKeyFilters.buildPerKeyFromArrays",
        (b, items) -> b.addAll(NullItems.orEmpty(items)));
  }

  private static <K, V> JavaPairRDD<K, BloomFilter> build(JavaPairRDD<K, V> records, Sizing sizing,
      int partitions, String owner, Function2<DistinctLongs, V, DistinctLongs> add) {
    int limit = PerKeyBufferLimit.of(records.context().getConf());
    JavaPairRDD<K, DistinctLongs> items = records.aggregateByKey(
        DistinctLongs.deferringOverflow(owner, limit), partitions, add, DistinctLongs::addAll);
    // mapValues without the key: this keeps the partitioning and names the key of an overflow
    return items.mapPartitionsToPair(it -> MappedIterator.of(it,
        t -> new Tuple2<>(t._1(), filter(owner, t._1(), t._2(), sizing))), true);
  }

  /**
   * The key's filter, sized for its distinct items.
   *
   * @throws IllegalArgumentException naming the key and the limit if the key has more distinct
   *     items than its buffer holds
   */
  static BloomFilter filter(String owner, Object key, DistinctLongs items, Sizing sizing) {
    if (items.overflowed()) {
      throw PerKeyBufferLimit.exceeded(owner, PerKeyBufferLimit.describeKey(key), items.maxItems());
    }
    return items.putInto(sizing.create(items.distinctCount()));
  }
}
