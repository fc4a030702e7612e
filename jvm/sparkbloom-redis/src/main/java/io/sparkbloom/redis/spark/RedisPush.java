package io.sparkbloom.redis.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import io.sparkbloom.redis.FiltersMissingException;
import io.sparkbloom.redis.RedisBloom;
import io.sparkbloom.redis.RedisBloomException;
import io.sparkbloom.redis.RedisLayout;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.StreamSupport;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.util.LongAccumulator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.exceptions.JedisConnectionException;
import scala.Tuple2;

/**
 * Pushes per-key filters built in Spark to Redis, one key per filter ({@code keyPrefix + key}),
 * as the bitmaps {@link RedisBloom} and {@code SETBIT}/{@code GETBIT} services read.
 *
 * <ul>
 *   <li>From RDDs: the {@code (key, BloomFilter)} pairs of {@code io.sparkbloom.spark.PerKeyFilters}
 *       (layout {@link RedisLayout#guavaCompatible}) or of {@link #buildPerKey} (any layout, e.g.
 *       {@link RedisLayout#helperCompatible}).
 *   <li>From DataFrames: a key column and a binary column of serialized filters, as the SQL build
 *       aggregate of {@code io.sparkbloom.spark.BloomFunctions} produces ({@link
 *       BloomFilter#toByteArray()} bytes).
 * </ul>
 *
 * <p>Each partition opens one client and writes its filters in pipelined batches of {@link
 * #BATCH} ({@link RedisBloom#storeAll}: one round trip per batch). Each filter is ORed into its
 * key, so a batch retried after a connection error (up to {@link #ATTEMPTS} times, with growing
 * pauses), a re-run task or a second push never erases what the service {@code put} since; it
 * only adds the filter's items.
 *
 * <p>A wiped server. At its start, on the driver, a push finds the layout's marker key ({@link
 * RedisBloom#markerKey()}), by which clients notice a server that lost its data, or creates it
 * ({@link RedisBloom#markPresent()}); every task, first or retried, writes only while the marker
 * holds that generation ({@link RedisBloom#checkPresent(String)}), and the driver checks it again
 * at the end. A wipe during the push (a restart without persistence, {@code FLUSHALL}) fails it
 * with {@link FiltersMissingException}, and the marker stays gone, so the services notice; push
 * again to rebuild. A filter whose shape is not the layout's fails the job with {@code
 * IllegalArgumentException}; a key that holds a filter of another layout fails it with {@code
 * RedisKeyException}; a driver that cannot reach the server fails the push with {@link
 * RedisBloomException} before any task runs. Progress: the accumulator {@code "sparkbloom-redis:
 * keys pushed"} (Spark UI) and a log line per partition.
 */
public final class RedisPush {
  /** Filters per pipelined round trip. */
  public static final int BATCH = 500;
  /** Attempts per batch on connection errors. */
  public static final int ATTEMPTS = 5;

  private static final Logger LOG = LoggerFactory.getLogger(RedisPush.class);

  private RedisPush() {}

  /**
   * Writes every {@code (key, filter)} pair to {@code keyPrefix + key}.
   *
   * @param filters one filter per key (each of {@code layout}'s shape)
   * @param redisUri {@code redis://[:password@]host:port[/db]} or {@code rediss://...}
   * @param layout the layout the keys are read with
   * @param keyPrefix prepended to {@code String.valueOf(key)}
   * @return the number of keys written
   * @throws FiltersMissingException if the server lost its data during the push
   */
  public static <K> long push(
      JavaPairRDD<K, BloomFilter> filters, String redisUri, RedisLayout layout, String keyPrefix) {
    return push(filters, redisUri, layout, keyPrefix, Duration.ZERO);
  }

