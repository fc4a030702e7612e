package io.sparkbloom.spark;

import io.sparkbloom.spark.dedup.BroadcastLimit;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link PerKeyFilters#dedup(org.apache.spark.api.java.JavaSparkContext, String,
 * org.apache.spark.api.java.JavaPairRDD)} answers against saved filters: a broadcast of their
 * bytes when the saved files fit the broadcast limit, otherwise a join. From
 * {@link #of}.
 */
public final class DedupPlan {
  static final Logger LOG = LoggerFactory.getLogger(DedupPlan.class);

  private final long savedBytes;
  private final long maxBytes;

  DedupPlan(long savedBytes, long maxBytes) {
    this.savedBytes = savedBytes;
    this.maxBytes = maxBytes;
  }

  /**
   * The plan {@link PerKeyFilters#dedup(org.apache.spark.api.java.JavaSparkContext, String,
   * org.apache.spark.api.java.JavaPairRDD, PerKeyOptions)} takes for the filters saved at {@code
   * path} under the options' broadcast limit (or the one in force, {@link #maxBytes()}): from the
   * file system's listing, no job.
   *
   * @throws IllegalArgumentException if nothing is saved at {@code path}
   */
  public static DedupPlan of(JavaSparkContext jsc, String path, PerKeyOptions options) {
    return new DedupPlan(BroadcastLimit.savedBytes(jsc, path), options.broadcastMaxBytes(jsc));
  }

  /** Whether the filters are broadcast (their saved bytes fit the limit); else they are joined. */
  public boolean isBroadcast() {
    return savedBytes <= maxBytes;
  }

  /** The saved files' total length, in bytes. */
  public long savedBytes() {
    return savedBytes;
  }

  /** The broadcast limit the plan was made under, in bytes. */
  public long maxBytes() {
    return maxBytes;
  }

  /** E.g. "broadcast (saved filters 20,480,000 bytes <= limit 134,217,728)". */
  public String describe() {
    return String.format(Locale.ROOT, "%s (saved filters %,d bytes %s limit %,d, %s)",
        isBroadcast() ? "broadcast" : "join", savedBytes, isBroadcast() ? "<=" : ">", maxBytes,
        BroadcastLimit.CONF_KEY);
  }

  @Override
  public String toString() {
    return describe();
  }
}
