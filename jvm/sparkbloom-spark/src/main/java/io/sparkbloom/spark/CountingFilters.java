package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import io.sparkbloom.CountingBloomFilter;
import io.sparkbloom.spark.build.DistinctCount;
import io.sparkbloom.spark.build.FilterAllocation;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.Optional;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import scala.Tuple2;
import scala.Tuple3;

/**
 * Per-key {@link CountingBloomFilter}s in Spark, and dedup over a sliding window of days: "don't
 * recommend what the user saw in the last 30 days" without rebuilding 30 days of history every
 * day.
 *
 * <pre>{@code
 * // Once per day: that day's per-user filter (each view counts once).
 * JavaPairRDD<String, CountingBloomFilter> today = CountingFilters.buildPerKey(views, n, fpp);
 * // The window moves: add today, subtract the day that falls out, in one pass.
 * window = CountingFilters.slideWindow(window, today, dayLeaving, n, fpp);
 * // Dedup candidates against the window.
 * JavaPairRDD<String, long[]> fresh = CountingFilters.dedup(window, candidates);
 * }</pre>
 *
 * The window filter of a key equals, counter for counter, the sum of its daily filters inside the
 * window ({@link #rebuild}) as long as no counter saturated; a day must be subtracted only after
 * it was added (subtracting a day that was never added can cause false negatives). Filters are
 * never mutated in place: every result is a new filter, so cached inputs stay valid.
 */
public final class CountingFilters {
  private CountingFilters() {}

  // ---- build (RDD) ---------------------------------------------------------------------------

  /**
   * One counting filter per key from {@code (key, item)} pairs: each pair adds its item once, so
   * an item seen twice counts 2. Sized as {@link CountingBloomFilter#create(long, double)}.
   */
  public static <K> JavaPairRDD<K, CountingBloomFilter> buildPerKey(
      JavaPairRDD<K, Long> pairs, long expectedInsertions, double fpp) {
    return aggregate(pairs, expectedInsertions, fpp, (filter, item) -> filter.add(item));
  }

  /** One counting filter per key from {@code (key, items)} records, each record added in one call. */
  public static <K> JavaPairRDD<K, CountingBloomFilter> buildPerKeyFromArrays(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp) {
    return aggregate(records, expectedInsertions, fpp, (filter, items) -> filter.addAll(items));
  }

  /**
   * One counting filter per key of (n, p), each value added by {@code add}; the sizing checked
   * on the driver, before any task runs.
   */
  private static <K, V> JavaPairRDD<K, CountingBloomFilter> aggregate(
      JavaPairRDD<K, V> records, long expectedInsertions, double fpp,
      VoidFunction2<CountingBloomFilter, V> add) {
    counting(expectedInsertions, fpp).close();
    return records
        .aggregateByKey(
            new ZeroFilter(expectedInsertions, fpp),
            (buffer, value) -> {
              add.call(buffer.filter(), value);
              return buffer;
            },
            ZeroFilter::merge)
        .mapValues(ZeroFilter::filter);
  }

