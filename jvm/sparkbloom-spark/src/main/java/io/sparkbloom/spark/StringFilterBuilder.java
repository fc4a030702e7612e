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
 * <p>Buffering, merging and the serialized form are {@link FilterBuilder}'s, form version 1, each
 * pending item written as an int length and its UTF-8 bytes, exactly what will be hashed: an
 * unpaired surrogate becomes {@code '?'} there as it does in {@code put(String)}, so the filter
 * is the same whether or not the buffer was serialized on the way. Not thread-safe (one builder
 * per task).
 */
public final class StringFilterBuilder extends BufferedFilterBuilder<StringFilterBuilder, String[]> {
  private static final long serialVersionUID = 1L;

  /** Items buffered on the JVM side before one {@code putAll} call moves them to the native side. */
  public static final int BATCH = FilterBuilder.BATCH;

  private static final int FORM_VERSION = 1;

  /** {@link FilterBuilder#FilterBuilder(long, double)}'s sizing, for string items. */
  public StringFilterBuilder(long expectedInsertions, double fpp) {
    super(expectedInsertions, fpp);
  }

  /** A builder whose sizing is set by the first {@link #configure} call (the SQL aggregate's zero). */
  StringFilterBuilder() {}

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
