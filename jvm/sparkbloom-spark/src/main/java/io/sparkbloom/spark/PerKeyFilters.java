package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.NullItems;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
import io.sparkbloom.spark.dedup.BatchedRetainAbsent;
import io.sparkbloom.spark.dedup.BroadcastDedup;
import io.sparkbloom.spark.dedup.BroadcastLimit;
import io.sparkbloom.spark.dedup.HashJoinDedup;
import io.sparkbloom.spark.rdd.KnownPartitionerRDD;
import io.sparkbloom.spark.rdd.ScalaRdds;
import io.sparkbloom.spark.storage.FilterTable;
import io.sparkbloom.spark.storage.ObjectFileRecords;
import io.sparkbloom.spark.storage.ObjectFileWriter;
import io.sparkbloom.spark.storage.PartFilesInputFormat;
import io.sparkbloom.spark.storage.PartitioningMarker;
import io.sparkbloom.spark.storage.SequenceFilesInputFormat;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.spark.HashPartitioner;
import org.apache.spark.Partitioner;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.Optional;
import org.apache.spark.api.java.function.Function2;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import scala.Tuple2;

/**
 * RDD helpers for per-key Bloom filters (one filter per user, say), usable from Java and Scala.
 *
 * <p>Build: {@link #buildPerKey} turns {@code (key, item)} pairs into one filter per key through
 * {@code aggregateByKey} with a {@link FilterBuilder}, which buffers items in a {@code long[]} and
 * hands them to the native side in batches ({@code putAll}), never one JNI call per record.
 * {@link #buildPerRecord} builds one filter per record from {@code (key, long[])} records that are
 * already grouped by key (the shape of the classic Guava pipeline), without a shuffle.
 *
 * <p>Options: the sizing, the number of partitions and the broadcast limit travel in one {@link
 * PerKeyOptions} value ({@code PerKeyOptions.of(Sizing.perKeyCount(0.001)).withPartitions(200)});
 * {@link Sizing#fixed fixed(n, p)} is the same for all keys, {@link Sizing#perKeyCount
 * perKeyCount(p)} sizes each key's filter for its own distinct items (a static rebuild knows
 * them), ~40x smaller than one n for every user. Items are {@code long}s or, where a helper says
 * so, strings (hashed as {@link BloomFilter#put(String)}, as Guava's {@code
 * Funnels.stringFunnel(UTF_8)}); candidates of a dedup are {@code long[]} or {@code String[]}
 * per record.
 *
 * <p>Dedup: {@link #dedup} keeps, per key, the candidates its filter has not seen; it joins the
 * candidates with the filters (a left outer join, so a key with no filter keeps all its
 * candidates; computed as a hash join per partition) and queries each record's candidates in one
 * {@link BloomFilter#retainAbsent} call.
 * There are no false negatives: an item that was put into the key's filter is always dropped; an
 * unseen item is dropped with probability about the filter's fpp.
 *
 * <p>The filters can be stored with {@code saveAsObjectFile} (Java serialization writes the
 * compact FORMAT bytes) and read back with {@code objectFile}. Each key must have at most one
 * filter when calling {@link #dedup}; the build helpers guarantee it.
 *
 * <p>Nulls, the same in every helper and plan (the join and the broadcast answer alike):
 * <ul>
 *   <li>a null key is a key like any other (Spark's partitioners and the helpers' maps accept it);
 *   <li>a null item ({@code (key, null)} pairs, a null element of a {@code String[]}) is no item:
 *       skipped when building, dropped from the candidates a filter answers, as the SQL
 *       functions skip null items;
 *   <li>a null item array when building is an empty one (the key gets an empty filter);
 *   <li>null candidates stay null: {@code (key, null)} comes back as it is;
 *   <li>a null filter is no filter: the key's candidates are kept (unless another filter of the
 *       key has seen them), wherever it comes among the key's filters.
 * </ul>
 *
 * <p>Sizes: a sizing whose filter is larger than the process can allocate fails with an {@link
 * IllegalArgumentException} naming it, never an {@code Error} (which Spark treats as fatal to the
 * executor, or to the whole application in local mode): fixed sizes are checked on the driver
 * when the helper is called; per-key sizes, known only once a key's items are counted, fail
 * that key's task with the same exception, and the job fails as any job does.
 *
 * <p>Saved filters: {@code objectFile} and the dedups of a path fail on the driver if nothing is
 * saved there (a missing path or an empty directory), and a task reading a record that is not a
 * {@code (key, BloomFilter)} pair fails naming the file and the record's type.
 *
 * <p>Scala: {@code buildPerKey}, {@code buildPerRecord}, {@code saveAsObjectFile}, {@code
 * objectFile}, {@code dedup} and {@code fromGuava} take and return plain RDDs as well, e.g.
 * {@code PerKeyFilters.buildPerKey(pairs: RDD[(String, Long)], PerKeyOptions.of(Sizing.fixed(10000,
 * 0.001))): RDD[(String, BloomFilter)]}; for the others, {@code JavaPairRDD.fromRDD(rdd)}.
 *
 * <p>This class is the facade; the machinery sits in the sub-packages {@code build}, {@code
 * dedup} (hash join, broadcast, batched queries), {@code storage} (objectFiles with their
 * partitioning, the Parquet table) and {@code rdd} (Scala views, a known partitioner).
 */
