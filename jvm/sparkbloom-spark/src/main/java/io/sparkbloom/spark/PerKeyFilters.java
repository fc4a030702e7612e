// Over 500 lines, most of them Javadoc: the facade users call, one overload per item type (long,
// String), per input shape (pairs, records, arrays) and per Java/Scala RDD, each a line or two
// over the package-private classes that do the work.
package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
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
 * <p>Sizing: every build helper takes either {@code (expectedInsertions, fpp)}, the same for all
 * keys, or a {@link Sizing}: {@code Sizing.perKeyCount(fpp)} sizes each key's filter for its own
 * distinct items (a static rebuild knows them), ~40x smaller than one n for every user.
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
 *       skipped when building, dropped from candidates, as the SQL functions skip null items;
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
 * <p>Scala: every method that takes a {@code JavaPairRDD} has an {@code RDD} overload that takes
 * and returns plain RDDs, e.g.
 * {@code PerKeyFilters.buildPerKey(pairs: RDD[(String, Long)], 10000, 0.001): RDD[(String, BloomFilter)]}.
 *
 * <p>This class is the facade; the machinery sits in package-private classes: the hash join
 * ({@code HashJoinDedup}), the partitioning marker beside a saved objectFile
 * ({@code PartitioningMarker}), reading its part files ({@code ObjectFileRecords},
 * {@link PartFilesInputFormat}, {@code KnownPartitionerRDD}), batched queries over an iterator
 * ({@code BatchedRetainAbsent}) and the Scala-to-Java views ({@code ScalaRdds}).
 */
public final class PerKeyFilters {
  private PerKeyFilters() {}

  /** Items per {@code retainAbsent}/{@code putAll} call when streaming items through a filter. */
  public static final int BATCH = FilterBuilder.BATCH;

  // ---- build -------------------------------------------------------------------------------

  /**
   * One filter per key from {@code (key, item)} pairs, each sized for {@code expectedInsertions}
   * items at false-positive rate {@code fpp}.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(
      JavaPairRDD<K, Long> pairs, long expectedInsertions, double fpp) {
    FilterBuilder zero = new FilterBuilder(expectedInsertions, fpp);
    return pairs
        .aggregateByKey(zero, (b, item) -> item == null ? b : b.add(item), FilterBuilder::merge)
        .mapValues(b -> b.build());
  }

  /** {@link #buildPerKey(JavaPairRDD, long, double)} into {@code numPartitions} partitions. */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(
      JavaPairRDD<K, Long> pairs, long expectedInsertions, double fpp, int numPartitions) {
    FilterBuilder zero = new FilterBuilder(expectedInsertions, fpp);
    return pairs
        .aggregateByKey(zero, numPartitions, (b, item) -> item == null ? b : b.add(item), FilterBuilder::merge)
        .mapValues(b -> b.build());
  }

  /**
   * Scala-friendly {@link #buildPerKey(JavaPairRDD, long, double)}: {@code RDD[(K, Long)]} (any
   * integral value type) to {@code RDD[(K, BloomFilter)]}.
   */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(
      RDD<? extends Tuple2<K, ?>> pairs, long expectedInsertions, double fpp) {
    return buildPerKey(ScalaRdds.withLongValues(pairs), expectedInsertions, fpp).rdd();
  }

