package io.sparkbloom.spark.sql;

import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkbloom.spark.FilterBuilder;
import io.sparkbloom.spark.StringFilterBuilder;

/**
 * The buffer of {@link BuildAggregate} with fixed sizing ({@code sparkbloom_build(item, n, p)},
 * {@code sparkbloom_build_string(item, n, p)}): a {@link FilterBuilder} or {@link
 * StringFilterBuilder}, which flushes items into the filter in batches. The builder
 * is made by the group's first row, which brings n and p; until then the buffer is empty (a
 * global aggregate over no rows gives null). Between phases it travels as the builder's own
 * serialized form (the one both of its serializers write), or as no bytes while empty.
 */
final class FixedItems extends BuildBuffer {
  private final boolean strings;
  /** Null until the first row; then the builder of the item kind. */
  private FilterBuilder longs;
  private StringFilterBuilder texts;

  FixedItems(boolean strings) {
    this.strings = strings;
  }

  /** The call as errors name it. */
  private String call() {
    return (strings ? BuildAggregate.FIXED_STRING : BuildAggregate.FIXED) + "(item, n, p)";
  }

  /**
   * Sets the sizing from a row's n and p; every row of a group must bring the same ones.
   *
   * @throws IllegalArgumentException naming the call and the argument if {@code
   *     BloomFilter.create(n, p)} refuses them, or if they differ from the group's earlier rows'
   */
  void configure(long n, double p) {
    if (longs == null && texts == null) {
      if (strings) {
        texts = SqlSizing.fixed(call(), n, p, () -> new StringFilterBuilder(n, p));
      } else {
        longs = SqlSizing.fixed(call(), n, p, () -> new FilterBuilder(n, p));
      }
      return;
    }
    requireSameSizing(n, p);
  }

  private long n() {
    return strings ? texts.expectedInsertions() : longs.expectedInsertions();
  }

  private double p() {
    return strings ? texts.fpp() : longs.fpp();
  }

  private void requireSameSizing(long n, double p) {
    if (n() != n || p() != p) {
      throw SqlSizing.differs(call(), "n=" + n() + ", p=" + p(), "n=" + n + ", p=" + p);
    }
  }

  @Override
  void add(long item) {
    longs.add(item);
  }

  @Override
  void add(String item) {
    texts.add(item);
  }

  @Override
  BuildBuffer merge(BuildBuffer buffer) {
    FixedItems other = (FixedItems) buffer;
    if (other.longs == null && other.texts == null) {
      return this;
    }
    if (longs == null && texts == null) {
      return other;
    }
    // rows of one group with different sizing, met in different partitions
    requireSameSizing(other.n(), other.p());
    if (strings) {
      texts = texts.merge(other.texts);
    } else {
      longs = longs.merge(other.longs);
    }
    return this;
  }

  @Override
  byte[] buildBytes() {
    if (strings) {
      return texts == null ? null : texts.buildBytes();
    }
    return longs == null ? null : longs.buildBytes();
  }

  /**
   * The builder's serialized form, written through a Kryo stream: the builders write the same
   * form to Kryo and to Java serialization and use no Kryo instance for it, so none is passed.
   */
  @Override
  byte[] toBytes() {
    if (longs == null && texts == null) {
      return new byte[0];
    }
    Output out = new Output(256, -1);
    if (strings) {
      texts.write(null, out);
    } else {
      longs.write(null, out);
    }
    return out.toBytes();
  }

  /** The buffer {@link #toBytes} wrote. */
  static FixedItems fromBytes(byte[] bytes, boolean strings) {
    FixedItems b = new FixedItems(strings);
    if (bytes.length == 0) {
      return b;
    }
    // a placeholder sizing, replaced by the one read
    if (strings) {
      b.texts = new StringFilterBuilder(1, 0.5);
      b.texts.read(null, new Input(bytes));
    } else {
      b.longs = new FilterBuilder(1, 0.5);
      b.longs.read(null, new Input(bytes));
    }
    return b;
  }
}