public final class PerKeyFilters {
  private PerKeyFilters() {}

  /** Items per {@code retainAbsent}/{@code putAll} call when streaming items through a filter. */
  public static final int BATCH = FilterBuilder.BATCH;

  /**
   * The Spark conf key of the most bytes of filters a broadcast dedup collects to the driver and
   * broadcasts (a Spark size: {@code 64m}, {@code 1g}). Unset, the limit is a tenth of the
   * driver's max heap, at most 128 MiB: the driver holds the bytes up to three times at the peak
   * of a broadcast (the task results, the collected map, the broadcast's blocks), and every
   * executor keeps a copy in its storage memory (~400 MB in a default 1 GiB executor, which the
   * driver cannot see). Over the limit the broadcast dedup throws, or ({@link
   * #dedup(JavaSparkContext, String, JavaPairRDD)}) joins instead. {@link
   * PerKeyOptions#withBroadcastMaxBytes} sets it per call.
   */
  public static final String BROADCAST_MAX_BYTES_KEY = BroadcastLimit.CONF_KEY;

  /**
   * The Spark conf key of the most distinct items per-key sizing buffers for one key ({@code
   * PerKeyBufferLimit}, which derives the default of 2<sup>20</sup>, about 16 MiB of heap, for a
   * 512 MiB executor), in the RDD builds and the SQL aggregates alike.
   */
  public static final String MAX_BUFFERED_ITEMS_KEY = PerKeyBufferLimit.KEY;

  // ---- build -------------------------------------------------------------------------------

  /**
   * One filter per key from {@code (key, item)} pairs, each sized for {@code expectedInsertions}
   * items at false-positive rate {@code fpp}: {@code buildPerKey(pairs,
   * PerKeyOptions.of(Sizing.fixed(expectedInsertions, fpp)))}.
   *
   * @throws IllegalArgumentException (on the driver) naming the argument the core rejects, or a
   *     sizing whose filter is larger than this process can allocate
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(
      JavaPairRDD<K, Long> pairs, long expectedInsertions, double fpp) {
    return buildPerKey(pairs, PerKeyOptions.of(Sizing.fixed(expectedInsertions, fpp)));
  }

  /**
   * One filter per key from {@code (key, item)} pairs, sized by the options' sizing, into the
   * options' partitions (hash-partitioned) if given. Fixed sizing aggregates into a {@link
   * FilterBuilder} (the class doc); per-key sizing gathers each key's distinct items into a
   * primitive {@code long[]} (8 bytes per distinct item through the shuffle, duplicates dropped
   * as they come: {@code DistinctLongs}), then builds a filter of their count; a key of more
   * distinct items than {@value #MAX_BUFFERED_ITEMS_KEY} (default 2<sup>20</sup>) fails the job
   * naming the key and the limit: build such keys with {@link Sizing#fixed}.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(JavaPairRDD<K, Long> pairs, PerKeyOptions options) {
    Sizing sizing = options.requireSizing("buildPerKey");
    int partitions = partitionsOr(options, pairs);
    if (!sizing.isPerKeyCount()) {
      FilterBuilder zero = new FilterBuilder(sizing.expectedInsertions(0), sizing.fpp());
      return aggregate(pairs, zero, (b, item) -> item == null ? b : b.add(item), partitions);
    }
    return PerKeySizedBuild.pairs(pairs, sizing, partitions);
  }

  /**
   * Scala-friendly {@link #buildPerKey(JavaPairRDD, PerKeyOptions)}: {@code RDD[(K, Long)]} (any
   * integral item type) to {@code RDD[(K, BloomFilter)]}.
   */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(RDD<? extends Tuple2<K, ?>> pairs, PerKeyOptions options) {
    return buildPerKey(ScalaRdds.withLongValues(pairs), options).rdd();
  }

