package io.sparkbloom.spark.example;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.DedupPlan;
import io.sparkbloom.spark.PerKeyFilters;
import io.sparkbloom.spark.PerKeyOptions;
import io.sparkbloom.spark.Sizing;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * sparkbloom: one filter per user (one {@code putAll} per user, or {@code buildPerKey} from the
 * input's pairs) &rarr; saveAsObjectFile &rarr; objectFile &rarr; join &rarr;
 * {@code retainAbsent}. With {@code --dedup join} the filters are hash-partitioned before they
 * are saved (the history records are shuffled, not the filters) and read back with that
 * partitioning, so the join moves only the candidates; {@code --plain-join} runs the plain join of
 * unpartitioned filters, as the Guava pipeline does. The filters
 * are sized by {@code --sizing} ({@link Sizing}): fixed (n, p) as Guava's, or per user. With
 * {@code --dedup broadcast} the filters are saved unpartitioned and their saved bytes broadcast
 * for the dedup ({@code dedupBroadcast(jsc, path, candidates)}): the candidates are answered
 * where they are, never shuffled. By default ({@code --dedup auto}) they are saved so too, and
 * {@code PerKeyFilters.dedup(jsc, path, candidates)} broadcasts them when their saved bytes fit
 * the broadcast limit, else joins them (unpartitioned: both sides move).
 */
final class SparkbloomPipeline extends Pipeline {
  /** The filters always broadcast for the dedup ({@code --dedup broadcast}; not with {@code --plain-join}). */
  private final boolean broadcast;
  /** The dedup chosen by the saved filters' size ({@code --dedup auto}; not with {@code --plain-join}). */
  private final boolean auto;
  /** The last dedup's context and filters, for {@link #lastPlan} (computed after the timing). */
  private JavaSparkContext lastJsc;
  private String lastUri;

  SparkbloomPipeline(Options o) {
    super("sparkbloom");
    this.broadcast = o.broadcastDedup();
    this.auto = o.autoDedup();
  }

  /** The pipeline named {@code name}, run with {@code own} in place of the job's options. */
  SparkbloomPipeline(String name, Options own) {
    super(name, own);
    this.broadcast = own.broadcastDedup();
    this.auto = own.autoDedup();
  }

  @Override
  String lastPlan() {
    // the plan the chooser took: from the files' listing, no job; not part of the timed dedup
    return lastUri == null ? null : DedupPlan.of(lastJsc, lastUri, PerKeyOptions.defaults()).describe();
  }

  @Override
  void buildAndSave(Options o, DedupData data, String uri) {
    int partitions = data.history.getNumPartitions();
    Sizing sizing = o.sizing();
    if (o.plainJoin) {
      // unpartitioned filters, so the join shuffles them again
      JavaPairRDD<String, BloomFilter> filters = data.pairs == null
          ? PerKeyFilters.buildPerRecord(data.history, PerKeyOptions.of(sizing))
          : PerKeyFilters.buildPerKey(data.pairs, PerKeyOptions.of(sizing).withPartitions(partitions))
              .mapToPair(t -> t);
      filters.saveAsObjectFile(uri);
    } else {
      if (broadcast || auto) {
        // broadcast filters need no partitioning: built where the records are, saved as they come
        PerKeyFilters.saveAsObjectFile(data.pairs == null
            ? PerKeyFilters.buildPerRecord(data.history, PerKeyOptions.of(sizing))
            : PerKeyFilters.buildPerKey(data.pairs, PerKeyOptions.of(sizing).withPartitions(partitions)), uri);
        return;
      }
      JavaPairRDD<String, BloomFilter> filters = data.pairs == null
          ? PerKeyFilters.buildPerRecord(data.history, sizing, partitions)
          : PerKeyFilters.buildPerKey(data.pairs, PerKeyOptions.of(sizing).withPartitions(partitions));
      PerKeyFilters.saveAsObjectFile(filters, uri);
    }
  }

  @Override
  JavaPairRDD<String, long[]> loadAndDedup(JavaSparkContext jsc, DedupData data, String uri) {
    if (auto) {
      lastJsc = jsc;
      lastUri = uri;
      return PerKeyFilters.dedup(jsc, uri, data.candidates);
    }
    if (broadcast) {
      // the saved filters' bytes (per-key: 4.5 MB at 10,000 users; fixed n: 20 MB of sparse
      // bytes for 180 MB of bits) are broadcast as read, so the candidates (80 MB) are answered
      // in place instead of shuffled to the filters
      return PerKeyFilters.dedupBroadcast(jsc, uri, data.candidates, PerKeyOptions.defaults());
    }
    return PerKeyFilters.dedup(PerKeyFilters.objectFile(jsc, uri), data.candidates);
  }
}
