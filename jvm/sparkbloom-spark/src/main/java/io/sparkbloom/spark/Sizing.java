package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CountingBloomFilter;
import io.sparkbloom.Strategy;
import io.sparkbloom.spark.build.DistinctCount;
import io.sparkbloom.spark.build.FilterAllocation;
import io.sparkbloom.spark.build.NullItems;
import java.io.Serializable;
import java.util.Locale;
import java.util.Objects;

/**
 * How each key's filter is sized when the per-key helpers build it.
 *
 * <ul>
 *   <li>{@link #fixed(long, double) fixed(n, p)}: every key's filter is sized for {@code n}
 *       items at false-positive rate {@code p} (the classic pipeline: one {@code n} for all users,
 *       so a user with 200 items carries a filter sized for 10,000).
 *   <li>{@link #perKeyCount(double) perKeyCount(p)}: each key's filter is sized for its own
 *       number of <em>distinct</em> items, counted when it is built, at the same target {@code p}.
 *       A static rebuild knows every key's items, so each filter is about as small as one that
 *       meets {@code p} as measured can be: at 200 items and p = 0.001, 3,136 bits (392 bytes)
 *       instead of 143,808 ({@link #perKeyShape} has the rule and a table).
 * </ul>
 *
 * {@link #withHeadroom(double) withHeadroom(f)} sizes for {@code f} times the count (or {@code n}),
 * for filters that will receive more items later: {@code perKeyCount(0.001).withHeadroom(1.5)}.
 *
 * <p>Filters of different keys then have different shapes (bit size, hash count); every helper
 * that queries them ({@link PerKeyFilters#dedup}, {@code retainAbsent}) answers each key with its
 * own filter, so the shapes may differ within one run. Merging two filters of <em>one</em> key
 * needs the same shape: rebuild from the items instead (or use fixed sizing when filters of one
 * key are combined over time, as a sliding window of counting filters is).
 *
 * <p>Immutable and serializable (it travels inside Spark closures).
 */
public final class Sizing implements Serializable {
  private static final long serialVersionUID = 1L;

  private final boolean perKey;
  /** Fixed sizing's n; 0 for per-key sizing. */
  private final long expectedInsertions;
  private final double fpp;
  private final double headroom;

  private Sizing(boolean perKey, long expectedInsertions, double fpp, double headroom) {
    this.perKey = perKey;
    this.expectedInsertions = expectedInsertions;
    this.fpp = fpp;
    this.headroom = headroom;
  }

  /**
   * Every key's filter sized for {@code expectedInsertions} items at {@code fpp}, as
   * {@link BloomFilter#create(long, double)} sizes it.
   *
   * @throws IllegalArgumentException naming the argument the core rejects
   */
  public static Sizing fixed(long expectedInsertions, double fpp) {
    FilterAllocation.check(expectedInsertions, fpp);
    return new Sizing(false, expectedInsertions, fpp, 1.0);
  }

  /**
   * Each key's filter sized for its own number of distinct items at {@code fpp}.
   *
   * @throws IllegalArgumentException if {@code fpp} is not in (0, 1)
   */
  public static Sizing perKeyCount(double fpp) {
    if (!(fpp > 0 && fpp < 1)) {
      throw new IllegalArgumentException("Sizing.perKeyCount: fpp must be in (0, 1), got " + fpp);
    }
    return new Sizing(true, 0, fpp, 1.0);
  }

  /**
   * This sizing for {@code factor} times as many items (the count, or fixed sizing's n), rounded
   * up: room for keys whose filters will grow. Replaces any previous headroom.
   *
   * @throws IllegalArgumentException if {@code factor} is not a finite number {@code >= 1}
   */
  public Sizing withHeadroom(double factor) {
    if (!(factor >= 1) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException(
          "Sizing.withHeadroom: factor must be a finite number >= 1, got " + factor);
    }
    Sizing s = new Sizing(perKey, expectedInsertions, fpp, factor);
    if (!perKey) {
      FilterAllocation.check(s.expectedInsertions(0), fpp);
    }
    return s;
  }

  /** True for {@link #perKeyCount}, false for {@link #fixed}. */
  public boolean isPerKeyCount() {
    return perKey;
  }

  /** The target false-positive rate. */
  public double fpp() {
    return fpp;
  }

  /** The headroom factor (1 unless {@link #withHeadroom} set it). */
  public double headroom() {
    return headroom;
  }

