package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.ItemArrays;

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
public final class StringFilterBuilder extends BufferedFilterBuilder<StringFilterBuilder, String[]> {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = FilterBuilder.BATCH;

  private static final int FORM_VERSION = 1;

  /**
   * A builder for a filter sized for {@code expectedInsertions} items at false-positive rate
   * {@code fpp}.
   *
   * @throws IllegalArgumentException as {@link BloomFilter#create(long, double)} throws it
   */
  public StringFilterBuilder(long expectedInsertions, double fpp) {
    super(expectedInsertions, fpp);
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  StringFilterBuilder() {
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

  // ---- the item type and the form ---------------------------------------------------------

  @Override
  ItemArrays<String[]> items() {
    return ItemArrays.STRINGS;
  }

  @Override
  int formVersion() {
    return FORM_VERSION;
  }
}
