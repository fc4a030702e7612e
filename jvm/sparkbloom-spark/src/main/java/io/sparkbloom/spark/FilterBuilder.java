package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.ItemArrays;
import java.io.DataOutput;

/**
 * The aggregation buffer behind {@link PerKeyFilters#buildPerKey} and the {@code sparkbloom_build}
 * aggregate: items are buffered in a primitive {@code long[]} and reach the native filter in
 * batches of {@value #BATCH} through one {@link BloomFilter#putAll(long[])} call each, never one
 * JNI call per record.
 *
 * <p>A key with few items (fewer than {@value #BATCH}) never allocates a native filter until
 * {@link #build()}: its buffer is what Spark shuffles, 8 bytes per item, and merging two such
 * buffers is an array copy. Past {@value #BATCH} items the buffer is flushed into a native filter,
 * so the size stays bounded by the filter size for keys with many items; such a builder is
 * serialized as the filter's FORMAT bytes plus the pending items.
 *
 * <p>Java serialization ({@code writeObject}) and Kryo ({@link KryoSerializable}, with or without
 * the registrator) write the same bytes, big-endian as {@link DataOutput} writes them:
 *
 * <pre>
 * int    form version (2)
 * long   expected insertions n (-1: unconfigured, the SQL aggregate's zero)
 * double fpp p
 * int    count of pending items
 * long   pending items, count of them
 * int    length of the native filter's bytes (-1: no native filter yet)
 * byte   the filter's FORMAT.md bytes, length of them
 * </pre>
 *
 * (Java serialization wraps them in its block-data records; the shared parts live in {@code
 * BufferedFilterBuilder}.) Not thread-safe: one builder belongs
 * to one task, as every Spark aggregation buffer does.
 */
public final class FilterBuilder extends BufferedFilterBuilder<FilterBuilder, long[]> {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = BufferedFilterBuilder.BATCH;

  private static final int FORM_VERSION = 2;

  /**
   * A builder for a filter sized for {@code expectedInsertions} items at false-positive rate
   * {@code fpp}.
   *
   * @throws IllegalArgumentException as {@link BloomFilter#create(long, double)} throws it for
   *     these arguments
   */
  public FilterBuilder(long expectedInsertions, double fpp) {
    super(expectedInsertions, fpp);
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  FilterBuilder() {}

  /** Adds one item (buffered; flushed in batches). */
  public FilterBuilder add(long item) {
    int slot = nextSlot();
    pending[slot] = item;
    return this;
  }

  // ---- the item type and the form ---------------------------------------------------------

  @Override
  ItemArrays<long[]> items() {
    return ItemArrays.LONGS;
  }

  @Override
  int formVersion() {
    return FORM_VERSION;
  }
}