  /**
   * {@link #buildPerKey(JavaPairRDD, PerKeyOptions)} for {@code (key, string item)} pairs, each
   * string hashed as {@link BloomFilter#put(String)}; fixed sizing only (the strings are not
   * gathered per key).
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyStrings(
      JavaPairRDD<K, String> pairs, PerKeyOptions options) {
    Sizing sizing = options.requireSizing("buildPerKeyStrings");
    if (sizing.isPerKeyCount()) {
      throw new IllegalArgumentException("PerKeyFilters.buildPerKeyStrings takes a fixed sizing; for "
          + sizing + " gather each key's strings into a String[] and call buildPerRecord");
    }
    StringFilterBuilder zero = new StringFilterBuilder(sizing.expectedInsertions(0), sizing.fpp());
    return aggregate(pairs, zero, (b, item) -> item == null ? b : b.add(item), partitionsOr(options, pairs));
  }

  /**
   * One filter per key from {@code (key, items)} records; a key may appear in several records
   * (their items end up in the same filter). Batches go to the native side in one call each.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyFromArrays(
      JavaPairRDD<K, long[]> records, PerKeyOptions options) {
    Sizing sizing = options.requireSizing("buildPerKeyFromArrays");
    int partitions = partitionsOr(options, records);
    if (!sizing.isPerKeyCount()) {
      FilterBuilder zero = new FilterBuilder(sizing.expectedInsertions(0), sizing.fpp());
      return aggregate(records, zero, (b, items) -> b.addAll(NullItems.orEmpty(items)), partitions);
    }
    return PerKeySizedBuild.arrays(records, sizing, partitions);
  }

  /**
   * One filter per record, without a shuffle of filters: for records already grouped by key (one
   * record per key, as in the classic {@code map { case (user, records) => ... }} Guava
   * pipeline), each sized for {@code expectedInsertions} items at {@code fpp}, into {@code
   * numPartitions} hash partitions (the records are shuffled, not the filters), ready for {@link
   * #saveAsObjectFile} and a shuffle-free side in {@link #dedup}. Each record's items go to the
   * native side in one {@code putAll} call.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp, int numPartitions) {
    return buildPerRecord(records, Sizing.fixed(expectedInsertions, fpp), numPartitions);
  }

  /**
   * {@link #buildPerRecord(JavaPairRDD, long, double, int)} sized by {@code sizing}: with {@link
   * Sizing#perKeyCount} each record's filter is sized for its own distinct items.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(
      JavaPairRDD<K, long[]> records, Sizing sizing, int numPartitions) {
    return buildPerRecord(records, PerKeyOptions.of(sizing).withPartitions(numPartitions));
  }

  /**
   * One filter per record, sized by the options' sizing, for records whose items are a {@code
   * long[]} or a {@code String[]} (each string hashed as {@link BloomFilter#put(String)}); into
   * the options' partitions if given (the records are shuffled first), else where the records are.
   */
  public static <K, A> JavaPairRDD<K, BloomFilter> buildPerRecord(JavaPairRDD<K, A> records, PerKeyOptions options) {
    Sizing sizing = options.requireSizing("buildPerRecord");
    JavaPairRDD<K, A> placed = options.partitions() > 0
        ? records.partitionBy(new HashPartitioner(options.partitions())) : records;
    return placed.mapValues(sizing::buildItems);
  }

