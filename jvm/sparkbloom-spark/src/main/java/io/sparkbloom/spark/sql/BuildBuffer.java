package io.sparkbloom.spark.sql;

/**
 * The aggregation buffer of {@link BuildAggregate}, one kind per sizing: {@link PerKeyItems}
 * gathers a group's distinct {@code long} items, because a per-key filter's size is known only
 * once they are all counted; {@link FixedItems} holds a fixed-size filter's builder, which flushes items into
 * the native filter in batches, so its size stays bounded by the filter's. Between the aggregate's
 * phases a buffer travels as the bytes of {@link #toBytes}, read back by the kind's {@code
 * fromBytes}.
 */
abstract class BuildBuffer {
  /** Adds one non-null {@code long} item. */
  abstract void add(long item);

  /**
   * Adds one non-null string item.
   *
   * @throws UnsupportedOperationException unless the buffer takes strings
   */
  void add(String item) {
    throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no string items");
  }

  /** Merges {@code other}, a buffer of the same kind; returns the buffer holding both. */
  abstract BuildBuffer merge(BuildBuffer other);

  /** The FORMAT.md bytes of the group's filter; null when no row came (an empty global aggregate). */
  abstract byte[] buildBytes();

  /** The buffer as the bytes its kind's {@code fromBytes} reads. */
  abstract byte[] toBytes();
}