  /**
   * One counting filter per key from {@code (key, item)} pairs, sized by {@code sizing}. With
   * {@link Sizing#perKeyCount} each key's filter is sized for its own distinct item count (its
   * items are gathered into a {@code long[]} first, at most {@value
   * PerKeyFilters#MAX_BUFFERED_ITEMS_KEY} of them per key: a key of more fails the job naming the
   * key and the limit); such filters of one key from different days have different shapes and
   * cannot be summed by {@link #slideWindow}: use fixed sizing there.
   */
  public static <K> JavaPairRDD<K, CountingBloomFilter> buildPerKey(JavaPairRDD<K, Long> pairs, Sizing sizing) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return buildPerKey(pairs, sizing.expectedInsertions(0), sizing.fpp());
    }
    return perKeySized(pairs, sizing, "CountingFilters.buildPerKey", (b, item) -> b.add(item));
  }

  /** {@link #buildPerKeyFromArrays(JavaPairRDD, long, double)} sized by {@code sizing}, bounded as {@link #buildPerKey(JavaPairRDD, Sizing)}. */
  public static <K> JavaPairRDD<K, CountingBloomFilter> buildPerKeyFromArrays(
      JavaPairRDD<K, long[]> records, Sizing sizing) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return buildPerKeyFromArrays(records, sizing.expectedInsertions(0), sizing.fpp());
    }
    return perKeySized(records, sizing, "CountingFilters.buildPerKeyFromArrays", (b, items) -> {
      for (long v : items) {
        b.add(v);
      }
      return b;
    });
  }

  /** The per-key sized counting filters of each key's items, every occurrence added. */
  private static <K, V> JavaPairRDD<K, CountingBloomFilter> perKeySized(JavaPairRDD<K, V> records,
      Sizing sizing, String owner, Function2<LongArrayBuilder, V, LongArrayBuilder> add) {
    return LongArrayBuilder.group(records, add, owner, "Build such keys with a fixed size,"
        + " which needs no buffer (Sizing.fixed(n, p))").mapValues(items -> countingFilter(sizing, items));
  }

  /** A counting filter sized for the distinct values of {@code items}, holding every item (each occurrence counts). */
  private static CountingBloomFilter countingFilter(Sizing sizing, long[] items) {
    CountingBloomFilter f = sizing.createCounting(DistinctCount.of(items));
    if (items.length > 0) {
      f.addAll(items);
    }
    return f;
  }

  // ---- the window ----------------------------------------------------------------------------

  /**
   * The window moved by one day: for every key, {@code window + newestDay − leavingDay}
   * (counter-wise; see {@link CountingBloomFilter#merge} and {@link
   * CountingBloomFilter#subtract}). A key missing from {@code window} starts empty; keys whose
   * window becomes empty are dropped. {@code leavingDay} must be a day that was added to {@code
   * window}.
   */
  public static <K> JavaPairRDD<K, CountingBloomFilter> slideWindow(
      JavaPairRDD<K, CountingBloomFilter> window,
      JavaPairRDD<K, CountingBloomFilter> newestDay,
      JavaPairRDD<K, CountingBloomFilter> leavingDay,
      long expectedInsertions,
      double fpp) {
    return window
        .cogroup(newestDay, leavingDay)
        .mapValues(
            (Tuple3<Iterable<CountingBloomFilter>, Iterable<CountingBloomFilter>,
                    Iterable<CountingBloomFilter>> days) -> {
              CountingBloomFilter result = counting(expectedInsertions, fpp);
              days._1().forEach(result::merge);
              days._2().forEach(result::merge);
              days._3().forEach(result::subtract);
              return result;
            })
        .filter(entry -> entry._2().nonzeroCounters() > 0);
  }

  /** The window built from scratch: the per-key sum of {@code days} (what {@link #slideWindow} maintains). */
  public static <K> JavaPairRDD<K, CountingBloomFilter> rebuild(
      List<JavaPairRDD<K, CountingBloomFilter>> days) {
    if (days.isEmpty()) {
      throw new IllegalArgumentException("invalid argument days: empty");
    }
    JavaPairRDD<K, CountingBloomFilter> all = days.get(0);
    for (JavaPairRDD<K, CountingBloomFilter> day : days.subList(1, days.size())) {
      all = all.union(day);
    }
    return all.mapValues(CountingBloomFilter::copy).reduceByKey((a, b) -> {
      a.merge(b);
      return a;
    });
  }

  /**
   * For every key with candidates, those the key's window filter has certainly not seen, in
   * order; keys without a window keep all their candidates.
   */
  public static <K> JavaPairRDD<K, long[]> dedup(
      JavaPairRDD<K, CountingBloomFilter> window, JavaPairRDD<K, long[]> candidates) {
    return candidates
        .leftOuterJoin(window)
        .mapValues(
            (Tuple2<long[], Optional<CountingBloomFilter>> c) ->
                c._2().isPresent() ? c._2().get().retainAbsent(c._1()) : c._1());
  }

  // ---- DataFrame -----------------------------------------------------------------------------

  /** Aggregate: the FORMAT.md §10 bytes of a counting filter of the group's (non-null) items. */
  public static Column build(Column item, long expectedInsertions, double fpp) {
    return buildUdaf(expectedInsertions, fpp).apply(item);
  }

  /** The aggregate behind {@link #build}, e.g. for {@code spark.udf().register}. */
  public static UserDefinedFunction buildUdaf(long expectedInsertions, double fpp) {
    counting(expectedInsertions, fpp).close(); // the sizing checked before any job
    return functions
        .udaf(new BuildAggregator(expectedInsertions, fpp), Encoders.LONG())
        .withName("sparkbloom_build_counting");
  }

  /**
   * A counting filter's bytes (binary) as the plain filter's bytes (counter &gt; 0 → bit set),
   * for {@link BloomFunctions#retainAbsent} and {@link BloomFunctions#mightContain}.
   */
  public static Column toBloomFilter(Column countingFilter) {
    return functions
        .udf((UDF1<byte[], byte[]>) CountingFilters::plainBytes, DataTypes.BinaryType)
        .withName("sparkbloom_counting_to_bloom_filter")
        .apply(countingFilter);
  }

  static byte[] plainBytes(byte[] counting) {
    if (counting == null) {
      return null;
    }
    try (CountingBloomFilter f = CountingBloomFilter.fromByteArray(counting);
        BloomFilter plain = f.toBloomFilter()) {
      return plain.toByteArray();
    } catch (CorruptFilterException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code Aggregator<item, counting filter, FORMAT.md §10 bytes>}. */
  public static final class BuildAggregator extends Aggregator<Long, CountingBloomFilter, byte[]> {
    private static final long serialVersionUID = 1L;
    private final long expectedInsertions;
    private final double fpp;

    public BuildAggregator(long expectedInsertions, double fpp) {
      this.expectedInsertions = expectedInsertions;
      this.fpp = fpp;
    }

    /** The buffer Java-serialized between stages (its class implements Serializable). */
    @Override
    public Encoder<CountingBloomFilter> bufferEncoder() {
      return Encoders.javaSerialization(CountingBloomFilter.class);
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
      return Encoders.BINARY();
    }

    @Override
    public CountingBloomFilter zero() {
      return counting(expectedInsertions, fpp);
    }

    @Override
    public CountingBloomFilter reduce(CountingBloomFilter buffer, Long item) {
      if (item != null) {
        buffer.add(item.longValue());
      }
      return buffer;
    }

    @Override
    public CountingBloomFilter merge(CountingBloomFilter a, CountingBloomFilter b) {
      a.merge(b);
      return a;
    }

    @Override
    public byte[] finish(CountingBloomFilter buffer) {
      return buffer.toByteArray();
    }
  }

  /**
   * The aggregation buffer of {@link #buildPerKey}: a filter created lazily on the executor, so
   * the zero value Spark serializes per key is two numbers, not a filter.
   */
  static final class ZeroFilter implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private final long expectedInsertions;
    private final double fpp;
    private CountingBloomFilter filter;

    ZeroFilter(long expectedInsertions, double fpp) {
      this.expectedInsertions = expectedInsertions;
      this.fpp = fpp;
    }

    CountingBloomFilter filter() {
      if (filter == null) {
        filter = counting(expectedInsertions, fpp);
      }
      return filter;
    }

    ZeroFilter merge(ZeroFilter other) {
      filter().merge(other.filter());
      return this;
    }
  }

  /** A counting filter for (n, p); one too large for the process an IllegalArgumentException. */
  static CountingBloomFilter counting(long expectedInsertions, double fpp) {
    return FilterAllocation.create(() -> CountingBloomFilter.create(expectedInsertions, fpp),
        "expectedInsertions " + expectedInsertions + " at fpp " + fpp);
  }
}