  /** Scala-friendly {@link #buildPerRecord(JavaPairRDD, PerKeyOptions)}: {@code RDD[(K, Array[Long])]}. */
  public static <K, A> RDD<Tuple2<K, BloomFilter>> buildPerRecord(RDD<Tuple2<K, A>> records, PerKeyOptions options) {
    return buildPerRecord(ScalaRdds.<K, A>toJavaPairs(records), options).rdd();
  }

  /** The aggregate behind the fixed-size builds, for {@code long} and string builders alike. */
  private static <K, T, B extends BufferedFilterBuilder<B, ?>> JavaPairRDD<K, BloomFilter> aggregate(
      JavaPairRDD<K, T> pairs, B zero, Function2<B, T, B> add, int partitions) {
    // lambdas, not BufferedFilterBuilder method references (see that class)
    return pairs.aggregateByKey(zero, partitions, add, (a, b) -> a.merge(b)).mapValues(b -> b.build());
  }

  /** The options' partitions, or the input's number of partitions. */
  private static int partitionsOr(PerKeyOptions options, JavaPairRDD<?, ?> input) {
    return options.partitions() > 0 ? options.partitions() : input.getNumPartitions();
  }

  // ---- storage -----------------------------------------------------------------------------

  /**
   * {@code filters.saveAsObjectFile(path)}; when the filters are hash-partitioned (as a build
   * with {@link PerKeyOptions#withPartitions} makes them), also records the partitioning beside
   * the part files, so that {@link #objectFile} reads them back partitioned and {@link #dedup}
   * joins without shuffling the filters. For another partitioning, {@code
   * filters.partitionBy(new HashPartitioner(n))} first.
   */
  public static <K> void saveAsObjectFile(JavaPairRDD<K, BloomFilter> filters, String path) {
    // saveAsObjectFile's layout in larger groups: fewer repeated class descriptors (ObjectFileWriter)
    ObjectFileWriter.save(filters, path);
    Optional<Partitioner> p = filters.partitioner();
    if (p.isPresent() && p.get() instanceof HashPartitioner) {
      PartitioningMarker.write(filters.context().hadoopConfiguration(), path, p.get().numPartitions());
    }
  }

  /** Scala-friendly {@link #saveAsObjectFile(JavaPairRDD, String)}. */
  public static <K> void saveAsObjectFile(RDD<Tuple2<K, BloomFilter>> filters, String path) {
    saveAsObjectFile(ScalaRdds.<K, BloomFilter>toJavaPairs(filters), path);
  }

  /** Scala-friendly {@link #objectFile(JavaSparkContext, String)}: {@code RDD[(K, BloomFilter)]}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> objectFile(SparkContext sc, String path) {
    return PerKeyFilters.<K>objectFile(JavaSparkContext.fromSparkContext(sc), path).rdd();
  }

  /**
   * Reads per-key filters written with {@code saveAsObjectFile}, as a pair RDD whose element
   * type is known to Spark ({@code JavaPairRDD.fromJavaRDD(jsc.objectFile(path))} alone carries
   * an {@code Object} class tag, on which e.g. {@code collectAsMap()} fails with a
   * {@code ClassCastException}). Filters saved partitioned by {@link #saveAsObjectFile} come back
   * with their partitioner: part file {@code i} is partition {@code i} (every key is checked).
   */
  public static <K> JavaPairRDD<K, BloomFilter> objectFile(JavaSparkContext jsc, String path) {
    BroadcastLimit.savedBytes(jsc, path); // fails now, on the driver, if nothing was saved there
    int n = PartitioningMarker.read(jsc.hadoopConfiguration(), path);
    if (n > 0) {
      // one partition per part file, in part-file order: partition i = part-0000i
      JavaPairRDD<NullWritable, BytesWritable> files = jsc.hadoopFile(
          path, PartFilesInputFormat.class, NullWritable.class, BytesWritable.class, n);
      if (files.getNumPartitions() == n) {
        JavaRDD<Tuple2<K, BloomFilter>> records =
            PartFilesInputFormat.records(files, ObjectFileRecords::<K>deserialize);
        return ScalaRdds.toJavaPairs(new KnownPartitionerRDD<>(records.rdd(), new HashPartitioner(n), path));
      }
    }
    // as jsc.objectFile(path) reads (listed without a process per file), but a bad record names its file
    JavaPairRDD<NullWritable, BytesWritable> files = jsc.hadoopFile(path,
        SequenceFilesInputFormat.class, NullWritable.class, BytesWritable.class, jsc.defaultMinPartitions());
    return PartFilesInputFormat.records(files, ObjectFileRecords::<K>deserialize).mapToPair(t -> t);
  }