  /**
   * {@link #push(JavaPairRDD, String, RedisLayout, String)} with a time to live on every key.
   *
   * @throws IllegalArgumentException for a TTL {@link RedisBloom#ttlMillis} refuses
   */
  public static <K> long push(JavaPairRDD<K, BloomFilter> filters, String redisUri,
      RedisLayout layout, String keyPrefix, Duration ttl) {
    return pushEntries(filters.map(t -> new Tuple2<>(String.valueOf(t._1()), t._2())), keyPrefix,
        redisUri, layout, ttl);
  }

  /** Scala-friendly {@link #push(JavaPairRDD, String, RedisLayout, String)}: {@code RDD[(K, BloomFilter)]}. */
  public static <K> long push(
      RDD<Tuple2<K, BloomFilter>> filters, String redisUri, RedisLayout layout, String keyPrefix) {
    return push(JavaPairRDD.fromRDD(filters, tag(), tag()), redisUri, layout, keyPrefix);
  }

  /**
   * Writes the filters of a DataFrame: {@code keyColumn} (any type, as its string) and {@code
   * filterColumn}, binary serialized filters ({@link BloomFilter#toByteArray()}, e.g. the output
   * of {@code BloomFunctions.build}). Rows whose filter is null are skipped.
   *
   * @return the number of keys written
   */
  public static long pushDataFrame(Dataset<Row> df, String keyColumn, String filterColumn,
      String redisUri, RedisLayout layout, String keyPrefix) {
    return pushDataFrame(df, keyColumn, filterColumn, redisUri, layout, keyPrefix, Duration.ZERO);
  }

  /** {@link #pushDataFrame(Dataset, String, String, String, RedisLayout, String)} with a TTL. */
  public static long pushDataFrame(Dataset<Row> df, String keyColumn, String filterColumn,
      String redisUri, RedisLayout layout, String keyPrefix, Duration ttl) {
    JavaRDD<Tuple2<String, BloomFilter>> entries =
        df.select(df.col(keyColumn).cast("string"), df.col(filterColumn)).toJavaRDD()
            .filter(row -> !row.isNullAt(1))
            .map(row -> {
              try {
                return new Tuple2<>(row.getString(0), BloomFilter.fromByteArray((byte[]) row.get(1)));
              } catch (CorruptFilterException e) {
                throw new IllegalArgumentException(
                    "column " + filterColumn + " of key " + row.getString(0) + ": " + e.getMessage(), e);
              }
            });
    return pushEntries(entries, keyPrefix, redisUri, layout, ttl);
  }

  /**
   * One filter of {@code layout}'s shape per key from {@code (key, item)} pairs: filters that
   * answer exactly as the Redis keys will, for layouts {@code PerKeyFilters} cannot size (the
   * helper's). Items are grouped per key, then put in one batch per key.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(JavaPairRDD<K, Long> pairs, RedisLayout layout) {
    Objects.requireNonNull(layout, "layout is null");
    return pairs
        .groupByKey()
        .mapValues(items -> {
          BloomFilter filter = layout.newFilter();
          filter.putAll(StreamSupport.stream(items.spliterator(), false).mapToLong(Long::longValue).toArray());
          return filter;
        });
  }

  /** Writes each entry to {@code keyPrefix + key}. */
  private static long pushEntries(JavaRDD<Tuple2<String, BloomFilter>> entries, String keyPrefix,
      String redisUri, RedisLayout layout, Duration ttl) {
    Objects.requireNonNull(keyPrefix, "keyPrefix is null");
    Objects.requireNonNull(redisUri, "redisUri is null");
    Objects.requireNonNull(layout, "layout is null");
    // Checked here, on the driver, before any task runs.
    long ttlMillis = RedisBloom.ttlMillis(ttl);
    String generation;
    try (RedisBloom driver = connectWithRetry(redisUri, layout, Duration.ZERO)) {
      driver.markPresent();
      generation = driver.markerGeneration();
    }
    LongAccumulator pushed = entries.context().longAccumulator("sparkbloom-redis: keys pushed");
    try {
      entries.foreachPartition(
          partition -> pushPartition(partition, keyPrefix, redisUri, layout, Duration.ofMillis(ttlMillis),
              generation, pushed));
    } catch (Exception failedJob) {
      // The job failed (a SparkException, rethrown as it came): a wipe is the failure to report.
      checkNotWiped(redisUri, layout, generation, failedJob);
      throw failedJob;
    }
    checkNotWiped(redisUri, layout, generation, null);
    return pushed.value();
  }

