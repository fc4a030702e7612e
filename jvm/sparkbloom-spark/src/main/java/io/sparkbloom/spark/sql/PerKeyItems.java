package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.Sizing;
import io.sparkbloom.spark.build.DistinctLongs;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The buffer of {@link BuildAggregate} with per-key sizing: a group's sizing (null until the first
 * row brings its p) and the group's distinct items ({@link DistinctLongs}: duplicates dropped
 * whenever the array fills, so its memory follows the distinct items, not the rows), because the
 * filter's size is known only once they are all counted. The filter is {@code
 * Sizing.perKeyCount(p).withHeadroom(h).build(items)}'s: sized for the distinct count (h = 1 from
 * SQL), holding the same items.
 * Between the aggregate's phases it travels as its raw bytes ({@link #toBytes}): p, the count,
 * the distinct items, 8 bytes each. A group of more distinct items than the aggregate's limit
 * ({@link PerKeyBufferLimit}) fails its task as soon as the buffer finds it, naming the call and
 * the limit (the aggregate does not know its group's key).
 */
final class PerKeyItems extends BuildBuffer {
  /** The call as errors name it. */
  static final String CALL = BuildAggregate.PER_KEY + "(item, p)";
  private static final int HEADER = 12;

  /** The headroom of the filter's sizing ({@link Sizing#withHeadroom}): 1 from SQL. */
  private final double headroom;
  private Sizing sizing;
  private DistinctLongs items;

  /**
   * An empty buffer of at most {@code maxItems} distinct items ({@link PerKeyBufferLimit}), its
   * filter sized with {@code headroom}.
   */
  PerKeyItems(int maxItems, double headroom) {
    this.headroom = headroom;
    items = new DistinctLongs(CALL, maxItems);
  }

  /**
   * Sets the sizing from a row's p; every row of a group must bring the same one.
   *
   * @throws IllegalArgumentException naming the call and p if p is not in (0, 1) or differs from
   *     the group's earlier rows'
   */
  void configure(double p) {
    if (sizing == null) {
      sizing = SqlSizing.perKey(CALL, p).withHeadroom(headroom);
    } else if (sizing.fpp() != p) {
      throw SqlSizing.differs(CALL, "p=" + sizing.fpp(), "p=" + p);
    }
  }

  /** @throws IllegalArgumentException naming the call and the limit if the group passes it */
  @Override
  void add(long item) {
    items.add(item);
  }

  /** Adds {@code other}'s items (of the same sizing) to this buffer; returns the merged one. */
  @Override
  PerKeyItems merge(BuildBuffer buffer) {
    PerKeyItems other = (PerKeyItems) buffer;
    if (other.sizing == null) {
      return this;
    }
    if (sizing == null) {
      return other;
    }
    configure(other.sizing.fpp());
    items.addAll(other.items);
    return this;
  }

  /** The FORMAT bytes of the group's filter; null when no row came (an empty global aggregate). */
  @Override
  byte[] buildBytes() {
    if (sizing == null) {
      return null;
    }
    try (BloomFilter f = items.putInto(sizing.create(items.distinctCount()))) {
      return f.toByteArray();
    }
  }

  /** p (NaN for no sizing), the distinct item count, then the distinct items. */
  @Override
  byte[] toBytes() {
    int count = items.distinctCount();
    ByteBuffer out = items.toBytes(HEADER);
    out.putDouble(0, sizing == null ? Double.NaN : sizing.fpp()).putInt(8, count);
    return out.array();
  }

  /**
   * The buffer {@link #toBytes} wrote, of at most {@code maxItems} distinct items, its filter
   * sized with {@code headroom}.
   *
   * @throws IllegalArgumentException naming the call and the limit if it holds more
   */
  static PerKeyItems fromBytes(byte[] bytes, int maxItems, double headroom) {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    double p = in.getDouble();
    int n = in.getInt();
    if (n < 0 || HEADER + 8L * n != bytes.length) {
      throw new IllegalStateException(CALL + ": a partial buffer of " + bytes.length
          + " bytes does not hold " + n + " items");
    }
    PerKeyItems b = new PerKeyItems(maxItems, headroom);
    if (!Double.isNaN(p)) {
      b.configure(p);
    }
    b.items = DistinctLongs.fromBytes(CALL, in, n, maxItems);
    return b;
  }

  /** The buffer's slots, for tests of its memory bound. */
  int capacity() {
    return items.capacity();
  }
}