  /**
   * Writes {@code filters} to {@code path} as the Parquet table {@code (user, filter BINARY)} of
   * FORMAT.md bytes that the SQL functions build and query ({@code sparkbloom_retain_absent}, ...),
   * keys of {@code keyType} {@code String.class} ({@code STRING}) or {@code Long.class} ({@code
   * BIGINT}); fails if {@code path} exists, as {@code saveAsObjectFile} does.
   *
   * @throws IllegalArgumentException for another key class; (in the job) for a null key, a null
   *     filter (it would keep every candidate of its key) or a key of another class, naming it
   */
  public static <K> void saveAsTable(JavaPairRDD<K, BloomFilter> filters, String path, Class<K> keyType) {
    FilterTable.save(filters, path, keyType);
  }

  /**
   * Reads a Parquet table {@code (user, filter BINARY)} of FORMAT.md bytes, from {@link
   * #saveAsTable} or SQL ({@code sparkbloom_build_per_key(item, p) ... GROUP BY user}), as pairs;
   * {@code keyType}: {@code String.class} ({@code STRING}), {@code Long.class} ({@code BIGINT}, {@code INT}).
   *
   * @throws IllegalArgumentException if a column is missing or of another type, naming it; (in the
   *     job) for a NULL cell or bytes that are not a filter, naming the column, the user and the file
   */
  public static <K> JavaPairRDD<K, BloomFilter> readTable(JavaSparkContext jsc, String path, Class<K> keyType) {
    return FilterTable.read(jsc, path, keyType);
  }

  // ---- dedup -------------------------------------------------------------------------------

  /**
   * Per key, the candidates its filter has not seen (order kept), for {@code long[]} or {@code
   * String[]} candidate records. Keys with candidates but no filter keep all their candidates;
   * keys with a filter but no candidates produce nothing. Computed as a left outer hash join per
   * partition ({@code HashJoinDedup}): filters already partitioned (see {@link
   * #saveAsObjectFile}/{@link #objectFile}) stay put and only the candidates move. Each record's
   * candidates are queried in one {@code retainAbsent} call. A key with several filters keeps
   * only the candidates none of them has seen, whatever their shapes.
   */
  public static <K, A> JavaPairRDD<K, A> dedup(JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, A> candidates) {
    return dedup(filters, candidates, PerKeyOptions.defaults());
  }

  /** {@link #dedup(JavaPairRDD, JavaPairRDD)} with the join into the options' partitions, if given. */
  public static <K, A> JavaPairRDD<K, A> dedup(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, A> candidates, PerKeyOptions options) {
    Partitioner partitioner;
    Optional<Partitioner> p = filters.partitioner();
    if (options.partitions() > 0) {
      partitioner = new HashPartitioner(options.partitions());
    } else {
      partitioner = p.isPresent() ? p.get()
          : new HashPartitioner(Math.max(filters.getNumPartitions(), candidates.getNumPartitions()));
    }
    return HashJoinDedup.dedup(filters, candidates, partitioner);
  }

  /** Scala-friendly {@link #dedup(JavaPairRDD, JavaPairRDD)}. */
  public static <K, A> RDD<Tuple2<K, A>> dedup(RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, A>> candidates) {
    return dedup(ScalaRdds.<K, BloomFilter>toJavaPairs(filters), ScalaRdds.<K, A>toJavaPairs(candidates)).rdd();
  }

