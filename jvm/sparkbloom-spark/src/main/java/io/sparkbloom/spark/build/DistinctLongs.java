package io.sparkbloom.spark.build;

import io.sparkbloom.BloomFilter;
import java.io.IOException;
import java.io.ObjectInputStream;
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
 * <p>At most {@code maxItems} distinct items ({@link PerKeyBufferLimit}): the array never grows
 * past {@code 2 * maxItems} slots, and a compaction that finds more distinct items than that is
 * an overflow, found before the array would grow. A buffer made by the constructor then throws
 * the {@link PerKeyBufferLimit#exceeded} exception at once (the SQL aggregates, which do not know
 * their group's key); one made by {@link #deferringOverflow} drops its items and records the
 * overflow for the caller to report with the key once the group is complete ({@link
 * #overflowed}), so that an overflowed group travels through a shuffle as a few bytes. Reading an
 * overflowed buffer's items ({@link #distinctCount}, {@link #putInto}, {@link #toBytes}) throws:
 * its items are gone. A heap too small for an array within the limit is an {@link
 * IllegalArgumentException} too, with no {@code OutOfMemoryError} chained (Spark stops the
 * executor for an {@code Error} anywhere in a task failure's cause chain).
 *
 * <p>Plain fields: Java serialization and Kryo's field serializer both write it.
 */
public final class DistinctLongs implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The most items one serialized buffer holds: their 8 bytes each, plus a header, fit an array. */
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
  /**
   * The most distinct items held, in [1, {@link PerKeyBufferLimit#MAX}]; 0 in a buffer
   * Java-serialized before the limit existed (a streaming state), read as the default.
   */
  private int maxItems;
  /** Whether an overflow is recorded for the caller ({@link #deferringOverflow}) or thrown. */
  private boolean deferOverflow;
  /** Whether the group had more than {@code maxItems} distinct items: its items are dropped. */
  private boolean overflowed;
  private long[] items;
  private int size;
  /** Whether {@code items[0..size)} is sorted without duplicates. */
  private boolean compacted = true;

  /**
   * An empty buffer of at most {@code maxItems} distinct items, which throws once a group has
   * more; {@code owner} names it in errors (the SQL call, or the API method).
   *
   * @throws IllegalArgumentException unless {@code maxItems} is in [1, {@link
   *     PerKeyBufferLimit#MAX}]
   */
  public DistinctLongs(String owner, int maxItems) {
    this(owner, maxItems, false);
  }

  private DistinctLongs(String owner, int maxItems, boolean deferOverflow) {
    if (maxItems < 1 || maxItems > PerKeyBufferLimit.MAX) {
      throw new IllegalArgumentException(owner + ": maxItems must be in [1, "
          + PerKeyBufferLimit.MAX + "], got " + maxItems);
    }
    this.owner = owner;
    this.maxItems = maxItems;
    this.deferOverflow = deferOverflow;
    this.items = new long[0];
  }

  /**
   * An empty buffer of at most {@code maxItems} distinct items that, for a group with more, drops
   * its items and records the overflow ({@link #overflowed}) instead of throwing: for a caller
   * that names the group's key once the group is complete.
   */
  public static DistinctLongs deferringOverflow(String owner, int maxItems) {
    return new DistinctLongs(owner, maxItems, true);
  }

  /** For Kryo's instantiation of a deserialized buffer: every field is then read. */
  @SuppressWarnings("unused")
  private DistinctLongs() {
    this("", PerKeyBufferLimit.DEFAULT, false);
  }

  /** A buffer serialized before the limit existed gets the default. */
  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (maxItems <= 0) {
      maxItems = PerKeyBufferLimit.DEFAULT;
    }
  }

  /**
   * Adds one item.
   *
   * @throws IllegalArgumentException naming the owner and the limit if the group has more
   *     distinct items than the limit (unless the overflow is deferred), or the heap cannot hold
   *     the grown array
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
    if (other.overflowed) {
      overflow();
      return this;
    }
    return addAll(other.items, other.size);
  }

  private DistinctLongs addAll(long[] batch, int n) {
    int done = 0;
    while (done < n && !overflowed) {
      if (size == items.length) {
        makeRoom();
        if (overflowed) {
          break;
        }
      }
      int k = Math.min(n - done, items.length - size);
      System.arraycopy(batch, done, items, size, k);
      size += k;
      done += k;
      compacted = size <= 1;
    }
    return this;
  }

  /**
   * Whether the group has had more distinct items than the limit (compacting first, so the items
   * added last count too): a deferring buffer's items are then dropped.
   *
   * @throws IllegalArgumentException for a buffer that does not defer, if it overflows now
   */
  public boolean overflowed() {
    if (!overflowed) {
      compact();
    }
    return overflowed;
  }

  /** The limit of distinct items. */
  public int maxItems() {
    return maxItems;
  }

  /**
   * The number of distinct items (compacting the buffer first).
   *
   * @throws IllegalArgumentException if the group overflowed
   */
  public int distinctCount() {
    compactHeld();
    return size;
  }

  /**
   * Puts the distinct items into {@code filter} in one call; returns {@code filter}.
   *
   * @throws IllegalArgumentException if the group overflowed
   */
  public BloomFilter putInto(BloomFilter filter) {
    compactHeld();
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
   *
   * @throws IllegalArgumentException if the group overflowed
   */
  public ByteBuffer toBytes(int offset) {
    compactHeld();
    ByteBuffer out = ByteBuffer.wrap(allocateBytes(offset + 8 * size)).order(ByteOrder.LITTLE_ENDIAN);
    out.position(offset);
    out.asLongBuffer().put(items, 0, size);
    return out.position(0);
  }

  /**
   * The buffer (that throws on overflow) of {@code count} items read as little-endian {@code
   * long}s from {@code in}'s position.
   *
   * @throws IllegalArgumentException if {@code count} is negative or more than {@link
   *     #MAX_ITEMS}, or more than {@code maxItems} (the {@link PerKeyBufferLimit#exceeded} error)
   */
  public static DistinctLongs fromBytes(String owner, ByteBuffer in, int count, int maxItems) {
    if (count < 0 || count > MAX_ITEMS) {
      throw new IllegalArgumentException(owner + ": a serialized buffer of " + count + " items");
    }
    DistinctLongs b = new DistinctLongs(owner, maxItems);
    if (count > maxItems) {
      throw PerKeyBufferLimit.exceeded(owner, "a group", maxItems);
    }
    b.items = b.allocate(Math.max(INITIAL_CAPACITY, count), b.items, 0);
    in.order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(b.items, 0, count);
    b.size = count;
    b.compacted = count <= 1;
    return b;
  }

  /**
   * The slots allocated (8 bytes each): at most four times the distinct items, or {@link
   * #COMPACT_MIN_CAPACITY}, and at most twice the limit.
   */
  public int capacity() {
    return items.length;
  }

  /** The most slots the array takes: twice the limit, so half of it is free after a compaction. */
  private int maxCapacity() {
    return 2 * maxItems;
  }

  /**
   * Makes room for at least one more item in a full array: drops the duplicates (from {@link
   * #COMPACT_MIN_CAPACITY} slots, or at the most slots), then grows the array unless that freed
   * at least half of it. An overflowed buffer forgets what it holds instead.
   */
  private void makeRoom() {
    int capacity = items.length;
    if (!overflowed && (capacity >= COMPACT_MIN_CAPACITY || capacity >= maxCapacity())) {
      compact();
    }
    if (overflowed) {
      size = 0;
      return;
    }
    if (capacity - size < Math.max(1, capacity / 2)) {
      // below maxCapacity here: a compaction at it leaves at most maxItems, half of it
      int grown = (int) Math.min(maxCapacity(), Math.max(2L * capacity, INITIAL_CAPACITY));
      items = allocate(grown, items, size);
    }
  }

  /** Sorts the items and drops duplicates in place, then checks the limit. */
  private void compact() {
    if (!compacted) {
      try {
        Arrays.sort(items, 0, size); // may allocate a second array to merge sorted runs
      } catch (OutOfMemoryError e) {
        throw tooManyForTheHeap(8L * size, e);
      }
      int kept = size == 0 ? 0 : 1;
      for (int i = 1; i < size; i++) {
        if (items[i] != items[kept - 1]) {
          items[kept++] = items[i];
        }
      }
      size = kept;
      compacted = true;
    }
    if (size > maxItems) {
      overflow();
    }
  }

  /** {@link #compact}, refusing an overflowed buffer, whose items are gone. */
  private void compactHeld() {
    if (!overflowed) {
      compact();
    }
    if (overflowed) {
      throw PerKeyBufferLimit.exceeded(owner, "a group", maxItems);
    }
  }

  /** The group has more than {@code maxItems} distinct items: thrown, or recorded and the items dropped. */
  private void overflow() {
    if (!deferOverflow) {
      throw PerKeyBufferLimit.exceeded(owner, "a group", maxItems);
    }
    overflowed = true;
    items = new long[INITIAL_CAPACITY];
    size = 0;
    compacted = true;
  }

  /**
   * A copy of {@code from[0..n)} in a new array of {@code capacity} slots. A heap too small for
   * it (a limit set above what the executors hold) is reported as an {@link
   * IllegalArgumentException}: the failed allocation of this one array leaves the buffer as it
   * was, and Spark would treat the {@code OutOfMemoryError} as fatal to the executor.
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

  /** The error's message names the {@code OutOfMemoryError}, which is not chained: see the class. */
  private IllegalArgumentException tooManyForTheHeap(long bytes, OutOfMemoryError e) {
    return new IllegalArgumentException(owner + ": a group of " + size + " distinct items cannot"
        + " be buffered: " + bytes + " bytes more do not fit in this JVM's heap (" + e + "); lower "
        + PerKeyBufferLimit.KEY + " (now " + maxItems + ") or give the executors more memory, or"
        + " build such groups with a fixed size (SQL sparkbloom_build(item, n, p), or"
        + " Sizing.fixed(n, p)), which needs no buffer");
  }
}
