package io.sparkbloom.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.FilterAllocation;
import io.sparkbloom.spark.build.ItemArrays;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * What {@link FilterBuilder} and {@link StringFilterBuilder} share: the sizing (n, p) and its
 * checks, the JVM-side buffer of pending items that is flushed into the native filter in batches
 * of {@value #BATCH}, merging, and the serialized form that both Java serialization and Kryo write
 * through {@link DataOutput}. The buffer is the subclass's primitive or string array, handled
 * here through its {@link ItemArrays} (grown, copied, flushed with one {@code putAll} call), so
 * no item is boxed; a subclass adds single items of its type and writes and reads its items.
 *
 * <p>Within this package, refer to the inherited public methods through lambdas ({@code b ->
 * b.build()}), not method references: javac points a serializable {@code FilterBuilder::build}
 * and {@code StringFilterBuilder::build} at the same method here, and on deserialization Spark's
 * task can then get the one cast to the other type ({@code ClassCastException}). Code outside
 * the package is not affected (javac turns its references into lambdas, this class being
 * inaccessible there).
 *
 * @param <S> the public builder type, returned by the chaining methods
 * @param <A> the buffer: {@code long[]} or {@code String[]}
 */
abstract class BufferedFilterBuilder<S extends BufferedFilterBuilder<S, A>, A>
    implements Serializable, KryoSerializable {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  static final int BATCH = 4096;

  /** The sizing of the SQL aggregate's zero before its first row: an n the core rejects. */
  private static final long UNCONFIGURED = -1;

  /** Expected insertions, or {@link #UNCONFIGURED} (the SQL aggregate reads it from the first row). */
  private transient long expectedInsertions;
  private transient double fpp;
  /** The pending items, {@code pending[0..size)}; at most {@link #BATCH} slots. */
  transient A pending;
  /** How many items the buffer holds. */
  transient int size;
  /** Null until more than {@link #BATCH} items arrived. */
  private transient BloomFilter filter;

  /** A configured builder; the arguments are checked by the core's own rules. */
  BufferedFilterBuilder(long expectedInsertions, double fpp) {
    FilterAllocation.check(expectedInsertions, fpp);
    this.expectedInsertions = expectedInsertions;
    this.fpp = fpp;
    this.pending = items().empty();
  }

  /** An unconfigured builder (the SQL aggregate's zero). */
  BufferedFilterBuilder() {
    this.expectedInsertions = UNCONFIGURED;
    this.pending = items().empty();
  }

  // ---- what a subclass supplies: its item type and its form's version -------------------------

  /** The item type of the buffer: how it is copied, flushed, written and read. */
  abstract ItemArrays<A> items();

  /** The version written first in the serialized form. */
  abstract int formVersion();

  /** This builder as its public type: each subclass {@code X} extends {@code BufferedFilterBuilder<X, A>}. */
  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }

  // ---- sizing ----------------------------------------------------------------------------------

  boolean isConfigured() {
    return expectedInsertions != UNCONFIGURED;
  }

  /** Sets the sizing of an unconfigured builder; a configured one must get the same values. */
  S configure(long expectedInsertions, double fpp) {
    if (!isConfigured()) {
      FilterAllocation.check(expectedInsertions, fpp);
      this.expectedInsertions = expectedInsertions;
      this.fpp = fpp;
    } else if (this.expectedInsertions != expectedInsertions || this.fpp != fpp) {
      throw new IllegalArgumentException(
          "n and p must be the same for every row of a group: got (n=" + this.expectedInsertions
              + ", p=" + this.fpp + ") and then (n=" + expectedInsertions + ", p=" + fpp + ")");
    }
    return self();
  }

  public long expectedInsertions() {
    return expectedInsertions;
  }

  public double fpp() {
    return fpp;
  }

  // ---- the buffer and the native filter --------------------------------------------------------

  /**
   * The index where the next single item goes, after making room: a full buffer below {@value
   * #BATCH} slots doubles, a full one at {@value #BATCH} is flushed. The caller stores the item
   * there; {@link #size} already counts it.
   */
  final int nextSlot() {
    if (size == items().length(pending)) {
      if (size >= BATCH) {
        flush();
      } else {
        pending = items().copyOf(pending, Math.min(BATCH, Math.max(16, size * 2)));
      }
    }
    return size++;
  }

  /**
   * Adds all items: copied into the buffer when they fit there, else the buffer is flushed and
   * the batch goes to the native side in one call.
   *
   * @throws NullPointerException if an item is null (nothing of the batch is added)
   */
  public final S addAll(A batch) {
    ItemArrays<A> items = items();
    int n = items.length(batch);
    if (n == 0) {
      return self();
    }
    items.requireNoNull(batch);
    if (size + n <= BATCH) {
      if (size + n > items.length(pending)) {
        pending = items.copyOf(pending, Math.min(BATCH, Math.max(size + n, size * 2)));
      }
      System.arraycopy(batch, 0, pending, size, n);
      size += n;
    } else {
      flush();
      items.putAll(ensureFilter(), batch);
    }
    return self();
  }

  /** Moves the buffer's items into the native filter with one {@code putAll} call. */
  final void flush() {
    if (size == 0) {
      return;
    }
    items().putAll(ensureFilter(), items().prefix(pending, size));
    items().release(pending, size);
    size = 0;
  }

  private BloomFilter ensureFilter() {
    if (filter == null) {
      filter = FilterAllocation.bloomFilter(expectedInsertions, fpp);
    }
    return filter;
  }

  /**
   * Merges {@code other} into this builder and returns the builder that holds both: this one, or
   * {@code other} when this one is an unconfigured, empty SQL zero value. Both must have the same
   * sizing (or one of them be such a zero value). {@code other} must not be used afterwards.
   */
  public final S merge(S other) {
    BufferedFilterBuilder<S, A> that = other;
    if (!that.isConfigured()) {
      return self();
    }
    if (!isConfigured()) {
      return other;
    }
    if (expectedInsertions != that.expectedInsertions || fpp != that.fpp) {
      throw new IllegalArgumentException(
          "cannot merge filters of different sizing: (n=" + expectedInsertions + ", p=" + fpp
              + ") and (n=" + that.expectedInsertions + ", p=" + that.fpp + ")");
    }
    if (that.filter != null) {
      if (filter == null) {
        // adopt the other's filter; our pending items stay pending and are flushed into it later
        filter = that.filter;
        that.filter = null;
      } else {
        filter.merge(that.filter);
      }
    }
    if (that.size > 0) {
      addAll(items().prefix(that.pending, that.size));
    }
    return self();
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

  // ---- serialization: one form, written through DataOutput by both serializers ---------------

  private void writeForm(DataOutput out) throws IOException {
    out.writeInt(formVersion());
    out.writeLong(expectedInsertions);
    out.writeDouble(fpp);
    out.writeInt(size);
    items().write(out, pending, size);
    byte[] bytes = filter == null ? null : filter.toByteArray();
    out.writeInt(bytes == null ? -1 : bytes.length);
    if (bytes != null) {
      out.write(bytes);
    }
  }

  private void readForm(DataInput in) throws IOException {
    String name = getClass().getSimpleName();
    int version = in.readInt();
    if (version != formVersion()) {
      throw new InvalidObjectException(name + ": unknown serialized form version " + version
          + " (expected " + formVersion() + ")");
    }
    expectedInsertions = in.readLong();
    fpp = in.readDouble();
    size = in.readInt();
    if (size < 0 || size > BATCH) {
      throw new InvalidObjectException(name + ": " + size + " pending items, expected 0 to " + BATCH);
    }
    pending = items().read(in, size, name);
    int length = in.readInt();
    if (length < -1) {
      throw new InvalidObjectException(name + ": negative filter length " + length);
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
    throughKryo(() -> writeForm(new DataOutputStream(out)));
  }

  @Override
  public void read(Kryo kryo, Input in) {
    throughKryo(() -> readForm(new DataInputStream(in)));
  }

  /** The form written or read through a Kryo stream, whose failures are {@link KryoException}s. */
  private interface FormIo {
    void run() throws IOException;
  }

  private void throughKryo(FormIo io) {
    try {
      io.run();
    } catch (IOException e) {
      throw new KryoException(getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(n=" + expectedInsertions + ", p=" + fpp + ", pending="
        + size + ", nativeFilter=" + (filter != null) + ")";
  }
}
