package io.sparkbloom.spark;

import java.io.Serializable;
import java.util.Arrays;

/**
 * A growable primitive {@code long[]}: groups items per key without boxing, every occurrence kept
 * (the candidates of {@link PerKeyFilters#dedupPairs}, and a counting filter's items, where each
 * occurrence counts). Plain fields, so Java serialization and Kryo's default field serializer
 * both handle it. A key of more items than one Java array holds fails with an {@link
 * IllegalArgumentException} naming the count, never an array index or size overflow, and so does
 * a key whose grown array the heap cannot hold, the {@code OutOfMemoryError} named, not chained
 * (Spark stops an executor for an {@code Error} anywhere in a task failure's cause chain).
 */
public final class LongArrayBuilder implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The most items one builder holds: the largest Java array the JVMs allocate. */
  static final int MAX_ITEMS = Integer.MAX_VALUE - 8;

  private long[] values = new long[0];
  private int size;

  public LongArrayBuilder add(long v) {
    if (size == values.length) {
      values = copyOf(values, grownCapacity(values.length, size + 1L));
    }
    values[size++] = v;
    return this;
  }

  public LongArrayBuilder addAll(LongArrayBuilder other) {
    long required = (long) size + other.size;
    if (required > values.length) {
      values = copyOf(values, grownCapacity(values.length, required));
    }
    System.arraycopy(other.values, 0, values, size, other.size);
    size += other.size;
    return this;
  }

  /**
   * Double {@code capacity}, at least {@code required} (and 8), at most {@link #MAX_ITEMS}.
   *
   * @throws IllegalArgumentException naming the count if {@code required} exceeds {@link #MAX_ITEMS}
   */
  static int grownCapacity(int capacity, long required) {
    if (required > MAX_ITEMS) {
      throw new IllegalArgumentException("a key of " + required + " items does not fit in one"
          + " array (at most " + MAX_ITEMS + ")");
    }
    return (int) Math.min(MAX_ITEMS, Math.max(Math.max(8, required), 2L * capacity));
  }

  /**
   * {@code Arrays.copyOf(values, capacity)}, for a key of more items than {@code values} holds.
   *
   * @throws IllegalArgumentException naming the sizes if the heap cannot hold the copy
   */
  static long[] copyOf(long[] values, int capacity) {
    try {
      return Arrays.copyOf(values, capacity);
    } catch (OutOfMemoryError e) {
      throw new IllegalArgumentException("a key of more than " + values.length + " items cannot be"
          + " grouped: an array of " + capacity + " items does not fit in this JVM's heap (" + e
          + "); give the executors more memory, or split the key's items into several records");
    }
  }

  public int size() {
    return size;
  }

  public long[] toArray() {
    return Arrays.copyOf(values, size);
  }
}
