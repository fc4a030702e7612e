package io.sparkbloom.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkbloom.BloomFilter;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
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
 * (Java serialization wraps them in its block-data records.) Not thread-safe: one builder belongs
 * to one task, as every Spark aggregation buffer does.
 */
public final class FilterBuilder implements Serializable, KryoSerializable {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = 4096;

  private static final int FORM_VERSION = 2;
  private static final long[] EMPTY = new long[0];
  /** The sizing of the SQL aggregate's zero before its first row: an n the core rejects. */
  private static final long UNCONFIGURED = -1;

  /** Expected insertions, or {@link #UNCONFIGURED} (the SQL aggregate reads it from the first row). */
  private transient long expectedInsertions;
  private transient double fpp;
  private transient long[] pending = EMPTY;
  private transient int size;
  /** Null until more than {@link #BATCH} items arrived. */
  private transient BloomFilter filter;

  /**
   * A builder for a filter sized for {@code expectedInsertions} items at false-positive rate
   * {@code fpp}.
   *
   * @throws IllegalArgumentException as {@link BloomFilter#create(long, double)} throws it for
   *     these arguments
   */
  public FilterBuilder(long expectedInsertions, double fpp) {
    validate(expectedInsertions, fpp);
    this.expectedInsertions = expectedInsertions;
    this.fpp = fpp;
  }

  private FilterBuilder() {
    this.expectedInsertions = UNCONFIGURED;
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  static FilterBuilder unconfigured() {
    return new FilterBuilder();
  }

  /**
   * Checks (n, p) by the core's own rules, before any task runs: creates the filter that
   * {@link BloomFilter#create(long, double)} would and frees it at once. Its bit array is zeroed
   * memory that the allocator maps lazily and nothing touches, so even a large filter costs no
   * RAM here.
   *
   * @throws IllegalArgumentException naming the argument that the core rejects
   */
  static void validate(long expectedInsertions, double fpp) {
    BloomFilter.create(expectedInsertions, fpp).close();
  }

  boolean isConfigured() {
    return expectedInsertions != UNCONFIGURED;
  }

  /** Sets the sizing of an unconfigured builder; a configured one must get the same values. */
  FilterBuilder configure(long expectedInsertions, double fpp) {
    if (!isConfigured()) {
      validate(expectedInsertions, fpp);
      this.expectedInsertions = expectedInsertions;
      this.fpp = fpp;
    } else if (this.expectedInsertions != expectedInsertions || this.fpp != fpp) {
      throw new IllegalArgumentException(
          "n and p must be the same for every row of a group: got (n=" + this.expectedInsertions
              + ", p=" + this.fpp + ") and then (n=" + expectedInsertions + ", p=" + fpp + ")");
    }
    return this;
  }

  public long expectedInsertions() {
    return expectedInsertions;
  }

  public double fpp() {
    return fpp;
  }

  /** Adds one item (buffered; flushed in batches). */
  public FilterBuilder add(long item) {
    if (size == pending.length) {
      if (size >= BATCH) {
        flush();
      } else {
        pending = Arrays.copyOf(pending, Math.min(BATCH, Math.max(16, size * 2)));
      }
    }
    pending[size++] = item;
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
      flush();
      ensureFilter().putAll(items);
    }
    return this;
  }

  /**
   * Merges {@code other} into this builder and returns this one. Both must have the same sizing
   * (or one of them be an unconfigured, empty SQL zero value). {@code other} must not be used
   * afterwards.
   */
  public FilterBuilder merge(FilterBuilder other) {
    if (!other.isConfigured()) {
      return this;
    }
    if (!isConfigured()) {
      return other;
    }
    if (expectedInsertions != other.expectedInsertions || fpp != other.fpp) {
      throw new IllegalArgumentException(
          "cannot merge filters of different sizing: (n=" + expectedInsertions + ", p=" + fpp
              + ") and (n=" + other.expectedInsertions + ", p=" + other.fpp + ")");
    }
    if (other.filter != null) {
      if (filter == null) {
        // adopt the other's filter, then replay our pending items into it
        filter = other.filter;
        other.filter = null;
      } else {
        filter.merge(other.filter);
      }
    }
    if (other.size > 0) {
      addAll(other.size == other.pending.length ? other.pending
          : Arrays.copyOf(other.pending, other.size));
    }
    return this;
  }

  /**
   * Returns the filter holding every item added so far. The builder hands the filter over:
   * it must not be used afterwards.
   */
  public BloomFilter build() {
    if (!isConfigured()) {
      throw new IllegalStateException("the builder has no sizing (n, p): no row was aggregated");
    }
    flush();
    BloomFilter out = ensureFilter();
    filter = null;
    return out;
  }

  /** {@link #build()} and then the FORMAT bytes of the filter; frees the native filter at once. */
  public byte[] buildBytes() {
    try (BloomFilter f = build()) {
      return f.toByteArray();
    }
  }

  private BloomFilter ensureFilter() {
    if (filter == null) {
      filter = BloomFilter.create(expectedInsertions, fpp);
    }
    return filter;
  }

  private void flush() {
    if (size == 0) {
      return;
    }
    ensureFilter().putAll(size == pending.length ? pending : Arrays.copyOf(pending, size));
    size = 0;
  }

  // ---- serialization: one form, written through DataOutput by both serializers ---------------

  private void writeForm(DataOutput out) throws IOException {
    out.writeInt(FORM_VERSION);
    out.writeLong(expectedInsertions);
    out.writeDouble(fpp);
    out.writeInt(size);
    for (int i = 0; i < size; i++) {
      out.writeLong(pending[i]);
    }
    byte[] bytes = filter == null ? null : filter.toByteArray();
    out.writeInt(bytes == null ? -1 : bytes.length);
    if (bytes != null) {
      out.write(bytes);
    }
  }

  private void readForm(DataInput in) throws IOException {
    int version = in.readInt();
    if (version != FORM_VERSION) {
      throw new InvalidObjectException("FilterBuilder: unknown serialized form version " + version
          + " (expected " + FORM_VERSION + ")");
    }
    expectedInsertions = in.readLong();
    fpp = in.readDouble();
    size = in.readInt();
    if (size < 0 || size > BATCH) {
      throw new InvalidObjectException("FilterBuilder: " + size + " pending items, expected 0 to " + BATCH);
    }
    pending = size == 0 ? EMPTY : new long[Math.max(size, 16)];
    for (int i = 0; i < size; i++) {
      pending[i] = in.readLong();
    }
    int length = in.readInt();
    if (length < -1) {
      throw new InvalidObjectException("FilterBuilder: negative filter length " + length);
    }
    filter = null;
    if (length >= 0) {
      byte[] bytes = new byte[length];
      in.readFully(bytes);
      filter = BloomFilter.fromByteArray(bytes);
    }
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    writeForm(out);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    readForm(in);
  }

  @Override
  public void write(Kryo kryo, Output out) {
    try {
      writeForm(new DataOutputStream(out));
    } catch (IOException e) {
      throw new KryoException("FilterBuilder: " + e.getMessage(), e);
    }
  }

  @Override
  public void read(Kryo kryo, Input in) {
    try {
      readForm(new DataInputStream(in));
    } catch (IOException e) {
      throw new KryoException("FilterBuilder: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "FilterBuilder(n=" + expectedInsertions + ", p=" + fpp + ", pending=" + size
        + ", nativeFilter=" + (filter != null) + ")";
  }
}
