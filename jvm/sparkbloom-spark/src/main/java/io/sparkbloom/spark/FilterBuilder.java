package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.Arrays;

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
public final class FilterBuilder extends BufferedFilterBuilder<FilterBuilder> {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = BufferedFilterBuilder.BATCH;

  private static final int FORM_VERSION = 2;
  private static final long[] EMPTY = new long[0];

  private transient long[] pending = EMPTY;

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

  private FilterBuilder() {
    super();
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  static FilterBuilder unconfigured() {
    return new FilterBuilder();
  }

  /** Adds one item (buffered; flushed in batches). */
  public FilterBuilder add(long item) {
    int slot = nextSlot();
    pending[slot] = item;
    return this;
  }

  /** Adds all items; a batch that does not fit the buffer goes to the native side in one call. */
  public FilterBuilder addAll(long[] items) {
    if (items.length == 0) {
      return this;
    }
    if (size + items.length <= BATCH) {
      if (size + items.length > pending.length) {
        pending = Arrays.copyOf(pending, Math.min(BATCH, Math.max(size + items.length, size * 2)));
      }
      System.arraycopy(items, 0, pending, size, items.length);
      size += items.length;
    } else {
      flushForBatch().putAll(items);
    }
    return this;
  }

  /**
   * Merges {@code other} into this builder and returns this one. Both must have the same sizing
   * (or one of them be an unconfigured, empty SQL zero value). {@code other} must not be used
   * afterwards.
   */
  public FilterBuilder merge(FilterBuilder other) {
    return mergeFrom(other);
  }

  // ---- the typed buffer --------------------------------------------------------------------

  @Override
  int capacity() {
    return pending.length;
  }

  @Override
  void grow(int capacity) {
    pending = Arrays.copyOf(pending, capacity);
  }

  @Override
  void putPending(BloomFilter filter) {
    filter.putAll(size == pending.length ? pending : Arrays.copyOf(pending, size));
  }

  @Override
  void addPendingOf(FilterBuilder other) {
    addAll(other.size == other.pending.length ? other.pending : Arrays.copyOf(other.pending, other.size));
  }

  @Override
  int formVersion() {
    return FORM_VERSION;
  }

  @Override
  void writePending(DataOutput out) throws IOException {
    for (int i = 0; i < size; i++) {
      out.writeLong(pending[i]);
    }
  }

  @Override
  void readPending(DataInput in) throws IOException {
    pending = size == 0 ? EMPTY : new long[Math.max(size, 16)];
    for (int i = 0; i < size; i++) {
      pending[i] = in.readLong();
    }
  }
}