  /**
   * The dedup against the filters saved at {@code path}, planned by their size: a broadcast of
   * their bytes ({@link #dedupBroadcast(JavaSparkContext, String, JavaPairRDD, PerKeyOptions)}:
   * nothing but the filters moves) when the saved files fit the broadcast limit ({@link
   * #BROADCAST_MAX_BYTES_KEY}), otherwise the join ({@code dedup(objectFile(jsc, path),
   * candidates)}: the candidates move, no filter is held on the driver). The same answers either
   * way; the plan taken ({@link DedupPlan#of}) is logged at INFO.
   *
   * @throws IllegalArgumentException (on the driver) if nothing is saved at {@code path}
   */
  public static <K, A> JavaPairRDD<K, A> dedup(JavaSparkContext jsc, String path, JavaPairRDD<K, A> candidates) {
    return dedup(jsc, path, candidates, PerKeyOptions.defaults());
  }

  /**
   * {@link #dedup(JavaSparkContext, String, JavaPairRDD)} under the options' broadcast limit
   * (and, when it joins, into the options' partitions).
   */
  public static <K, A> JavaPairRDD<K, A> dedup(
      JavaSparkContext jsc, String path, JavaPairRDD<K, A> candidates, PerKeyOptions options) {
    DedupPlan plan = DedupPlan.of(jsc, path, options);
    DedupPlan.LOG.info("sparkbloom dedup of {}: {}", path, plan.describe());
    return plan.isBroadcast()
        ? dedupBroadcastSaved(jsc, path, plan.savedBytes(), candidates, plan.maxBytes())
        : dedup(objectFile(jsc, path), candidates, options);
  }

  /**
   * {@link #dedup(JavaPairRDD, JavaPairRDD)} as a map-side join: the filters are collected to the
   * driver and broadcast, and the candidates are answered in place (no shuffle of the candidates,
   * their partitioning kept). The filters travel and stay in the broadcast as their compact FORMAT
   * bytes ({@link BloomFilter#toByteArray}), and each candidate record decodes its key's filter
   * for its own query and frees it at once: the broadcast costs the filters' serialized size, e.g.
   * 4 MB for 10,000 per-key sized filters ({@link Sizing#perKeyCount}: about 390 bytes for a key
   * of 200 items at 0.001), or 20 MB for 10,000 filters sized for 10,000 items that hold 200
   * (sparse bytes, ~2 KB each, for 18 KB of bits each). The caller's filters are only read (none
   * is closed); Spark's context cleaner removes the broadcast once the RDD is no longer referenced.
   *
   * <p>The filters are collected (at this call) within the options' broadcast limit (by default
   * {@link #BROADCAST_MAX_BYTES_KEY}): each task sends its partition's bytes, the driver keeps a
   * running total and fails the job as soon as it passes the limit, so it never holds more than
   * the limit plus the one partition's result that crossed it. Spark's own {@code
   * spark.driver.maxResultSize} (1g by default) also bounds the collect, with Spark's error.
   * Filters saved with {@link #saveAsObjectFile} are best broadcast with {@link
   * #dedupBroadcast(JavaSparkContext, String, JavaPairRDD, PerKeyOptions)}, which reads their
   * bytes without decoding them and checks their size before any job.
   *
   * @throws IllegalArgumentException if the filters' bytes are over the limit: the message names
   *     the bytes collected so far, the limit, its conf key and the join ({@link #dedup}) to use
   */
  public static <K, A> JavaPairRDD<K, A> dedupBroadcast(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, A> candidates, PerKeyOptions options) {
    long maxBytes = options.broadcastMaxBytes(JavaSparkContext.fromSparkContext(filters.context()));
    return BroadcastDedup.dedup(filters, candidates, maxBytes);
  }

  /**
   * {@link #dedupBroadcast(JavaPairRDD, JavaPairRDD, PerKeyOptions)} of the filters saved at
   * {@code path} (by {@link #saveAsObjectFile} or Spark's {@code saveAsObjectFile}): their FORMAT
   * bytes are read and broadcast as they are, never decoded on the way: the same answers as
   * {@code dedupBroadcast(objectFile(jsc, path), candidates, options)} without materializing every
   * filter twice. Before any job, the saved files' total length (from the file system's listing)
   * is checked against the broadcast limit; the collect is bounded as there.
   *
   * @throws IllegalArgumentException if nothing is saved at {@code path}, or the saved files are
   *     over the broadcast limit (naming their bytes, the limit, its conf key and the
   *     alternative, {@link #dedup}); (in the job) if a saved record is not a {@code (key,
   *     BloomFilter)} pair
   */
  public static <K, A> JavaPairRDD<K, A> dedupBroadcast(
      JavaSparkContext jsc, String path, JavaPairRDD<K, A> candidates, PerKeyOptions options) {
    return dedupBroadcastSaved(jsc, path, BroadcastLimit.savedBytes(jsc, path), candidates,
        options.broadcastMaxBytes(jsc));
  }

