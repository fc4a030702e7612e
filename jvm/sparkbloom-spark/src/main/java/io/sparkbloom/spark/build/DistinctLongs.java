package io.sparkbloom.spark.build;

import io.sparkbloom.BloomFilter;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A group's {@code long} items for per-key sizing, which needs only the distinct ones (their
 * count sizes the filter; a duplicate sets the same bits again). When an array of {@link
 * #COMPACT_MIN_CAPACITY} slots or more fills, it is sorted and its duplicates are dropped in
 * place; it grows (doubling) only if more than half of it is still distinct items. Its memory
 * therefore follows the distinct items, under four times their count (8 bytes each) or 8 KiB,
 * however many rows repeat them: 10<sup>8</sup> rows of 10 distinct items take 1,024 slots. A
 * compaction follows at least half an array of new items, so sorting costs O(log n) per item.
 *
 * <p>At most {@link #MAX_ITEMS} distinct items, so that their serialized form ({@link #toBytes})
 * fits in one Java array. Beyond that, or if the heap cannot hold the grown array, adding fails
 * with an {@link IllegalArgumentException} naming the owner (the SQL function) and the count:
 * Spark fails the task for an exception, where an {@code OutOfMemoryError} stops the executor.
 * Plain fields: Java serialization and Kryo's field serializer both write it.
 */
public final class DistinctLongs implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The most distinct items one buffer holds: their 8 bytes each, plus a header, fit an array. */
  public static final int MAX_ITEMS = (Integer.MAX_VALUE - 64) / 8;

  /**
   * The first array's slots, allocated by the first item: an empty buffer is the zero value that
   * Spark's {@code aggregateByKey} deserializes once per key, so it holds none.
   */
  private static final int INITIAL_CAPACITY = 16;

  /**
   * Below this many slots (8 KiB) a full array just grows: a typical group (a user's few hundred
   * items) is then sorted once, at the end, instead of at every doubling.
   */
  public static final int COMPACT_MIN_CAPACITY = 1024;

  /** Names the buffer in errors, e.g. "sparkbloom_build_per_key(item, p)". */
  private String owner;
  private long[] items;
  private int size;
  /** Whether {@code items[0..size)} is sorted without duplicates. */
  private boolean compacted = true;

  /** An empty buffer; {@code owner} names it in errors (the SQL call, or the API method). */
  public DistinctLongs(String owner) {
    this(owner, 0);
  }

  private DistinctLongs(String owner, int capacity) {
    this.owner = owner;
    this.items = new long[capacity];
  }

  /** For Kryo's instantiation of a deserialized buffer: every field is then read. */
  @SuppressWarnings("unused")
  private DistinctLongs() {
    this("", 0);
  }

  /**
   * Adds one item.
   *
   * @throws IllegalArgumentException naming the owner and the count if the distinct items cannot
   *     be buffered
   */
  public DistinctLongs add(long item) {
    if (size == items.length) {
      makeRoom();
    }
    items[size++] = item;
    compacted = size == 1;
    return this;
  }

  /** Adds every item of {@code batch}. */
  public DistinctLongs addAll(long[] batch) {
    return addAll(batch, batch.length);
  }

  /** Adds {@code other}'s items; {@code other} is not modified. */
  public DistinctLongs addAll(DistinctLongs other) {
    return addAll(other.items, other.size);
  }

  private DistinctLongs addAll(long[] batch, int n) {
    int done = 0;
    while (done < n) {
      if (size == items.length) {
        makeRoom();
      }
      int k = Math.min(n - done, items.length - size);
      System.arraycopy(batch, done, items, size, k);
      size += k;
      done += k;
      compacted = size <= 1;
    }
    return this;
  }

  /** The number of distinct items (compacting the buffer first). */
  public int distinctCount() {
    compact();
    return size;
  }

  /** Puts the distinct items into {@code filter} in one call; returns {@code filter}. */
  public BloomFilter putInto(BloomFilter filter) {
    compact();
    if (size > 0) {
      filter.putAll(items, 0, size);
    }
    return filter;
  }

  /**
   * The distinct items as little-endian {@code long}s from byte {@code offset} of a new array of
   * {@code offset + 8 * distinctCount()} bytes (at most {@code offset + 8 * MAX_ITEMS}, within an
   * array's limit for an offset below 64); the caller writes its header into the first {@code
   * offset} bytes of the returned little-endian buffer, whose position is 0.
   */
  public ByteBuffer toBytes(int offset) {
    compact();
    ByteBuffer out = ByteBuffer.wrap(allocateBytes(offset + 8 * size)).order(ByteOrder.LITTLE_ENDIAN);
    out.position(offset);
    out.asLongBuffer().put(items, 0, size);
    return out.position(0);
  }

  /**
   * The buffer of {@code count} items read as little-endian {@code long}s from {@code in}'s
   * position.
   *
   * @throws IllegalArgumentException if {@code count} is negative or more than {@link #MAX_ITEMS}
   */
  public static DistinctLongs fromBytes(String owner, ByteBuffer in, int count) {
    if (count < 0 || count > MAX_ITEMS) {
      throw new IllegalArgumentException(owner + ": a serialized buffer of " + count + " items");
    }
    DistinctLongs b = new DistinctLongs(owner, Math.max(INITIAL_CAPACITY, count));
    in.order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(b.items, 0, count);
    b.size = count;
    b.compacted = count <= 1;
    return b;
  }

  /**
   * The slots allocated (8 bytes each): at most four times the distinct items, or {@link
   * #COMPACT_MIN_CAPACITY}.
   */
  public int capacity() {
    return items.length;
  }

  /**
   * Makes room for at least one more item in a full array: drops the duplicates (from {@link
   * #COMPACT_MIN_CAPACITY} slots), then grows the array unless that freed at least half of it.
   */
  private void makeRoom() {
    if (items.length >= COMPACT_MIN_CAPACITY) {
      compact();
    }
    if (items.length - size < Math.max(1, items.length / 2)) {
      int capacity = grownCapacity(items.length, size + 1L, owner);
      if (capacity > items.length) {
        items = allocate(capacity, items, size);
      }
    }
  }

  /**
   * The capacity after growing from {@code capacity} to hold {@code required} items: double, at
   * least {@code required} and the first array's, at most {@link #MAX_ITEMS}.
   *
   * @throws IllegalArgumentException naming {@code owner} and the count if {@code required} is
   *     more than {@link #MAX_ITEMS}
   */
  static int grownCapacity(int capacity, long required, String owner) {
    if (required > MAX_ITEMS) {
      throw new IllegalArgumentException(owner + ": a group of " + required + " distinct items"
          + " cannot be buffered; per-key sizing buffers at most " + MAX_ITEMS + " distinct items"
          + " per group (use fixed sizing for larger groups)");
    }
    return (int) Math.min(MAX_ITEMS, Math.max(Math.max(required, 2L * capacity), INITIAL_CAPACITY));
  }

  /** Sorts the items and drops duplicates in place. */
  private void compact() {
    if (compacted) {
      return;
    }
    Arrays.sort(items, 0, size);
    int kept = size == 0 ? 0 : 1;
    for (int i = 1; i < size; i++) {
      if (items[i] != items[kept - 1]) {
        items[kept++] = items[i];
      }
    }
    size = kept;
    compacted = true;
  }

  /**
   * A copy of {@code from[0..n)} in a new array of {@code capacity} slots. A heap too small for
   * it is reported as an {@link IllegalArgumentException}: the failed allocation of this one
   * array leaves the buffer as it was, and Spark would treat the {@code OutOfMemoryError} as
   * fatal to the executor.
   */
  private long[] allocate(int capacity, long[] from, int n) {
    try {
      long[] grown = new long[capacity];
      System.arraycopy(from, 0, grown, 0, n);
      return grown;
    } catch (OutOfMemoryError e) {
      throw tooManyForTheHeap(8L * capacity, e);
    }
  }

  private byte[] allocateBytes(int length) {
    try {
      return new byte[length];
    } catch (OutOfMemoryError e) {
      throw tooManyForTheHeap(length, e);
    }
  }

  private IllegalArgumentException tooManyForTheHeap(long bytes, OutOfMemoryError e) {
    IllegalArgumentException tooMany = new IllegalArgumentException(owner + ": a group of "
        + size + " distinct items cannot be buffered: " + bytes + " bytes more do not fit in"
        + " this JVM's heap (give the executors more memory, or use fixed sizing)");
    tooMany.initCause(e);
    return tooMany;
  }
}
