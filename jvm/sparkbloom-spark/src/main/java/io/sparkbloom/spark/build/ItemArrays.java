package io.sparkbloom.spark.build;

import io.sparkbloom.BloomFilter;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * The two item types a filter takes in batches, {@code long[]} and {@code String[]}, and what the
 * batch paths of this module do with an array of them: put it into a filter in one call, keep the
 * items a filter has not seen, copy it, and write and read it in the builders' serialized forms.
 * One instance per type ({@link #LONGS}, {@link #STRINGS}) lets one generic body (the builders'
 * buffer, the dedup's queries, the SQL functions) serve both while the items stay in their
 * primitive arrays: a {@code long} is never boxed on its way to the native call.
 *
 * @param <A> the array type: {@code long[]} or {@code String[]}
 */
public final class ItemArrays<A> {
  /** {@code long} items: {@link BloomFilter#putAll(long[])}, {@link BloomFilter#retainAbsent(long[])}. */
  public static final ItemArrays<long[]> LONGS = new ItemArrays<>(new long[0]);

  /**
   * String items, hashed as their UTF-8 bytes: {@link BloomFilter#putAll(String[])}, {@link
   * BloomFilter#retainAbsent(String[])} (null items dropped first).
   */
  public static final ItemArrays<String[]> STRINGS = new ItemArrays<>(new String[0]);

  /** An empty array of the type; its class tells the type apart where a call differs. */
  private final A empty;

  private ItemArrays(A empty) {
    this.empty = empty;
  }

  /**
   * The item type of {@code items}, by its class.
   *
   * @param what the operation and argument, for the message, e.g. "dedup: candidates"
   * @throws IllegalArgumentException naming the class unless it is {@code long[]} or {@code String[]}
   */
  @SuppressWarnings("unchecked")
  public static <A> ItemArrays<A> of(A items, String what) {
    if (items instanceof long[]) {
      return (ItemArrays<A>) LONGS;
    }
    if (items instanceof String[]) {
      return (ItemArrays<A>) STRINGS;
    }
    throw new IllegalArgumentException(what + " must be long[] or String[], got "
        + (items == null ? "null" : items.getClass().getName()));
  }

  /** An empty array, shared. */
  public A empty() {
    return empty;
  }

  public int length(A items) {
    return Array.getLength(items);
  }

  /** As {@code Arrays.copyOf}: the first {@code length} items, padded with zeros or nulls. */
  @SuppressWarnings("unchecked")
  public A copyOf(A items, int length) {
    A copy = (A) Array.newInstance(empty.getClass().getComponentType(), length);
    System.arraycopy(items, 0, copy, 0, Math.min(length, length(items)));
    return copy;
  }

  /** {@code items[0..n)}: {@code items} itself when that is all of it, else a copy. */
  public A prefix(A items, int n) {
    return n == length(items) ? items : copyOf(items, n);
  }

  /** Puts every item into {@code filter} in one call; the caller has refused null items. */
  public void putAll(BloomFilter filter, A items) {
    if (items instanceof long[]) {
      filter.putAll((long[]) items);
    } else {
      filter.putAll((String[]) items);
    }
  }

  /** The items {@code filter} has certainly not seen, in order, in one call; null items dropped. */
  @SuppressWarnings("unchecked")
  public A retainAbsent(BloomFilter filter, A items) {
    return items instanceof long[]
        ? (A) filter.retainAbsent((long[]) items)
        : (A) filter.retainAbsent(NullItems.withoutNulls((String[]) items));
  }

  /** @throws NullPointerException if an item is null (before anything is put) */
  public void requireNoNull(A items) {
    if (items instanceof Object[]) {
      for (Object item : (Object[]) items) {
        Objects.requireNonNull(item, "item is null");
      }
    }
  }

  /** Lets go of {@code items[0..n)} once they are in a filter, so flushed strings can be collected. */
  public void release(A items, int n) {
    if (items instanceof Object[]) {
      Arrays.fill((Object[]) items, 0, n, null);
    }
  }

  /** Writes {@code items[0..n)} as a builder's serialized form holds them. */
  public void write(DataOutput out, A items, int n) throws IOException {
    if (items instanceof long[]) {
      writeLongs(out, (long[]) items, n);
    } else {
      writeStrings(out, (String[]) items, n);
    }
  }

  /**
   * Reads {@code n} items written by {@link #write} into a new array of at least 16 slots.
   *
   * @param reader the class reading them, for the message of a malformed item
   */
  public A read(DataInput in, int n, String reader) throws IOException {
    if (n == 0) {
      return empty;
    }
    A items = copyOf(empty, Math.max(n, 16));
    if (items instanceof long[]) {
      readLongs(in, (long[]) items, n);
    } else {
      readStrings(in, (String[]) items, n, reader);
    }
    return items;
  }

  /** A {@code long} as its 8 big-endian bytes. */
  private static void writeLongs(DataOutput out, long[] items, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      out.writeLong(items[i]);
    }
  }

  private static void readLongs(DataInput in, long[] into, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      into[i] = in.readLong();
    }
  }

  /**
   * A string as an {@code int} length and its UTF-8 bytes, exactly what will be hashed: an
   * unpaired surrogate becomes {@code '?'} here as it does in {@code put(String)}, so the filter
   * is the same whether or not the buffer was serialized on the way.
   */
  private static void writeStrings(DataOutput out, String[] items, int n) throws IOException {
    for (int i = 0; i < n; i++) {
      byte[] utf8 = items[i].getBytes(StandardCharsets.UTF_8);
      out.writeInt(utf8.length);
      out.write(utf8);
    }
  }

  private static void readStrings(DataInput in, String[] into, int n, String reader) throws IOException {
    for (int i = 0; i < n; i++) {
      int length = in.readInt();
      if (length < 0) {
        throw new InvalidObjectException(reader + ": pending item " + i + " has negative length " + length);
      }
      byte[] utf8 = new byte[length];
      in.readFully(utf8);
      into[i] = new String(utf8, StandardCharsets.UTF_8);
    }
  }
}
