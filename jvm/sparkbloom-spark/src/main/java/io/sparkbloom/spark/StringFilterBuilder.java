package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.io.InvalidObjectException;
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
public final class StringFilterBuilder extends BufferedFilterBuilder<StringFilterBuilder> {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = FilterBuilder.BATCH;

  private static final int FORM_VERSION = 1;
  private static final String[] EMPTY = new String[0];

  private transient String[] pending = EMPTY;

  /**
   * A builder for a filter sized for {@code expectedInsertions} items at false-positive rate
   * {@code fpp}.
   *
   * @throws IllegalArgumentException as {@link BloomFilter#create(long, double)} throws it
   */
  public StringFilterBuilder(long expectedInsertions, double fpp) {
    super(expectedInsertions, fpp);
  }

  private StringFilterBuilder() {
    super();
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  static StringFilterBuilder unconfigured() {
    return new StringFilterBuilder();
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
    int slot = nextSlot();
    pending[slot] = item;
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
      flushForBatch().putAll(items);
    }
    return this;
  }

  /**
   * Merges {@code other} into this builder and returns this one (same sizing, or one of them an
   * unconfigured, empty SQL zero value). {@code other} must not be used afterwards.
   */
  public StringFilterBuilder merge(StringFilterBuilder other) {
    return mergeFrom(other);
  }

  // ---- the typed buffer --------------------------------------------------------------------

  @Override
  int capacity() {
    return pending.length;
  }

  @Override
  void grow(int capacity) {
    pending = Arrays.copyOf(pending, capacity);
  }

  @Override
  void putPending(BloomFilter filter) {
    filter.putAll(size == pending.length ? pending : Arrays.copyOf(pending, size));
    // drop the references so flushed strings can be collected
    Arrays.fill(pending, 0, size, null);
  }

  @Override
  void addPendingOf(StringFilterBuilder other) {
    addAll(Arrays.copyOf(other.pending, other.size));
  }

  @Override
  int formVersion() {
    return FORM_VERSION;
  }

  /** Each item as an int length and its UTF-8 bytes, exactly what will be hashed. */
  @Override
  void writePending(DataOutput out) throws IOException {
    for (int i = 0; i < size; i++) {
      byte[] utf8 = pending[i].getBytes(StandardCharsets.UTF_8);
      out.writeInt(utf8.length);
      out.write(utf8);
    }
  }

  @Override
  void readPending(DataInput in) throws IOException {
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
  }
}