  /** The broadcast dedup of files already listed ({@code saved} bytes). */
  private static <K, A> JavaPairRDD<K, A> dedupBroadcastSaved(
      JavaSparkContext jsc, String path, long saved, JavaPairRDD<K, A> candidates, long maxBytes) {
    if (saved > maxBytes) {
      throw BroadcastLimit.exceeded("the filters saved at " + path + " take", saved, maxBytes);
    }
    JavaPairRDD<NullWritable, BytesWritable> files = jsc.hadoopFile(path,
        SequenceFilesInputFormat.class, NullWritable.class, BytesWritable.class, jsc.defaultMinPartitions());
    JavaRDD<Tuple2<K, byte[]>> encoded = PartFilesInputFormat.records(files, ObjectFileRecords::deserializeEncoded);
    return BroadcastDedup.dedupEncoded(encoded.mapToPair(t -> t), candidates, maxBytes);
  }

  /**
   * {@link #dedup(JavaPairRDD, JavaPairRDD)} for candidates given as {@code (key, item)} pairs:
   * the candidates are grouped per key into a {@code long[]}, queried in one batch per key, and
   * returned as pairs again (null items dropped). A key of more candidates than {@value
   * #MAX_BUFFERED_ITEMS_KEY} (default 2<sup>20</sup>) fails the job naming the key and the limit:
   * give such keys' candidates as {@code long[]} records to {@link #dedup}.
   */
  public static <K> JavaPairRDD<K, Long> dedupPairs(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, Long> candidates) {
    JavaPairRDD<K, long[]> grouped = LongArrayBuilder.group(candidates,
        (b, item) -> item == null ? b : b.add(item), "PerKeyFilters.dedupPairs",
        "Give such keys' candidates as long[] records to PerKeyFilters.dedup, which groups nothing");
    return dedup(filters, grouped).flatMapValues(PerKeyFilters::boxed);
  }

  private static Iterator<Long> boxed(long[] values) {
    return Arrays.stream(values).boxed().iterator();
  }

  // ---- migration from stored Guava filters ------------------------------------------------

  /**
   * Converts per-key Guava filters (e.g. read back with {@code sc.objectFile} from the classic
   * {@code saveAsObjectFile} pipeline) with {@link BloomFilter#fromGuava}: unshaded {@code
   * com.google.common.hash.BloomFilter} or Spark's shaded {@code
   * org.sparkproject.guava.hash.BloomFilter}, any Guava version, keeping its strategy, so the
   * converted filters answer exactly as the Guava ones for keys put through {@code
   * Funnels.longFunnel()} (and the other funnels listed in {@link BloomFilter}). From Java: {@code
   * guavaFilters.mapValues(BloomFilter::fromGuava)}.
   */
  public static <K> RDD<Tuple2<K, BloomFilter>> fromGuava(RDD<? extends Tuple2<K, ?>> guavaFilters) {
    return ScalaRdds.<K, Object>toJavaPairs(guavaFilters).mapValues(BloomFilter::fromGuava).rdd();
  }

  // ---- one filter for all keys (e.g. a broadcast) ------------------------------------------

  /**
   * The items ({@code Long} or {@code String}, one type per RDD) that {@code filter} has
   * definitely not seen, order kept within each partition. Every task reads the same broadcast
   * filter concurrently (the filter is thread-safe for queries); items are queried in batches of
   * {@value #BATCH}, one native call each, lazily, so a partition is never held in memory; null
   * items are skipped. The broadcast is not closed here: {@code destroy()} it when done.
   */
  public static <T> JavaRDD<T> retainAbsent(JavaRDD<T> items, Broadcast<BloomFilter> filter) {
    return items.mapPartitions(it -> BatchedRetainAbsent.any(it, filter.value(), BATCH));
  }
}
