package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.Sizing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The buffer of {@link BuildAggregate} with per-key sizing: a group's sizing (null until the first row brings
 * its p) and every item of the group in a primitive {@code long[]}, because the filter's size is
 * known only once all items are counted ({@link Sizing#build}). Between the aggregate's phases it
 * travels as its raw bytes ({@link #toBytes}): p, the count, the items, 8 bytes each.
 */
final class PerKeyItems extends BuildBuffer {
  private Sizing sizing;
  private long[] items = new long[16];
  private int size;

  /** Sets the sizing from a row's p; every row of a group must bring the same one. */
  void configure(double p) {
    if (sizing == null) {
      sizing = Sizing.perKeyCount(p);
    } else if (sizing.fpp() != p) {
      throw new IllegalArgumentException("the sizing must be the same for every row of a group: got "
          + sizing + " and then " + Sizing.perKeyCount(p));
    }
  }

  @Override
  void add(long item) {
    if (size == items.length) {
      items = Arrays.copyOf(items, size * 2);
    }
    items[size++] = item;
  }

  /** Appends {@code other}'s items (of the same sizing) to this buffer; returns the merged one. */
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
    if (size + other.size > items.length) {
      items = Arrays.copyOf(items, Math.max(size + other.size, size * 2));
    }
    System.arraycopy(other.items, 0, items, size, other.size);
    size += other.size;
    return this;
  }

  /** The FORMAT bytes of the group's filter; null when no row came (an empty global aggregate). */
  @Override
  byte[] buildBytes() {
    if (sizing == null) {
      return null;
    }
    try (BloomFilter f = sizing.build(size == items.length ? items : Arrays.copyOf(items, size))) {
      return f.toByteArray();
    }
  }

  /** p (NaN for no sizing), the item count, then the items. */
  @Override
  byte[] toBytes() {
    ByteBuffer out = ByteBuffer.allocate(12 + 8 * size).order(ByteOrder.LITTLE_ENDIAN);
    out.putDouble(sizing == null ? Double.NaN : sizing.fpp()).putInt(size);
    out.asLongBuffer().put(items, 0, size);
    return out.array();
  }

  /** The buffer {@link #toBytes} wrote. */
  static PerKeyItems fromBytes(byte[] bytes) {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    double p = in.getDouble();
    int n = in.getInt();
    if (n < 0 || 12L + 8L * n != bytes.length) {
      throw new IllegalStateException(BuildAggregate.PER_KEY + ": a partial buffer of "
          + bytes.length + " bytes does not hold " + n + " items");
    }
    PerKeyItems b = new PerKeyItems();
    if (!Double.isNaN(p)) {
      b.sizing = Sizing.perKeyCount(p);
    }
    b.items = new long[Math.max(16, n)];
    in.asLongBuffer().get(b.items, 0, n);
    b.size = n;
    return b;
  }
}
