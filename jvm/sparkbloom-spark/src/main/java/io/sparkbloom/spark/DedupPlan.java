package io.sparkbloom.spark;

import io.sparkbloom.spark.dedup.BroadcastLimit;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How {@link PerKeyFilters#dedup(org.apache.spark.api.java.JavaSparkContext, String,
 * org.apache.spark.api.java.JavaPairRDD)} answers against saved filters: a broadcast of their
 * bytes when the saved files fit the broadcast limit, otherwise a join. From
 * {@link PerKeyFilters#dedupPlan}.
 */
public final class DedupPlan {
  static final Logger LOG = LoggerFactory.getLogger(DedupPlan.class);

  private final long savedBytes;
  private final long maxBytes;

  DedupPlan(long savedBytes, long maxBytes) {
    this.savedBytes = savedBytes;
    this.maxBytes = maxBytes;
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
