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
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@link FilterBuilder}'s twin for string items: the aggregation buffer behind {@link
 * PerKeyFilters#buildPerKeyStrings} and the {@code sparkbloom_build_string} aggregate. Items are
 * buffered in a {@code String[]} and reach the native filter in batches of {@value #BATCH}
 * through one {@link BloomFilter#putAll(String[])} call each, hashed as {@link
 * BloomFilter#put(String)} hashes them (their UTF-8 bytes, as Guava's {@code
 * Funnels.stringFunnel(UTF_8)}).
 *
 * <p>A key with fewer than {@value #BATCH} items never allocates a native filter until {@link
 * #build()}. Java serialization and Kryo write the same big-endian form:
 *
 * <pre>
 * int    form version (1)
 * long   expected insertions n (-1: unconfigured, the SQL aggregate's zero)
 * double fpp p
 * int    count of pending items
 *        per pending item: int length, then that many bytes, its UTF-8 encoding
 * int    length of the native filter's bytes (-1: no native filter yet)
 * byte   the filter's FORMAT.md bytes, length of them
 * </pre>
 *
 * A pending item travels as its UTF-8 bytes, exactly what will be hashed: an unpaired surrogate
 * becomes {@code '?'} there as it does in {@code put(String)}, so the filter is the same whether
 * or not the buffer was serialized on the way. Not thread-safe (one builder per task).
 */
public final class StringFilterBuilder implements Serializable, KryoSerializable {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = FilterBuilder.BATCH;

  private static final int FORM_VERSION = 1;
  private static final String[] EMPTY = new String[0];
  private static final long UNCONFIGURED = -1;

  private transient long expectedInsertions;
  private transient double fpp;
  private transient String[] pending = EMPTY;
  private transient int size;
  /** Null until more than {@link #BATCH} items arrived. */
  private transient BloomFilter filter;

  /**
   * A builder for a filter sized for {@code expectedInsertions} items at false-positive rate
   * {@code fpp}.
   *
   * @throws IllegalArgumentException as {@link BloomFilter#create(long, double)} throws it
   */
  public StringFilterBuilder(long expectedInsertions, double fpp) {
    FilterBuilder.validate(expectedInsertions, fpp);
    this.expectedInsertions = expectedInsertions;
    this.fpp = fpp;
  }

  private StringFilterBuilder() {
    this.expectedInsertions = UNCONFIGURED;
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  static StringFilterBuilder unconfigured() {
    return new StringFilterBuilder();
  }

  boolean isConfigured() {
    return expectedInsertions != UNCONFIGURED;
  }

  /** Sets the sizing of an unconfigured builder; a configured one must get the same values. */
  StringFilterBuilder configure(long expectedInsertions, double fpp) {
    if (!isConfigured()) {
      FilterBuilder.validate(expectedInsertions, fpp);
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

  /**
   * Adds one item (buffered; flushed in batches).
   *
   * @throws NullPointerException if {@code item} is null
   */
  public StringFilterBuilder add(String item) {
    if (item == null) {
      throw new NullPointerException("item is null");
    }
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

  /**
   * Adds all items; a batch that does not fit the buffer goes to the native side in one call.
   *
   * @throws NullPointerException if an item is null
   */
  public StringFilterBuilder addAll(String[] items) {
    if (items.length == 0) {
      return this;
    }
    if (size + items.length <= BATCH) {
      for (String item : items) {
        add(item);
      }
    } else {
      flush();
      ensureFilter().putAll(items);
    }
    return this;
  }

  /**
   * Merges {@code other} into this builder and returns this one (same sizing, or one of them an
   * unconfigured, empty SQL zero value). {@code other} must not be used afterwards.
   */
  public StringFilterBuilder merge(StringFilterBuilder other) {
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
        filter = other.filter;
        other.filter = null;
      } else {
        filter.merge(other.filter);
      }
    }
    if (other.size > 0) {
      addAll(Arrays.copyOf(other.pending, other.size));
    }
    return this;
  }

  /** The filter holding every item added so far; the builder must not be used afterwards. */
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
    Arrays.fill(pending, 0, size, null);
    size = 0;
  }

  // ---- serialization -------------------------------------------------------------------------

  private void writeForm(DataOutput out) throws IOException {
    out.writeInt(FORM_VERSION);
    out.writeLong(expectedInsertions);
    out.writeDouble(fpp);
    out.writeInt(size);
    for (int i = 0; i < size; i++) {
      byte[] utf8 = pending[i].getBytes(StandardCharsets.UTF_8);
      out.writeInt(utf8.length);
      out.write(utf8);
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
      throw new InvalidObjectException("StringFilterBuilder: unknown serialized form version "
          + version + " (expected " + FORM_VERSION + ")");
    }
    expectedInsertions = in.readLong();
    fpp = in.readDouble();
    size = in.readInt();
    if (size < 0 || size > BATCH) {
      throw new InvalidObjectException(
          "StringFilterBuilder: " + size + " pending items, expected 0 to " + BATCH);
    }
    pending = size == 0 ? EMPTY : new String[Math.max(size, 16)];
    for (int i = 0; i < size; i++) {
      int length = in.readInt();
      if (length < 0) {
        throw new InvalidObjectException(
            "StringFilterBuilder: pending item " + i + " has negative length " + length);
      }
      byte[] utf8 = new byte[length];
      in.readFully(utf8);
      pending[i] = new String(utf8, StandardCharsets.UTF_8);
    }
    int length = in.readInt();
    if (length < -1) {
      throw new InvalidObjectException("StringFilterBuilder: negative filter length " + length);
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
      throw new KryoException("StringFilterBuilder: " + e.getMessage(), e);
    }
  }

  @Override
  public void read(Kryo kryo, Input in) {
    try {
      readForm(new DataInputStream(in));
    } catch (IOException e) {
      throw new KryoException("StringFilterBuilder: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "StringFilterBuilder(n=" + expectedInsertions + ", p=" + fpp + ", pending=" + size
        + ", nativeFilter=" + (filter != null) + ")";
  }
}