  /**
   * The n a key's filter is created with: fixed sizing's n, or {@code distinctItems} (at least
   * 1), times the headroom, rounded up.
   */
  public long expectedInsertions(long distinctItems) {
    long base = perKey ? Math.max(1, distinctItems) : expectedInsertions;
    if (headroom == 1.0) {
      return base;
    }
    double scaled = Math.ceil(base * headroom);
    return scaled >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) scaled;
  }

  /**
   * An empty filter for a key with {@code distinctItems} distinct items: fixed sizing creates
   * {@link BloomFilter#create(long, double)}'s filter; per-key sizing the shape of
   * {@link #perKeyShape}, strategy {@code MURMUR128_MITZ_64} (whole 64-bit words, so it still
   * converts to Guava's format).
   *
   * @throws IllegalArgumentException if the filter is larger than this process can allocate
   *     (naming the sizing and the count), or than 2<sup>43</sup> bits
   */
  public BloomFilter create(long distinctItems) {
    return create(distinctItems, BloomFilter::create, BloomFilter::withShape, "bits");
  }

  /** {@link #create}'s shape as a counting filter (4-bit counters instead of bits). */
  CountingBloomFilter createCounting(long distinctItems) {
    return create(distinctItems, CountingBloomFilter::create, CountingBloomFilter::withShape, "counters");
  }

  /** A filter's factory for (n, p), as {@code BloomFilter.create} and its counting twin. */
  private interface BySizing<F> {
    F create(long expectedInsertions, double fpp);
  }

  /** A filter's factory for a shape, as {@code BloomFilter.withShape} and its counting twin. */
  private interface ByShape<F> {
    F create(long bits, int numHashFunctions, Strategy strategy);
  }

  /** {@link #create} for either kind of filter; {@code unit} names what its m counts. */
  private <F> F create(long distinctItems, BySizing<F> bySizing, ByShape<F> byShape, String unit) {
    long n = expectedInsertions(distinctItems);
    if (!perKey) {
      return FilterAllocation.create(() -> bySizing.create(n, fpp), this + " for " + n + " items");
    }
    long[] shape = perKeyShape(n, fpp);
    return FilterAllocation.create(
        () -> byShape.create(shape[0], (int) shape[1], Strategy.MURMUR128_MITZ_64),
        this + " for " + n + " items (" + shape[0] + " " + unit + ")");
  }

  /**
   * The per-key shape {m, k} for n distinct items at fpp: {@link BloomFilter#perKeyBitSize} and
   * {@link BloomFilter#perKeyNumHashFunctions}, the core's rule (the CLI and Python call the same
   * code): the fewest whole 64-bit words whose walk rate, the textbook
   * (1 − e<sup>−kn/m</sup>)<sup>k</sup> plus what Guava's double hashing adds in a small filter,
   * reaches fpp for some k, and the fewest such k. Never fewer bits than the textbook
   * −n·ln p / ln²2; more than Guava's filter for the same count where Guava's own shape misses
   * fpp as measured (small counts, small p).
   *
   * <table>
   *   <caption>Per-key shapes, and Guava's for the same n and p</caption>
   *   <tr><th>n</th><th>p</th><th>m</th><th>k</th><th>Guava's m, k</th></tr>
*   <tr><td>1</td><td>10<sup>−3</sup></td><td>128</td><td>2</td><td>64, 10</td></tr>
   *   <tr><td>17</td><td>10<sup>−3</sup></td><td>448</td><td>4</td><td>256, 7</td></tr>
   *   <tr><td>200</td><td>10<sup>−2</sup></td><td>1,984</td><td>6</td><td>1,920, 7</td></tr>
   *   <tr><td>200</td><td>10<sup>−3</sup></td><td>3,136</td><td>8</td><td>2,880, 10</td></tr>
   *   <tr><td>1,000</td><td>10<sup>−6</sup></td><td>94,464</td><td>6</td><td>28,800, 20</td></tr>
   *   <tr><td>10,000</td><td>10<sup>−3</sup></td><td>144,000</td><td>10</td><td>143,808, 10</td></tr>
   * </table>
   *
   * @throws IllegalArgumentException if the filter would exceed 2<sup>43</sup> bits
   */
  static long[] perKeyShape(long n, double fpp) {
    try {
      return new long[] {BloomFilter.perKeyBitSize(n, fpp), BloomFilter.perKeyNumHashFunctions(n, fpp)};
    } catch (IllegalArgumentException tooLarge) { // n ≥ 1, fpp in (0, 1): only m is out of range
      throw new IllegalArgumentException("Sizing.perKeyCount(" + fpp + "): a filter for " + n
          + " items would exceed 2^43 bits", tooLarge);
    }
  }

  /**
   * A filter holding {@code items} (duplicates allowed; null: no items), in one {@code putAll}
   * call. {@code items} is not modified. Per-key sizing counts the distinct items first
   * ({@link DistinctCount}: a hash table, no sorted copy); duplicates set the same bits again.
   */
  public BloomFilter build(long[] items) {
    items = NullItems.orEmpty(items);
    BloomFilter f = create(perKey ? DistinctCount.of(items) : 0);
    if (items.length > 0) {
      f.putAll(items);
    }
    return f;
  }

  /**
   * {@link #build(long[])} for a record's items, {@code long[]} or {@code String[]} (null: no
   * items; null strings skipped; per-key sizing counts the distinct strings).
   *
   * @throws IllegalArgumentException naming the type if {@code items} is neither
   */
  BloomFilter buildItems(Object items) {
    if (items == null || items instanceof long[]) {
      return build((long[]) items);
    }
    if (!(items instanceof String[])) {
      throw new IllegalArgumentException("items must be long[] or String[], got " + items.getClass().getName());
    }
    String[] strings = NullItems.withoutNulls((String[]) items);
    BloomFilter f = create(perKey ? new java.util.HashSet<>(java.util.Arrays.asList(strings)).size() : 0);
    if (strings.length > 0) {
      f.putAll(strings);
    }
    return f;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Sizing)) {
      return false;
    }
    Sizing s = (Sizing) o;
    return perKey == s.perKey && expectedInsertions == s.expectedInsertions
        && Double.compare(fpp, s.fpp) == 0 && Double.compare(headroom, s.headroom) == 0;
  }

  @Override
  public int hashCode() {
    return Objects.hash(perKey, expectedInsertions, fpp, headroom);
  }

  @Override
  public String toString() {
    String base = perKey ? "Sizing.perKeyCount(" + fpp + ")"
        : "Sizing.fixed(" + expectedInsertions + ", " + fpp + ")";
    return headroom == 1.0 ? base : base + String.format(Locale.ROOT, ".withHeadroom(%s)", headroom);
  }
}
