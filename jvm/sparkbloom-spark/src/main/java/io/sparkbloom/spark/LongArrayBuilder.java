package io.sparkbloom.spark;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A growable primitive {@code long[]}: groups candidate items per key without boxing (the
 * aggregation buffer of {@link PerKeyFilters#dedupPairs}). Plain fields, so Java serialization
 * and Kryo's default field serializer both handle it.
 */
public final class LongArrayBuilder implements Serializable {
  private static final long serialVersionUID = 1L;

  private long[] values = new long[0];
  private int size;

  public LongArrayBuilder add(long v) {
    if (size == values.length) {
      values = Arrays.copyOf(values, Math.max(8, size * 2));
    }
    values[size++] = v;
    return this;
  }

  public LongArrayBuilder addAll(LongArrayBuilder other) {
    if (size + other.size > values.length) {
      values = Arrays.copyOf(values, Math.max(size + other.size, size * 2));
    }
    System.arraycopy(other.values, 0, values, size, other.size);
    size += other.size;
    return this;
  }

  public int size() {
    return size;
  }

  public long[] toArray() {
    return Arrays.copyOf(values, size);
  }
}
