package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.io.Serializable;
import java.util.Arrays;
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
 *       A static rebuild knows every key's items, so this is the smallest filter that meets
 *       {@code p}: at 200 items and p = 0.001, 2,876 bits (360 bytes) instead of 143,776.
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
    FilterBuilder.validate(expectedInsertions, fpp);
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
      FilterBuilder.validate(s.expectedInsertions(0), fpp);
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

  /** An empty filter for a key with {@code distinctItems} distinct items. */
  public BloomFilter create(long distinctItems) {
    return BloomFilter.create(expectedInsertions(distinctItems), fpp);
  }

  /**
   * A filter holding {@code items} (duplicates allowed), in one {@code putAll} call.
   * {@code items} is not modified. Per-key sizing counts the distinct items first: a sorted copy,
   * deduplicated, is what goes to the native side.
   */
  public BloomFilter build(long[] items) {
    Objects.requireNonNull(items, "items");
    if (!perKey) {
      BloomFilter f = create(0);
      f.putAll(items);
      return f;
    }
    return buildDistinct(items.clone());
  }

  /** {@link #build} over an array the caller hands over (sorted in place). */
  BloomFilter buildOwned(long[] items) {
    return perKey ? buildDistinct(items) : build(items);
  }

  private BloomFilter buildDistinct(long[] sortable) {
    int distinct = sortDistinct(sortable);
    BloomFilter f = create(distinct);
    if (distinct > 0) {
      f.putAll(distinct == sortable.length ? sortable : Arrays.copyOf(sortable, distinct));
    }
    return f;
  }

  /** Sorts {@code a} and moves its distinct values to the front; returns how many there are. */
  static int sortDistinct(long[] a) {
    if (a.length < 2) {
      return a.length;
    }
    Arrays.sort(a);
    int n = 1;
    for (int i = 1; i < a.length; i++) {
      if (a[i] != a[n - 1]) {
        a[n++] = a[i];
      }
    }
    return n;
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