  /**
   * Raises {@link FiltersMissingException} if the marker no longer holds the push's generation:
   * the server lost its data during the push. After a failed job, a failure to check is added to
   * the job's exception.
   */
  private static void checkNotWiped(String redisUri, RedisLayout layout, String generation, Exception failedJob) {
    try (RedisBloom driver = connectWithRetry(redisUri, layout, Duration.ZERO)) {
      driver.checkPresent(generation);
    } catch (FiltersMissingException wiped) {
      FiltersMissingException e = new FiltersMissingException(
          wiped.markerKey(), "RedisPush did not complete, the server lost its data during it: " + wiped.getMessage());
      if (failedJob != null) {
        e.addSuppressed(failedJob);
      }
      throw e;
    } catch (RedisBloomException unreachable) {
      if (failedJob == null) {
        throw unreachable;
      }
      failedJob.addSuppressed(unreachable);
    }
  }

  private static void pushPartition(Iterator<Tuple2<String, BloomFilter>> partition, String keyPrefix,
      String redisUri, RedisLayout layout, Duration ttl, String generation, LongAccumulator pushed) {
    if (!partition.hasNext()) {
      return;
    }
    long count = 0;
    try (RedisBloom client = connectWithRetry(redisUri, layout, ttl)) {
      // Stores go only into the data set the driver found at the push's start.
      client.checkPresent(generation);
      Map<String, BloomFilter> batch = new LinkedHashMap<>();
      while (partition.hasNext()) {
        Tuple2<String, BloomFilter> entry = partition.next();
        batch.put(keyPrefix + entry._1(), entry._2());
        if (batch.size() == BATCH || !partition.hasNext()) {
          storeWithRetry(client, batch);
          count += batch.size();
          pushed.add(batch.size());
          batch.clear();
        }
      }
    }
    LOG.info("sparkbloom-redis: pushed {} keys to {}", count, layout);
  }

  private static RedisBloom connectWithRetry(String redisUri, RedisLayout layout, Duration ttl) {
    return withRetry("connect", () -> RedisBloom.connect(redisUri, layout, ttl));
  }

  private static void storeWithRetry(RedisBloom client, Map<String, BloomFilter> batch) {
    withRetry("store of " + batch.size() + " keys", () -> {
      client.storeAll(batch);
      return null;
    });
  }

  /** {@code call}, attempted again after a connection error ({@link #retryOrThrow}). */
  private static <T> T withRetry(String what, Supplier<T> call) {
    for (int attempt = 1; ; attempt++) {
      try {
        return call.get();
      } catch (RedisBloomException e) {
        retryOrThrow(e, attempt, what);
      }
    }
  }

  /** Sleeps before another attempt after a connection error; rethrows anything else. */
  private static void retryOrThrow(RedisBloomException e, int attempt, String what) {
    if (!(e.getCause() instanceof JedisConnectionException) || attempt >= ATTEMPTS) {
      throw e;
    }
    long pause = 100L << (attempt - 1);
    LOG.warn("sparkbloom-redis: {} failed (attempt {} of {}), retrying in {} ms: {}", what, attempt, ATTEMPTS, pause, e.getMessage());
    try {
      Thread.sleep(pause);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw e;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> scala.reflect.ClassTag<T> tag() {
    return (scala.reflect.ClassTag<T>) scala.reflect.ClassTag$.MODULE$.AnyRef();
  }
}
