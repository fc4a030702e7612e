package io.sparkbloom.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkbloom.BloomFilter;
import java.io.IOException;
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
 * <p>Both serializers write the same compact form ({@code writeObject} for Java serialization,
 * {@link KryoSerializable} for Kryo, with or without the registrator). Not thread-safe: one
 * builder belongs to one task, as every Spark aggregation buffer does.
 */
public final class FilterBuilder implements Serializable, KryoSerializable {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = 4096;

  private static final int FORM_VERSION = 1;
  private static final long[] EMPTY = new long[0];

  /** Expected insertions; 0 while unconfigured (the SQL aggregate reads it from the first row). */
  private transient long expectedInsertions;
  private transient double fpp;
  private transient long[] pending;
  private transient int size;
  /** Null until more than {@link #BATCH} items arrived. */
  private transient BloomFilter filter;

  /** A builder for a filter sized for {@code expectedInsertions} items at false-positive rate {@code fpp}. */
  public FilterBuilder(long expectedInsertions, double fpp) {
    checkSizing(expectedInsertions, fpp);
    this.expectedInsertions = expectedInsertions;
    this.fpp = fpp;
    this.pending = EMPTY;
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  static FilterBuilder unconfigured() {
    FilterBuilder b = new FilterBuilder(1, 0.5);
    b.expectedInsertions = 0;
    b.fpp = 0;
    return b;
  }

  static void checkSizing(long expectedInsertions, double fpp) {
    if (expectedInsertions <= 0) {
      throw new IllegalArgumentException(
          "expectedInsertions must be positive, got " + expectedInsertions);
    }
    if (!(fpp > 0.0 && fpp < 1.0)) {
      throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
    }
  }

  boolean isConfigured() {
    return expectedInsertions > 0;
  }

  /** Sets the sizing of an unconfigured builder; a configured one must get the same values. */
  FilterBuilder configure(long expectedInsertions, double fpp) {
    if (!isConfigured()) {
      checkSizing(expectedInsertions, fpp);
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

  // ---- serialization: one compact form for Java serialization and Kryo -------------------------
  // int version, long n, double p, int size, size x long, int filterLength (-1: none), bytes

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
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

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    checkVersion(in.readInt());
    expectedInsertions = in.readLong();
    fpp = in.readDouble();
    size = in.readInt();
    pending = size == 0 ? EMPTY : new long[Math.max(size, 16)];
    for (int i = 0; i < size; i++) {
      pending[i] = in.readLong();
    }
    int len = in.readInt();
    if (len >= 0) {
      byte[] bytes = new byte[len];
      in.readFully(bytes);
      filter = BloomFilter.fromByteArray(bytes);
    }
  }

  @Override
  public void write(Kryo kryo, Output out) {
    out.writeInt(FORM_VERSION);
    out.writeLong(expectedInsertions);
    out.writeDouble(fpp);
    out.writeInt(size, true);
    for (int i = 0; i < size; i++) {
      out.writeLong(pending[i]);
    }
    byte[] bytes = filter == null ? null : filter.toByteArray();
    out.writeInt(bytes == null ? 0 : bytes.length + 1, true);
    if (bytes != null) {
      out.writeBytes(bytes);
    }
  }

  @Override
  public void read(Kryo kryo, Input in) {
    try {
      checkVersion(in.readInt());
    } catch (IOException e) {
      throw new KryoException(e.getMessage(), e);
    }
    expectedInsertions = in.readLong();
    fpp = in.readDouble();
    size = in.readInt(true);
    pending = size == 0 ? EMPTY : in.readLongs(size);
    int lenPlusOne = in.readInt(true);
    try {
      filter = lenPlusOne == 0 ? null : BloomFilter.fromByteArray(in.readBytes(lenPlusOne - 1));
    } catch (IOException e) {
      throw new KryoException("FilterBuilder: " + e.getMessage(), e);
    }
  }

  private static void checkVersion(int version) throws IOException {
    if (version != FORM_VERSION) {
      throw new java.io.InvalidObjectException(
          "FilterBuilder: unknown serialized form version " + version + " (expected "
              + FORM_VERSION + ")");
    }
  }

  @Override
  public String toString() {
    return "FilterBuilder(n=" + expectedInsertions + ", p=" + fpp + ", pending=" + size
        + ", nativeFilter=" + (filter != null) + ")";
  }
}
