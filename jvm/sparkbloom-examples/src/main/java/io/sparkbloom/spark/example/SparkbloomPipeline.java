package io.sparkbloom.spark.example;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.PerKeyFilters;
import io.sparkbloom.spark.Sizing;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * sparkbloom: one filter per user (one {@code putAll} per user, or {@code buildPerKey} from the
 * input's pairs) &rarr; saveAsObjectFile &rarr; objectFile &rarr; join &rarr;
 * {@code retainAbsent}. By default the filters are hash-partitioned before they are saved (the
 * history records are shuffled, not the filters) and read back with that partitioning, so the
 * join moves only the candidates; {@code --plain-join} runs the seed's shape exactly. The filters
 * are sized by {@code --sizing} ({@link Sizing}): fixed (n, p) as Guava's, or per user.
 */
final class SparkbloomPipeline extends Pipeline {
  SparkbloomPipeline() {
    super("sparkbloom");
  }

  @Override
  void buildAndSave(Options o, DedupData data, String uri) {
    int partitions = data.history.getNumPartitions();
    Sizing sizing = o.sizing();
    if (o.plainJoin) {
      // unpartitioned filters, so the join shuffles them again
      JavaPairRDD<String, BloomFilter> filters = data.pairs == null
          ? PerKeyFilters.buildPerRecord(data.history, sizing)
          : PerKeyFilters.buildPerKey(data.pairs, sizing, partitions).mapToPair(t -> t);
      filters.saveAsObjectFile(uri);
    } else {
      if (data.pairs == null && sizing.isPerKeyCount()) {
        // per-key filters (~400 bytes) are smaller than a user's history (200 longs, 1,600
        // bytes): build where the records are, then shuffle the filters into hash partitions
        PerKeyFilters.saveAsObjectFile(PerKeyFilters.buildPerRecord(data.history, sizing), uri, partitions);
        return;
      }
      JavaPairRDD<String, BloomFilter> filters = data.pairs == null
          ? PerKeyFilters.buildPerRecord(data.history, sizing, partitions)
          : PerKeyFilters.buildPerKey(data.pairs, sizing, partitions);
      PerKeyFilters.saveAsObjectFile(filters, uri);
    }
  }

  @Override
  JavaPairRDD<String, long[]> loadAndDedup(JavaSparkContext jsc, DedupData data, String uri) {
    return PerKeyFilters.dedup(PerKeyFilters.<String>objectFile(jsc, uri), data.candidates);
  }
}