  /** Scala-friendly {@link #buildPerKey(JavaPairRDD, long, double, int)}: hash-partitioned output. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(
      RDD<? extends Tuple2<K, ?>> pairs, long expectedInsertions, double fpp, int numPartitions) {
    return buildPerKey(ScalaRdds.withLongValues(pairs), expectedInsertions, fpp, numPartitions).rdd();
  }

  /**
   * One filter per key from {@code (key, items)} records; a key may appear in several records
   * (their items end up in the same filter). Batches go to the native side in one call each.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyFromArrays(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp) {
    FilterBuilder zero = new FilterBuilder(expectedInsertions, fpp);
    return records
        .aggregateByKey(zero, (b, items) -> b.addAll(NullItems.orEmpty(items)), FilterBuilder::merge)
        .mapValues(b -> b.build());
  }

  /** Scala-friendly {@link #buildPerKeyFromArrays(JavaPairRDD, long, double)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKeyFromArrays(
      RDD<Tuple2<K, long[]>> records, long expectedInsertions, double fpp) {
    return buildPerKeyFromArrays(ScalaRdds.toJavaPairs(records), expectedInsertions, fpp).rdd();
  }

  /**
   * One filter per record, without a shuffle: for records already grouped by key (one record per
   * key, as in the classic {@code map { case (user, records) => ... }} Guava pipeline). Each
   * record's items go to the native side in one {@code putAll} call.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp) {
    FilterBuilder.validate(expectedInsertions, fpp);
    return records.mapValues(items -> {
      BloomFilter f = FilterBuilder.create(expectedInsertions, fpp);
      f.putAll(NullItems.orEmpty(items));
      return f;
    });
  }

  /**
   * {@link #buildPerRecord(JavaPairRDD, long, double)} into {@code numPartitions} hash
   * partitions: the records (the items, not the filters) are shuffled first, so the filters come
   * out partitioned for {@link #saveAsObjectFile} and a shuffle-free side in {@link #dedup}.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp, int numPartitions) {
    return buildPerRecord(records.partitionBy(new HashPartitioner(numPartitions)), expectedInsertions, fpp);
  }

  /** Scala-friendly {@link #buildPerRecord(JavaPairRDD, long, double)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerRecord(
      RDD<Tuple2<K, long[]>> records, long expectedInsertions, double fpp) {
    return buildPerRecord(ScalaRdds.toJavaPairs(records), expectedInsertions, fpp).rdd();
  }

  /** Scala-friendly {@link #buildPerRecord(JavaPairRDD, long, double, int)}: hash-partitioned output. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerRecord(
      RDD<Tuple2<K, long[]>> records, long expectedInsertions, double fpp, int numPartitions) {
    return buildPerRecord(ScalaRdds.toJavaPairs(records), expectedInsertions, fpp, numPartitions).rdd();
  }

  // ---- build with a Sizing (fixed, or each key's own distinct count) ----------------------

  /**
   * One filter per record, without a shuffle, sized by {@code sizing}: with
   * {@link Sizing#perKeyCount} each record's filter is sized for its own distinct items.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(JavaPairRDD<K, long[]> records, Sizing sizing) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    return records.mapValues(sizing::build);
  }

  /**
   * {@link #buildPerRecord(JavaPairRDD, Sizing)} into {@code numPartitions} hash partitions (the
   * records are shuffled, not the filters), ready for {@link #saveAsObjectFile} and {@link #dedup}.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(
      JavaPairRDD<K, long[]> records, Sizing sizing, int numPartitions) {
    return buildPerRecord(records.partitionBy(new HashPartitioner(numPartitions)), sizing);
  }

  /** Scala-friendly {@link #buildPerRecord(JavaPairRDD, Sizing)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerRecord(RDD<Tuple2<K, long[]>> records, Sizing sizing) {
    return buildPerRecord(ScalaRdds.toJavaPairs(records), sizing).rdd();
  }

  /** Scala-friendly {@link #buildPerRecord(JavaPairRDD, Sizing, int)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerRecord(
      RDD<Tuple2<K, long[]>> records, Sizing sizing, int numPartitions) {
    return buildPerRecord(ScalaRdds.toJavaPairs(records), sizing, numPartitions).rdd();
  }

  /**
   * One filter per key from {@code (key, item)} pairs, sized by {@code sizing}. Fixed sizing
   * aggregates into a {@link FilterBuilder} as {@link #buildPerKey(JavaPairRDD, long, double)}
   * does; per-key sizing gathers each key's items into a primitive {@code long[]} (8 bytes per
   * item through the shuffle), counts the distinct ones, then builds a filter of that size.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(JavaPairRDD<K, Long> pairs, Sizing sizing) {
    return buildPerKey(pairs, sizing, pairs.getNumPartitions());
  }

  /** {@link #buildPerKey(JavaPairRDD, Sizing)} into {@code numPartitions} hash partitions. */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(
      JavaPairRDD<K, Long> pairs, Sizing sizing, int numPartitions) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return buildPerKey(pairs, sizing.expectedInsertions(0), sizing.fpp(), numPartitions);
    }
    return pairs
        .aggregateByKey(new LongArrayBuilder(), numPartitions, PerKeyFilters::add, LongArrayBuilder::addAll)
        .mapValues(items -> sizing.build(items.toArray()));
  }

  /** Scala-friendly {@link #buildPerKey(JavaPairRDD, Sizing)}: any integral item type. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(RDD<? extends Tuple2<K, ?>> pairs, Sizing sizing) {
    return buildPerKey(ScalaRdds.withLongValues(pairs), sizing).rdd();
  }

  /** Scala-friendly {@link #buildPerKey(JavaPairRDD, Sizing, int)}: hash-partitioned output. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(
      RDD<? extends Tuple2<K, ?>> pairs, Sizing sizing, int numPartitions) {
    return buildPerKey(ScalaRdds.withLongValues(pairs), sizing, numPartitions).rdd();
  }

  /**
   * One filter per key from {@code (key, items)} records (a key may appear in several), sized by
   * {@code sizing}.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyFromArrays(JavaPairRDD<K, long[]> records, Sizing sizing) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return buildPerKeyFromArrays(records, sizing.expectedInsertions(0), sizing.fpp());
    }
    return records
        .aggregateByKey(new LongArrayBuilder(), PerKeyFilters::addAll, LongArrayBuilder::addAll)
        .mapValues(items -> sizing.build(items.toArray()));
  }

  /** Scala-friendly {@link #buildPerKeyFromArrays(JavaPairRDD, Sizing)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKeyFromArrays(RDD<Tuple2<K, long[]>> records, Sizing sizing) {
    return buildPerKeyFromArrays(ScalaRdds.toJavaPairs(records), sizing).rdd();
  }

  private static LongArrayBuilder add(LongArrayBuilder b, Long item) {
    return item == null ? b : b.add(item);
  }

  private static LongArrayBuilder addAll(LongArrayBuilder b, long[] items) {
    for (long v : NullItems.orEmpty(items)) {
      b.add(v);
    }
    return b;
  }

  // ---- storage -----------------------------------------------------------------------------

  /**
   * {@code filters.saveAsObjectFile(path)}; when the filters are hash-partitioned (as
   * {@code buildPerKey(..., numPartitions)} and {@code buildPerRecord(..., numPartitions)} make
   * them), also records the partitioning beside the part files, so that {@link #objectFile} reads
   * them back partitioned and {@link #dedup} joins without shuffling the filters.
   */
  public static <K> void saveAsObjectFile(JavaPairRDD<K, BloomFilter> filters, String path) {
    // saveAsObjectFile's layout in larger groups: fewer repeated class descriptors (ObjectFileWriter)
    ObjectFileWriter.save(filters, path);
    Optional<Partitioner> p = filters.partitioner();
    if (p.isPresent() && p.get() instanceof HashPartitioner) {
      PartitioningMarker.write(filters.context().hadoopConfiguration(), path, p.get().numPartitions());
    }
  }

  /** {@link #saveAsObjectFile(JavaPairRDD, String)} into {@code numPartitions} hash partitions. */
  public static <K> void saveAsObjectFile(JavaPairRDD<K, BloomFilter> filters, String path, int numPartitions) {
    saveAsObjectFile(filters.partitionBy(new HashPartitioner(numPartitions)), path);
  }

  /** Scala-friendly {@link #saveAsObjectFile(JavaPairRDD, String)}. */
  public static <K> void saveAsObjectFile(RDD<Tuple2<K, BloomFilter>> filters, String path) {
    saveAsObjectFile(ScalaRdds.<K, BloomFilter>toJavaPairs(filters), path);
  }

  /** Scala-friendly {@link #saveAsObjectFile(JavaPairRDD, String, int)}. */
  public static <K> void saveAsObjectFile(RDD<Tuple2<K, BloomFilter>> filters, String path, int numPartitions) {
    saveAsObjectFile(ScalaRdds.<K, BloomFilter>toJavaPairs(filters), path, numPartitions);
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

  // ---- dedup -------------------------------------------------------------------------------

  /**
   * Per key, the candidates its filter has not seen (order kept). Keys with candidates but no
   * filter keep all their candidates; keys with a filter but no candidates produce nothing.
   * Each record's candidates are queried in one {@code retainAbsent} call.
   */
  public static <K> JavaPairRDD<K, long[]> dedup(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates) {
    Optional<Partitioner> p = filters.partitioner();
    // partitioned filters (see saveAsObjectFile/objectFile) stay put: only the candidates move
    Partitioner partitioner = p.isPresent() ? p.get()
        : new HashPartitioner(Math.max(filters.getNumPartitions(), candidates.getNumPartitions()));
    return HashJoinDedup.dedup(filters, candidates, partitioner, HashJoinDedup.LONGS);
  }

  /** {@link #dedup(JavaPairRDD, JavaPairRDD)} with the join into {@code numPartitions} partitions. */
  public static <K> JavaPairRDD<K, long[]> dedup(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates, int numPartitions) {
    return HashJoinDedup.dedup(filters, candidates, new HashPartitioner(numPartitions), HashJoinDedup.LONGS);
  }

  /** Scala-friendly {@link #dedup(JavaPairRDD, JavaPairRDD)}. */
  public static <K> RDD<Tuple2<K, long[]>> dedup(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, long[]>> candidates) {
    return dedup(ScalaRdds.toJavaPairs(filters), ScalaRdds.toJavaPairs(candidates)).rdd();
  }

  /** Scala-friendly {@link #dedup(JavaPairRDD, JavaPairRDD, int)}. */
  public static <K> RDD<Tuple2<K, long[]>> dedup(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, long[]>> candidates, int numPartitions) {
    return dedup(ScalaRdds.toJavaPairs(filters), ScalaRdds.toJavaPairs(candidates), numPartitions).rdd();
  }

  /**
   * The Spark conf key of the most bytes of filters {@link #dedupBroadcast} collects to the driver
   * and broadcasts (a Spark size: {@code 64m}, {@code 1g}). Unset, the limit is a tenth of the
   * driver's max heap, at most 128 MiB: the driver holds the bytes up to three times at the peak
   * of a broadcast (the task results, the collected map, the broadcast's blocks), and every
   * executor keeps a copy in its storage memory (~400 MB in a default 1 GiB executor, which the
   * driver cannot see). Over the limit the dedup throws, or ({@link #dedup(JavaSparkContext,
   * String, JavaPairRDD)}) joins instead.
   */
  public static final String BROADCAST_MAX_BYTES_KEY = BroadcastLimit.CONF_KEY;

  /** The broadcast limit in force for {@code jsc}: {@link #BROADCAST_MAX_BYTES_KEY} or its default. */
  public static long broadcastMaxBytes(JavaSparkContext jsc) {
    return BroadcastLimit.of(jsc);
  }

  /**
   * {@link #dedup(JavaPairRDD, JavaPairRDD)} as a map-side join: the filters are collected to the
   * driver and broadcast, and the candidates are answered in place (no shuffle of the candidates,
   * their partitioning kept). The filters travel and stay in the broadcast as their compact FORMAT
   * bytes ({@link BloomFilter#toByteArray}), and each candidate record decodes its key's filter
   * for its own query and frees it at once: the broadcast costs the filters' serialized size, e.g.
   * 4 MB for 10,000 per-key sized filters ({@link Sizing#perKeyCount}: about 410 bytes for a key
   * of 200 items at 0.001), or 20 MB for 10,000 filters sized for 10,000 items that hold 200
   * (sparse bytes, ~2 KB each, for 18 KB of bits each). A key with several filters keeps only the
   * candidates none of them has seen. The caller's filters are only read (none is closed).
   * Spark's context cleaner removes the broadcast once the returned RDD is no longer referenced.
   *
   * <p>The filters are collected (at this call) within the broadcast limit
   * ({@link #BROADCAST_MAX_BYTES_KEY}): each task sends its partition's bytes, the driver keeps a
   * running total and fails the job as soon as it passes the limit, so it never holds more than
   * the limit plus the one partition's result that crossed it. Spark's own
   * {@code spark.driver.maxResultSize} (1g by default) also bounds the collect, with Spark's
   * error. Filters saved with {@link #saveAsObjectFile} are best broadcast with
   * {@link #dedupBroadcast(JavaSparkContext, String, JavaPairRDD)}, which reads their bytes
   * without decoding them and checks their size before any job.
   *
   * @throws IllegalArgumentException if the filters' bytes are over the limit: the message names
   *     the bytes collected so far, the limit, its conf key and the join ({@link #dedup}) to use
   */
  public static <K> JavaPairRDD<K, long[]> dedupBroadcast(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates) {
    return dedupBroadcast(filters, candidates, broadcastMaxBytes(JavaSparkContext.fromSparkContext(filters.context())));
  }

  /** {@link #dedupBroadcast(JavaPairRDD, JavaPairRDD)} with a broadcast limit of {@code maxBytes}. */
  public static <K> JavaPairRDD<K, long[]> dedupBroadcast(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates, long maxBytes) {
    BroadcastLimit.checkArgument(maxBytes);
    return BroadcastDedup.dedup(filters, candidates, maxBytes);
  }

  /**
   * {@link #dedupBroadcast(JavaPairRDD, JavaPairRDD)} of the filters saved at {@code path} (by
   * {@link #saveAsObjectFile} or Spark's {@code saveAsObjectFile}): their FORMAT bytes are read
   * and broadcast as they are, never decoded on the way, and each candidate record decodes its
   * key's filter for its own query. The same answers as {@code dedupBroadcast(objectFile(jsc,
   * path), candidates)} without materializing every filter twice: filters sized for many more
   * items than they hold (a fixed n of 10,000 for 200 items: 18 KB of bits, ~2 KB of sparse
   * bytes) cost their compact size, not their bit arrays, until the moment they are queried.
   *
   * <p>Before any job, the saved files' total length (from the file system's listing) is checked
   * against the broadcast limit ({@link #BROADCAST_MAX_BYTES_KEY}), and the collect is bounded as
   * in {@link #dedupBroadcast(JavaPairRDD, JavaPairRDD)}.
   *
   * @throws IllegalArgumentException if the saved files are over the broadcast limit (naming
   *     their bytes, the limit, its conf key and the alternative, {@link #dedup}); (in the job) if
   *     a saved record is not a {@code (key, BloomFilter)} pair
   */
  public static <K> JavaPairRDD<K, long[]> dedupBroadcast(
      JavaSparkContext jsc, String path, JavaPairRDD<K, long[]> candidates) {
    return dedupBroadcast(jsc, path, candidates, broadcastMaxBytes(jsc));
  }

  /** {@link #dedupBroadcast(JavaSparkContext, String, JavaPairRDD)} with a broadcast limit of {@code maxBytes}. */
  public static <K> JavaPairRDD<K, long[]> dedupBroadcast(
      JavaSparkContext jsc, String path, JavaPairRDD<K, long[]> candidates, long maxBytes) {
    BroadcastLimit.checkArgument(maxBytes);
    return dedupBroadcastSaved(jsc, path, BroadcastLimit.savedBytes(jsc, path), candidates, maxBytes);
  }

  /** {@link #dedupBroadcast(JavaSparkContext, String, JavaPairRDD, long)} of files already listed ({@code saved} bytes). */
  private static <K> JavaPairRDD<K, long[]> dedupBroadcastSaved(
      JavaSparkContext jsc, String path, long saved, JavaPairRDD<K, long[]> candidates, long maxBytes) {
    if (saved > maxBytes) {
      throw BroadcastLimit.exceeded("the filters saved at " + path + " take", saved, maxBytes);
    }
    JavaPairRDD<NullWritable, BytesWritable> files = jsc.hadoopFile(path,
        SequenceFilesInputFormat.class, NullWritable.class, BytesWritable.class, jsc.defaultMinPartitions());
    JavaRDD<Tuple2<K, byte[]>> encoded = PartFilesInputFormat.records(files, ObjectFileRecords::deserializeEncoded);
    return BroadcastDedup.dedupEncoded(encoded.mapToPair(t -> t), candidates, maxBytes);
  }

  /** Scala-friendly {@link #dedupBroadcast(JavaSparkContext, String, JavaPairRDD)}. */
  public static <K> RDD<Tuple2<K, long[]>> dedupBroadcast(
      SparkContext sc, String path, RDD<Tuple2<K, long[]>> candidates) {
    return dedupBroadcast(JavaSparkContext.fromSparkContext(sc), path, ScalaRdds.toJavaPairs(candidates)).rdd();
  }

  /** Scala-friendly {@link #dedupBroadcast(JavaPairRDD, JavaPairRDD)}. */
  public static <K> RDD<Tuple2<K, long[]>> dedupBroadcast(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, long[]>> candidates) {
    return dedupBroadcast(ScalaRdds.toJavaPairs(filters), ScalaRdds.toJavaPairs(candidates)).rdd();
  }

  /**
   * The dedup against the filters saved at {@code path}, planned by their size: the broadcast
   * ({@link #dedupBroadcast(JavaSparkContext, String, JavaPairRDD)}: nothing but the filters
   * moves) when the saved files fit the broadcast limit ({@link #BROADCAST_MAX_BYTES_KEY}),
   * otherwise the join ({@code dedup(objectFile(jsc, path), candidates)}: the candidates move, no
   * filter is held on the driver). The same answers either way; the plan taken
   * ({@link #dedupPlan}) is logged at INFO.
   */
  public static <K> JavaPairRDD<K, long[]> dedup(
      JavaSparkContext jsc, String path, JavaPairRDD<K, long[]> candidates) {
    return dedup(jsc, path, candidates, broadcastMaxBytes(jsc));
  }

  /** {@link #dedup(JavaSparkContext, String, JavaPairRDD)} with a broadcast limit of {@code maxBytes}. */
  public static <K> JavaPairRDD<K, long[]> dedup(
      JavaSparkContext jsc, String path, JavaPairRDD<K, long[]> candidates, long maxBytes) {
    BroadcastLimit.checkArgument(maxBytes);
    DedupPlan plan = dedupPlan(jsc, path, maxBytes);
    DedupPlan.LOG.info("sparkbloom dedup of {}: {}", path, plan.describe());
    return plan.isBroadcast()
        ? dedupBroadcastSaved(jsc, path, plan.savedBytes(), candidates, maxBytes)
        : dedup(objectFile(jsc, path), candidates);
  }

  /** Scala-friendly {@link #dedup(JavaSparkContext, String, JavaPairRDD)}. */
  public static <K> RDD<Tuple2<K, long[]>> dedup(SparkContext sc, String path, RDD<Tuple2<K, long[]>> candidates) {
    return dedup(JavaSparkContext.fromSparkContext(sc), path, ScalaRdds.toJavaPairs(candidates)).rdd();
  }

  /**
   * The plan {@link #dedup(JavaSparkContext, String, JavaPairRDD)} takes for the filters saved at
   * {@code path} under the broadcast limit in force: from the file system's listing, no job.
   */
  public static DedupPlan dedupPlan(JavaSparkContext jsc, String path) {
    return dedupPlan(jsc, path, broadcastMaxBytes(jsc));
  }

  /** {@link #dedupPlan(JavaSparkContext, String)} under a broadcast limit of {@code maxBytes}. */
  public static DedupPlan dedupPlan(JavaSparkContext jsc, String path, long maxBytes) {
    BroadcastLimit.checkArgument(maxBytes);
    return new DedupPlan(BroadcastLimit.savedBytes(jsc, path), maxBytes);
  }

  /**
   * {@link #dedup(JavaPairRDD, JavaPairRDD)} for candidates given as {@code (key, item)} pairs:
   * the candidates are grouped per key into a {@code long[]}, queried in one batch per key, and
   * returned as pairs again.
   */
  public static <K> JavaPairRDD<K, Long> dedupPairs(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, Long> candidates) {
    JavaPairRDD<K, long[]> grouped = candidates
        .aggregateByKey(new LongArrayBuilder(), PerKeyFilters::add, LongArrayBuilder::addAll)
        .mapValues(LongArrayBuilder::toArray);
    return dedup(filters, grouped).flatMapValues(PerKeyFilters::boxed);
  }

  /**
   * Scala-friendly {@link #dedupPairs(JavaPairRDD, JavaPairRDD)}: candidates as
   * {@code RDD[(K, Long)]} (any integral value type).
   */
  public static <K> RDD<Tuple2<K, Long>> dedupPairs(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<? extends Tuple2<K, ?>> candidates) {
    return dedupPairs(ScalaRdds.toJavaPairs(filters), ScalaRdds.withLongValues(candidates)).rdd();
  }

  // ---- migration from stored Guava filters ------------------------------------------------

  /**
   * Converts per-key Guava filters (e.g. read back with {@code objectFile} from the classic
   * {@code saveAsObjectFile} pipeline) with {@link BloomFilter#fromGuava}: unshaded
   * {@code com.google.common.hash.BloomFilter} or Spark's shaded
   * {@code org.sparkproject.guava.hash.BloomFilter}, any Guava version, keeping its strategy, so
   * the converted filters answer exactly as the Guava ones for keys put through
   * {@code Funnels.longFunnel()} (and the other funnels listed in {@link BloomFilter}).
   */
  public static <K, G> JavaPairRDD<K, BloomFilter> fromGuava(JavaPairRDD<K, G> guavaFilters) {
    return guavaFilters.mapValues(BloomFilter::fromGuava);
  }

  /** Scala-friendly {@link #fromGuava(JavaPairRDD)}: {@code RDD[(K, GuavaBloomFilter[_])]}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> fromGuava(RDD<? extends Tuple2<K, ?>> guavaFilters) {
    return fromGuava(ScalaRdds.<K, Object>toJavaPairs(guavaFilters)).rdd();
  }

  // ---- one filter for all keys (e.g. a broadcast) ------------------------------------------

  /**
   * The items that {@code filter} has definitely not seen, order kept within each partition. Every
   * task reads the same broadcast filter concurrently (the filter is thread-safe for queries);
   * items are queried in batches of {@value #BATCH}, lazily, so a partition is never held in
   * memory. The broadcast is not closed here: {@code destroy()} it when done.
   */
  public static JavaRDD<Long> retainAbsent(JavaRDD<Long> items, Broadcast<BloomFilter> filter) {
    return items.mapPartitions(it -> retainAbsent(it, filter.value()));
  }

  /**
   * The items of {@code items} that {@code filter} has definitely not seen, in order, computed
   * lazily in batches of {@value #BATCH} (one native call per batch). Null items are skipped.
   */
  public static Iterator<Long> retainAbsent(Iterator<Long> items, BloomFilter filter) {
    return BatchedRetainAbsent.longs(items, filter, BATCH);
  }

  // ---- string items ------------------------------------------------------------------------
  // Each string is hashed as BloomFilter.put(String): its UTF-8 bytes, as Guava's
  // Funnels.stringFunnel(UTF_8), so these filters answer as Guava's string filters do. Batches of
  // BATCH strings cross to the native side in one call each (BloomFilter.putAll(String[]),
  // retainAbsent(String[])). Names differ from the long[] methods: the overloads would erase alike.

  /** {@link #buildPerKey(JavaPairRDD, long, double)} for {@code (key, string item)} pairs. */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyStrings(
      JavaPairRDD<K, String> pairs, long expectedInsertions, double fpp) {
    StringFilterBuilder zero = new StringFilterBuilder(expectedInsertions, fpp);
    return pairs
        .aggregateByKey(zero, (b, item) -> item == null ? b : b.add(item), StringFilterBuilder::merge)
        .mapValues(b -> b.build());
  }

  /** {@link #buildPerKeyStrings(JavaPairRDD, long, double)} into {@code numPartitions} partitions. */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyStrings(
      JavaPairRDD<K, String> pairs, long expectedInsertions, double fpp, int numPartitions) {
    StringFilterBuilder zero = new StringFilterBuilder(expectedInsertions, fpp);
    return pairs
        .aggregateByKey(zero, numPartitions, (b, item) -> item == null ? b : b.add(item), StringFilterBuilder::merge)
        .mapValues(b -> b.build());
  }

  /** Scala-friendly {@link #buildPerKeyStrings(JavaPairRDD, long, double)}: {@code RDD[(K, String)]}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKeyStrings(
      RDD<Tuple2<K, String>> pairs, long expectedInsertions, double fpp) {
    return buildPerKeyStrings(ScalaRdds.<K, String>toJavaPairs(pairs), expectedInsertions, fpp).rdd();
  }

  /** Scala-friendly {@link #buildPerKeyStrings(JavaPairRDD, long, double, int)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKeyStrings(
      RDD<Tuple2<K, String>> pairs, long expectedInsertions, double fpp, int numPartitions) {
    return buildPerKeyStrings(ScalaRdds.<K, String>toJavaPairs(pairs), expectedInsertions, fpp,
        numPartitions).rdd();
  }

  /**
   * {@link #buildPerRecord(JavaPairRDD, long, double)} for {@code (key, String[])} records: one
   * filter per record, without a shuffle, each record's strings in one {@code putAll} call.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecordStrings(
      JavaPairRDD<K, String[]> records, long expectedInsertions, double fpp) {
    FilterBuilder.validate(expectedInsertions, fpp);
    return records.mapValues(items -> {
      BloomFilter f = FilterBuilder.create(expectedInsertions, fpp);
      f.putAll(NullItems.withoutNulls(items));
      return f;
    });
  }

  /** Scala-friendly {@link #buildPerRecordStrings(JavaPairRDD, long, double)}: {@code RDD[(K, Array[String])]}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerRecordStrings(
      RDD<Tuple2<K, String[]>> records, long expectedInsertions, double fpp) {
    return buildPerRecordStrings(ScalaRdds.<K, String[]>toJavaPairs(records), expectedInsertions, fpp).rdd();
  }

  /**
   * {@link #dedup(JavaPairRDD, JavaPairRDD)} for {@code (key, String[])} candidates: per key, the
   * strings its filter has not seen (order kept), one {@code retainAbsent(String[])} call per
   * record; keys without a filter keep all theirs.
   */
  public static <K> JavaPairRDD<K, String[]> dedupStrings(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, String[]> candidates) {
    Optional<Partitioner> p = filters.partitioner();
    Partitioner partitioner = p.isPresent() ? p.get()
        : new HashPartitioner(Math.max(filters.getNumPartitions(), candidates.getNumPartitions()));
    return HashJoinDedup.dedup(filters, candidates, partitioner, HashJoinDedup.STRINGS);
  }

  /** {@link #dedupStrings(JavaPairRDD, JavaPairRDD)} with the join into {@code numPartitions} partitions. */
  public static <K> JavaPairRDD<K, String[]> dedupStrings(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, String[]> candidates, int numPartitions) {
    return HashJoinDedup.dedup(filters, candidates, new HashPartitioner(numPartitions), HashJoinDedup.STRINGS);
  }

  /** Scala-friendly {@link #dedupStrings(JavaPairRDD, JavaPairRDD)}. */
  public static <K> RDD<Tuple2<K, String[]>> dedupStrings(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, String[]>> candidates) {
    return dedupStrings(ScalaRdds.<K, BloomFilter>toJavaPairs(filters),
        ScalaRdds.<K, String[]>toJavaPairs(candidates)).rdd();
  }

  /** Scala-friendly {@link #dedupStrings(JavaPairRDD, JavaPairRDD, int)}. */
  public static <K> RDD<Tuple2<K, String[]>> dedupStrings(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, String[]>> candidates, int numPartitions) {
    return dedupStrings(ScalaRdds.<K, BloomFilter>toJavaPairs(filters),
        ScalaRdds.<K, String[]>toJavaPairs(candidates), numPartitions).rdd();
  }

  /**
   * {@link #retainAbsent(JavaRDD, Broadcast)} for string items: batches of {@value #BATCH}, one
   * native call each, lazily. The broadcast is not closed here.
   */
  public static JavaRDD<String> retainAbsentStrings(JavaRDD<String> items, Broadcast<BloomFilter> filter) {
    return items.mapPartitions(it -> retainAbsentStrings(it, filter.value()));
  }

  /** The string items {@code filter} has definitely not seen, in order, in batches of {@value #BATCH}. */
  public static Iterator<String> retainAbsentStrings(Iterator<String> items, BloomFilter filter) {
    return BatchedRetainAbsent.strings(items, filter, BATCH);
  }

  // ---- plumbing ----------------------------------------------------------------------------

  private static Iterator<Long> boxed(long[] values) {
    return Arrays.stream(values).boxed().iterator();
  }
}
