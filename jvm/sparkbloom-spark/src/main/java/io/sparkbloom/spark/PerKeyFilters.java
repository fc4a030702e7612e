package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapred.SequenceFileInputFormat;
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
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * RDD helpers for per-key Bloom filters (one filter per user, say), usable from Java and Scala.
 *
 * <p>Build: {@link #buildPerKey} turns {@code (key, item)} pairs into one filter per key through
 * {@code aggregateByKey} with a {@link FilterBuilder}, which buffers items in a {@code long[]} and
 * hands them to the native side in batches ({@code putAll}), never one JNI call per record.
 * {@link #buildPerRecord} builds one filter per record from {@code (key, long[])} records that are
 * already grouped by key (the shape of the classic Guava pipeline), without a shuffle.
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
 * <p>Scala: the {@code RDD} overloads take and return plain RDDs, e.g.
 * {@code PerKeyFilters.buildPerKey(pairs: RDD[(String, Long)], 10000, 0.001): RDD[(String, BloomFilter)]}.
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
        .aggregateByKey(zero, (b, item) -> b.add(item), FilterBuilder::merge)
        .mapValues(FilterBuilder::build);
  }

  /** {@link #buildPerKey(JavaPairRDD, long, double)} into {@code numPartitions} partitions. */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKey(
      JavaPairRDD<K, Long> pairs, long expectedInsertions, double fpp, int numPartitions) {
    FilterBuilder zero = new FilterBuilder(expectedInsertions, fpp);
    return pairs
        .aggregateByKey(zero, numPartitions, (b, item) -> b.add(item), FilterBuilder::merge)
        .mapValues(FilterBuilder::build);
  }

  /**
   * Scala-friendly {@link #buildPerKey(JavaPairRDD, long, double)}: {@code RDD[(K, Long)]} (any
   * integral value type) to {@code RDD[(K, BloomFilter)]}.
   */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(
      RDD<? extends Tuple2<K, ?>> pairs, long expectedInsertions, double fpp) {
    JavaPairRDD<K, Long> javaPairs = toJavaPairs(pairs).mapValues(PerKeyFilters::toLong);
    return buildPerKey(javaPairs, expectedInsertions, fpp).rdd();
  }

  /** Scala-friendly {@link #buildPerKey(JavaPairRDD, long, double, int)}: hash-partitioned output. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKey(
      RDD<? extends Tuple2<K, ?>> pairs, long expectedInsertions, double fpp, int numPartitions) {
    JavaPairRDD<K, Long> javaPairs = toJavaPairs(pairs).mapValues(PerKeyFilters::toLong);
    return buildPerKey(javaPairs, expectedInsertions, fpp, numPartitions).rdd();
  }

  /**
   * One filter per key from {@code (key, items)} records; a key may appear in several records
   * (their items end up in the same filter). Batches go to the native side in one call each.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerKeyFromArrays(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp) {
    FilterBuilder zero = new FilterBuilder(expectedInsertions, fpp);
    return records
        .aggregateByKey(zero, FilterBuilder::addAll, FilterBuilder::merge)
        .mapValues(FilterBuilder::build);
  }

  /** Scala-friendly {@link #buildPerKeyFromArrays(JavaPairRDD, long, double)}. */
  public static <K> RDD<Tuple2<K, BloomFilter>> buildPerKeyFromArrays(
      RDD<Tuple2<K, long[]>> records, long expectedInsertions, double fpp) {
    return buildPerKeyFromArrays(toJavaPairs(records), expectedInsertions, fpp).rdd();
  }

  /**
   * One filter per record, without a shuffle: for records already grouped by key (one record per
   * key, as in the classic {@code map { case (user, records) => ... }} Guava pipeline). Each
   * record's items go to the native side in one {@code putAll} call.
   */
  public static <K> JavaPairRDD<K, BloomFilter> buildPerRecord(
      JavaPairRDD<K, long[]> records, long expectedInsertions, double fpp) {
    FilterBuilder.checkSizing(expectedInsertions, fpp);
    return records.mapValues(items -> {
      BloomFilter f = BloomFilter.create(expectedInsertions, fpp);
      f.putAll(items);
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
    return buildPerRecord(toJavaPairs(records), expectedInsertions, fpp).rdd();
  }

  // ---- storage -----------------------------------------------------------------------------

  /** Marker file of a hash-partitioned filter objectFile: "hash N". Hidden from Hadoop readers. */
  static final String PARTITIONING_FILE = "_sparkbloom_partitioning";

  /**
   * {@code filters.saveAsObjectFile(path)}; when the filters are hash-partitioned (as
   * {@code buildPerKey(..., numPartitions)} and {@code buildPerRecord(..., numPartitions)} make
   * them), also records the partitioning beside the part files, so that {@link #objectFile} reads
   * them back partitioned and {@link #dedup} joins without shuffling the filters.
   */
  public static <K> void saveAsObjectFile(JavaPairRDD<K, BloomFilter> filters, String path) {
    filters.saveAsObjectFile(path);
    Optional<Partitioner> p = filters.partitioner();
    if (p.isPresent() && p.get() instanceof HashPartitioner) {
      writePartitioning(filters.context().hadoopConfiguration(), path, p.get().numPartitions());
    }
  }

  /** {@link #saveAsObjectFile(JavaPairRDD, String)} into {@code numPartitions} hash partitions. */
  public static <K> void saveAsObjectFile(JavaPairRDD<K, BloomFilter> filters, String path, int numPartitions) {
    saveAsObjectFile(filters.partitionBy(new HashPartitioner(numPartitions)), path);
  }

  /** Scala-friendly {@link #saveAsObjectFile(JavaPairRDD, String)}. */
  public static <K> void saveAsObjectFile(RDD<Tuple2<K, BloomFilter>> filters, String path) {
    saveAsObjectFile(PerKeyFilters.<K, BloomFilter>toJavaPairs(filters), path);
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
    int n = readPartitioning(jsc.hadoopConfiguration(), path);
    if (n > 0) {
      // one partition per part file, in part-file order: partition i = part-0000i
      JavaPairRDD<NullWritable, BytesWritable> files = jsc.hadoopFile(
          path, PartFilesInputFormat.class, NullWritable.class, BytesWritable.class, n);
      if (files.getNumPartitions() == n) {
        JavaRDD<Tuple2<K, BloomFilter>> records = PartFilesInputFormat.records(files, PerKeyFilters::deserializeRecords);
        return toJavaPairs(new KnownPartitionerRDD<>(records.rdd(), new HashPartitioner(n), path));
      }
    }
    // as jsc.objectFile(path) reads, but a bad record names its file
    JavaPairRDD<NullWritable, BytesWritable> files = jsc.hadoopFile(path,
        SequenceFileInputFormat.class, NullWritable.class, BytesWritable.class, jsc.defaultMinPartitions());
    return PartFilesInputFormat.<Tuple2<K, BloomFilter>>records(files, PerKeyFilters::deserializeRecords).mapToPair(t -> t);
  }

  /**
   * One record of {@code saveAsObjectFile}: a Java-serialized array of up to 10 elements, as
   * {@code SparkContext.objectFile} reads it (classes from the task's context class loader).
   */
  @SuppressWarnings("unchecked")
  private static <T> Iterator<T> deserializeRecords(BytesWritable value) throws IOException, ClassNotFoundException {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(value.getBytes(), 0, value.getLength())) {
      @Override
      protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        if (loader != null) {
          try {
            return Class.forName(desc.getName(), false, loader);
          } catch (ClassNotFoundException e) {
            // fall through to the default lookup (primitive types, bootstrap classes)
          }
        }
        return super.resolveClass(desc);
      }
    }) {
      Object[] array = (Object[]) in.readObject();
      return (Iterator<T>) Arrays.asList(array).iterator();
    }
  }

  private static void writePartitioning(Configuration conf, String path, int numPartitions) {
    try {
      Path file = new Path(path, PARTITIONING_FILE);
      FileSystem fs = file.getFileSystem(conf);
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(("hash " + numPartitions + "\n").getBytes(StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + PARTITIONING_FILE + " in " + path, e);
    }
  }

  private static int readPartitioning(Configuration conf, String path) {
    try {
      Path file = new Path(path, PARTITIONING_FILE);
      FileSystem fs = file.getFileSystem(conf);
      if (!fs.exists(file)) {
        return -1;
      }
      try (FSDataInputStream in = fs.open(file)) {
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
        String[] parts = text.split("\\s+");
        return parts.length == 2 && parts[0].equals("hash") ? Integer.parseInt(parts[1]) : -1;
      }
    } catch (IOException | NumberFormatException e) {
      return -1; // unreadable marker: read the files without a partitioner
    }
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
    return dedup(filters, candidates, partitioner);
  }

  /** {@link #dedup(JavaPairRDD, JavaPairRDD)} with the join into {@code numPartitions} partitions. */
  public static <K> JavaPairRDD<K, long[]> dedup(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates, int numPartitions) {
    return dedup(filters, candidates, new HashPartitioner(numPartitions));
  }

  /**
   * The join behind {@link #dedup(JavaPairRDD, JavaPairRDD)}: a left outer hash join per
   * partition. Both sides are brought to {@code partitioner} (a side already partitioned that way
   * does not move); each task loads its partition's filters into a hash map (several filters of
   * one key are merged) and streams its candidate records through it. Unlike
   * {@code leftOuterJoin}, no filter goes into Spark's size-estimated cogroup map.
   */
  static <K> JavaPairRDD<K, long[]> dedup(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, long[]> candidates, Partitioner partitioner) {
    JavaPairRDD<K, BloomFilter> f = partitionedBy(filters, partitioner);
    JavaPairRDD<K, long[]> c = partitionedBy(candidates, partitioner);
    JavaRDD<Tuple2<K, long[]>> kept = c.zipPartitions(f, PerKeyFilters::hashJoinRetainAbsent);
    return toJavaPairs(new KnownPartitionerRDD<>(kept.rdd(), partitioner, "dedup"));
  }

  private static <K, V> JavaPairRDD<K, V> partitionedBy(JavaPairRDD<K, V> rdd, Partitioner partitioner) {
    Optional<Partitioner> p = rdd.partitioner();
    return p.isPresent() && p.get().equals(partitioner) ? rdd : rdd.partitionBy(partitioner);
  }

  private static <K> Iterator<Tuple2<K, long[]>> hashJoinRetainAbsent(
      Iterator<Tuple2<K, long[]>> candidates, Iterator<Tuple2<K, BloomFilter>> filters) {
    Map<K, BloomFilter> byKey = new HashMap<>();
    while (filters.hasNext()) {
      Tuple2<K, BloomFilter> t = filters.next();
      byKey.merge(t._1(), t._2(), (a, b) -> {
        BloomFilter union = a.copy();
        union.merge(b);
        return union;
      });
    }
    return new Iterator<Tuple2<K, long[]>>() {
      @Override
      public boolean hasNext() {
        return candidates.hasNext();
      }

      @Override
      public Tuple2<K, long[]> next() {
        Tuple2<K, long[]> t = candidates.next();
        BloomFilter filter = byKey.get(t._1());
        long[] items = t._2();
        return filter == null || items.length == 0 ? t : new Tuple2<>(t._1(), filter.retainAbsent(items));
      }
    };
  }

  /** Scala-friendly {@link #dedup(JavaPairRDD, JavaPairRDD)}. */
  public static <K> RDD<Tuple2<K, long[]>> dedup(
      RDD<Tuple2<K, BloomFilter>> filters, RDD<Tuple2<K, long[]>> candidates) {
    return dedup(toJavaPairs(filters), toJavaPairs(candidates)).rdd();
  }

  /**
   * {@link #dedup(JavaPairRDD, JavaPairRDD)} for candidates given as {@code (key, item)} pairs:
   * the candidates are grouped per key into a {@code long[]}, queried in one batch per key, and
   * returned as pairs again.
   */
  public static <K> JavaPairRDD<K, Long> dedupPairs(
      JavaPairRDD<K, BloomFilter> filters, JavaPairRDD<K, Long> candidates) {
    JavaPairRDD<K, long[]> grouped = candidates
        .aggregateByKey(new LongArrayBuilder(), LongArrayBuilder::add, LongArrayBuilder::addAll)
        .mapValues(LongArrayBuilder::toArray);
    return dedup(filters, grouped).flatMapValues(PerKeyFilters::boxed);
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
    return fromGuava(PerKeyFilters.<K, Object>toJavaPairs(guavaFilters)).rdd();
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
    return new BatchedRetainAbsent(items, filter, BATCH);
  }

  /** Lazy, batched {@code retainAbsent} over an iterator. */
  static final class BatchedRetainAbsent implements Iterator<Long> {
    private final Iterator<Long> in;
    private final BloomFilter filter;
    private final long[] batch;
    private long[] out = new long[0];
    private int pos;

    BatchedRetainAbsent(Iterator<Long> in, BloomFilter filter, int batchSize) {
      this.in = in;
      this.filter = filter;
      this.batch = new long[batchSize];
    }

    @Override
    public boolean hasNext() {
      while (pos == out.length) {
        if (!in.hasNext()) {
          return false;
        }
        int n = 0;
        while (n < batch.length && in.hasNext()) {
          Long v = in.next();
          if (v != null) {
            batch[n++] = v;
          }
        }
        out = n == 0 ? new long[0] : filter.retainAbsent(n == batch.length ? batch : Arrays.copyOf(batch, n));
        pos = 0;
      }
      return true;
    }

    @Override
    public Long next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return out[pos++];
    }
  }

  // ---- plumbing ----------------------------------------------------------------------------

  static long toLong(Object v) {
    if (v instanceof Long) {
      return (Long) v;
    }
    if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      return ((Number) v).longValue();
    }
    throw new IllegalArgumentException(
        "expected an integral item (Long, Int, Short, Byte), got "
            + (v == null ? "null" : v.getClass().getName()));
  }

  private static Iterator<Long> boxed(long[] values) {
    return Arrays.stream(values).boxed().iterator();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static <K, V> JavaPairRDD<K, V> toJavaPairs(RDD<? extends Tuple2<K, ?>> rdd) {
    ClassTag<Object> anyRef = ClassTag$.MODULE$.AnyRef();
    return new JavaPairRDD<K, V>((RDD) rdd, (ClassTag) anyRef, (ClassTag) anyRef);
  }
}
