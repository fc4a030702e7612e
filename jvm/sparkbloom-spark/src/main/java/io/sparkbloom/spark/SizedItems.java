package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.DistinctLongs;
import java.io.Serializable;

/**
 * The aggregation buffer of the per-key-sized build aggregate (public only because Spark's
 * {@code Encoders.javaSerialization} requires it) ({@link SizedBuildAggregator}):
 * the group's distinct items ({@link DistinctLongs}: a primitive {@code long[]} whose duplicates
 * are dropped whenever it fills, so its memory follows the distinct items, not the rows), because
 * the filter's size is known only once all items are counted. {@link #buildBytes()} creates the
 * filter for their count and inserts them in one native call.
 *
 * <p>The sizing is null in the SQL aggregate's zero value until the first row brings its fpp.
 * A group of more distinct items than the aggregate's limit ({@code PerKeyBufferLimit}) fails
 * its task naming the aggregate and the limit.
 */
public final class SizedItems implements Serializable {
  private static final long serialVersionUID = 1L;

  private Sizing sizing;
  private DistinctLongs items;

  /** An empty buffer of at most {@code maxItems} distinct items. */
  SizedItems(Sizing sizing, int maxItems) {
    this.sizing = sizing;
    this.items = new DistinctLongs(BloomFunctions.BUILD_PER_KEY, maxItems);
  }

  Sizing sizing() {
    return sizing;
  }

  /** Sets the sizing of an unconfigured buffer; a configured one must get the same sizing. */
  SizedItems configure(Sizing s) {
    if (sizing == null) {
      sizing = s;
    } else if (!sizing.equals(s)) {
      throw new IllegalArgumentException(
          "the sizing must be the same for every row of a group: got " + sizing + " and then " + s);
    }
    return this;
  }

  SizedItems add(long item) {
    items.add(item);
    return this;
  }

  /** Merges {@code other} into this buffer (or returns {@code other} if this one is empty). */
  SizedItems merge(SizedItems other) {
    if (other.sizing == null) {
      return this;
    }
    if (sizing == null) {
      return other;
    }
    configure(other.sizing);
    items.addAll(other.items);
    return this;
  }

  /** The FORMAT bytes of the group's filter; null for an unconfigured buffer (no row). */
  byte[] buildBytes() {
    if (sizing == null) {
      return null;
    }
    try (BloomFilter f = items.putInto(sizing.create(items.distinctCount()))) {
      return f.toByteArray();
    }
  }
}
