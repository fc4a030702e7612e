package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CountingBloomFilter;
import io.sparkbloom.Strategy;
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
 *       meets {@code p} can be: at 200 items and p = 0.001, 3,072 bits (384 bytes; see
 *       {@link #perKeyBits} for why not the textbook 2,876) instead of 143,808.
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

  /**
   * An empty filter for a key with {@code distinctItems} distinct items: fixed sizing creates
   * {@link BloomFilter#create(long, double)}'s filter; per-key sizing the shape of
   * {@link #perKeyBits} with {@code k = round(log2(1/fpp))}, strategy {@code MURMUR128_MITZ_64}
   * (so it still converts to Guava's format).
   */
  public BloomFilter create(long distinctItems) {
    long n = expectedInsertions(distinctItems);
    if (!perKey) {
      return BloomFilter.create(n, fpp);
    }
    int k = hashFunctions(fpp);
    return BloomFilter.withShape(perKeyBits(n, fpp, k), k, Strategy.MURMUR128_MITZ_64);
  }

  /** {@link #create}'s shape as a counting filter (4-bit counters instead of bits). */
  CountingBloomFilter createCounting(long distinctItems) {
    long n = expectedInsertions(distinctItems);
    if (!perKey) {
      return CountingBloomFilter.create(n, fpp);
    }
    int k = hashFunctions(fpp);
    return CountingBloomFilter.withShape(perKeyBits(n, fpp, k), k, Strategy.MURMUR128_MITZ_64);
  }

  /** Guava's k for fpp: m/n · ln 2 at the optimal m, i.e. log2(1/fpp), rounded. */
  static int hashFunctions(double fpp) {
    return (int) Math.max(1, Math.min(255, Math.round(-Math.log(fpp) / Math.log(2))));
  }

  /**
   * The bits of a per-key filter for n items at fpp with k hash functions: the smallest multiple
   * of 64 from the textbook m = −n·ln p / ln²2 up whose predicted rate
   * (1 − e<sup>−kn/m</sup>)<sup>k</sup> + {@value #ALIASING}/m is at most fpp. The second term is
   * what the textbook formula leaves out and small filters feel: Guava's double hashing
   * (position i = h1 + i·h2 mod m) makes a query's k positions collapse or line up with an
   * item's about once in m queries. Measured with sparkbloom's MURMUR128_MITZ_64, the excess
   * over the formula was 0.3/m to 0.95/m for p from 1e-2 to 1e-4 (about 20 % above p at 200 items
   * and p = 0.001 when sized by the formula alone; at 10,000 items it is lost in the noise). So
   * tiny keys get about {@value #ALIASING}/fpp bits (1,024 at 0.001), and a 200-item
   * key at 0.001 gets 3,072 bits (384 bytes) instead of 2,880.
   */
  static long perKeyBits(long n, double fpp, int k) {
    double ln2 = Math.log(2);
    double textbook = -n * Math.log(fpp) / (ln2 * ln2);
    long m = Math.max(64, ((long) Math.ceil(textbook) + 63) / 64 * 64);
    while (Math.pow(1 - Math.exp(-(double) k * n / m), k) + ALIASING / m > fpp) {
      long next = ((long) Math.ceil(m * 1.01) + 63) / 64 * 64;
      if (next > MAX_BITS) {
        throw new IllegalArgumentException("Sizing.perKeyCount(" + fpp + "): a filter for " + n
            + " items would exceed 2^43 bits");
      }
      m = next;
    }
    return m;
  }

  /** The false-positive excess of double hashing over the textbook formula, times m (see {@link #perKeyBits}). */
  static final double ALIASING = 1.0;
  private static final long MAX_BITS = 1L << 43;

  /**
   * A filter holding {@code items} (duplicates allowed), in one {@code putAll} call.
   * {@code items} is not modified. Per-key sizing counts the distinct items first
   * ({@link DistinctCount}: a hash table, no sorted copy); duplicates set the same bits again.
   */
  public BloomFilter build(long[] items) {
    Objects.requireNonNull(items, "items");
    BloomFilter f = create(perKey ? DistinctCount.of(items) : 0);
    if (items.length > 0) {
      f.putAll(items);
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
