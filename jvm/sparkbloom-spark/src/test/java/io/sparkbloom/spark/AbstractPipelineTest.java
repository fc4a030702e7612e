package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.rdd.RDD;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;
import scala.reflect.ClassTag$;

/**
 * The per-user pipeline (build &rarr; saveAsObjectFile &rarr; objectFile &rarr; leftOuterJoin &rarr;
 * keep unseen) on local[2], compared with the exact set-based dedup. Subclasses choose
 * {@code spark.serializer} (each test class runs in its own JVM).
 */
abstract class AbstractPipelineTest extends WithSparkSession {
  /** Extra Spark settings of the subclass, as key/value pairs. */
  @Override
  abstract String[] conf();

  /** The classic shape: one (user, history[]) record per user, one putAll per user. */
  @Test
  void perRecordBuildObjectFileRoundTripAndDedup(@TempDir Path tmp) {
    List<Tuple2<String, long[]>> history = SparkTests.history(120, 200);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 400, 10);
    String dir = tmp.resolve("filters").toUri().toString();
    PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 4), PerKeyOptions.of(Sizing.fixed(10_000, 0.001)))
        .saveAsObjectFile(dir);
    JavaPairRDD<String, BloomFilter> loaded =
        JavaPairRDD.fromJavaRDD(jsc.<Tuple2<String, BloomFilter>>objectFile(dir));
    assertEquals(120, loaded.count());

    Map<String, long[]> kept = PerKeyFilters.dedup(loaded, jsc.parallelizePairs(candidates, 3)).collectAsMap();
    SparkTests.Check c = SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), kept);
    assertEquals(120 * 200, c.seenCandidates);
    SparkTests.assertFppWithin(c, 0.001);
  }

  /**
   * The partitioned layout: filters built hash-partitioned, saved with their partitioning, read
   * back with the partitioner (part file i = partition i), so dedup moves only the candidates;
   * same answers as the plain layout. Renamed part files are detected, not silently wrong.
   */
  @Test
  void partitionedObjectFileKeepsItsPartitionerAndAnswersTheSame(@TempDir Path tmp) throws Exception {
    List<Tuple2<String, long[]>> history = SparkTests.history(90, 150);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 200, 4);
    JavaPairRDD<String, long[]> historyRdd = jsc.parallelizePairs(history, 3);
    JavaPairRDD<String, long[]> candidateRdd = jsc.parallelizePairs(candidates, 2);

    JavaPairRDD<String, BloomFilter> built = PerKeyFilters.buildPerRecord(historyRdd, PerKeyOptions.of(Sizing.fixed(10_000, 0.001)).withPartitions(5));
    assertEquals(5, built.partitioner().get().numPartitions());
    String dir = tmp.resolve("partitioned").toUri().toString();
    PerKeyFilters.saveAsObjectFile(built, dir);
    JavaPairRDD<String, BloomFilter> loaded = PerKeyFilters.objectFile(jsc, dir);
    assertTrue(loaded.partitioner().isPresent(), "partitioner restored");
    assertEquals(5, loaded.getNumPartitions());
    JavaPairRDD<String, long[]> kept = PerKeyFilters.dedup(loaded, candidateRdd);
    assertEquals(loaded.partitioner().get(), kept.partitioner().get(), "the join kept the filters' partitioning");

    String plainDir = tmp.resolve("plain").toUri().toString();
    PerKeyFilters.buildPerRecord(historyRdd, PerKeyOptions.of(Sizing.fixed(10_000, 0.001))).saveAsObjectFile(plainDir);
    JavaPairRDD<String, BloomFilter> plain = PerKeyFilters.objectFile(jsc, plainDir);
    assertTrue(!plain.partitioner().isPresent());
    Map<String, long[]> a = kept.collectAsMap();
    Map<String, long[]> b = PerKeyFilters.dedup(plain, candidateRdd).collectAsMap();
    assertEquals(b.keySet(), a.keySet());
    for (String user : a.keySet()) {
      assertArrayEquals(b.get(user), a.get(user), "user " + user);
    }
    SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), a);

    // buildPerKey output is partitioned too; partitionBy first saves another partitioning
    String again = tmp.resolve("again").toUri().toString();
    PerKeyFilters.saveAsObjectFile(plain.partitionBy(new org.apache.spark.HashPartitioner(3)), again);
    assertEquals(3, PerKeyFilters.objectFile(jsc, again).partitioner().get().numPartitions());

    // swap two part files: the keys no longer match their partition, and reading says so
    java.nio.file.Path d = tmp.resolve("partitioned");
    java.nio.file.Path p0 = d.resolve("part-00000");
    java.nio.file.Path p1 = d.resolve("part-00001");
    java.nio.file.Path t = d.resolve("swap");
    java.nio.file.Files.move(p0, t);
    java.nio.file.Files.move(p1, p0);
    java.nio.file.Files.move(t, p1);
    for (String crc : new String[] {".part-00000.crc", ".part-00001.crc"}) {
      java.nio.file.Files.deleteIfExists(d.resolve(crc));
    }
    Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
        () -> PerKeyFilters.objectFile(jsc, dir).count());
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    assertTrue(String.valueOf(root.getMessage()).contains("hash partitions) puts it in"), root.toString());
  }

  /**
   * (user, item) pairs through aggregateByKey: some users have more than FilterBuilder.BATCH
   * items, so builders holding a native filter cross the shuffle; the filters are full (n items
   * for n expected), so the observed false-positive rate is close to p and must stay in the bound.
   */
  @Test
  void perKeyBuildFromPairsAtCapacityStaysWithinFpp(@TempDir Path tmp) {
    int users = 24;
    int records = 5000; // > FilterBuilder.BATCH
    double p = 0.01;
    List<Tuple2<String, long[]>> history = SparkTests.history(users, records);
    List<Tuple2<String, Long>> pairs = new ArrayList<>();
    for (Tuple2<String, long[]> h : history) {
      for (long v : h._2()) {
        pairs.add(new Tuple2<>(h._1(), v));
      }
    }
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 2000, 3);
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerKey(jsc.parallelizePairs(pairs, 6), PerKeyOptions.of(Sizing.fixed(records, p)).withPartitions(3));
    String dir = tmp.resolve("filters").toUri().toString();
    filters.saveAsObjectFile(dir);
    JavaPairRDD<String, BloomFilter> loaded =
        JavaPairRDD.fromJavaRDD(jsc.<Tuple2<String, BloomFilter>>objectFile(dir));

    Map<String, long[]> kept =
        PerKeyFilters.dedup(loaded, jsc.parallelizePairs(candidates, 4)).collectAsMap();
    SparkTests.Check c = SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), kept);
    SparkTests.assertFppWithin(c, p);
    double expected = p * c.unseenCandidates;
    assertTrue(c.unseenDropped > expected - 6 * Math.sqrt(expected) && c.unseenDropped > 0,
        "a filter at capacity should drop about p of the unseen items; dropped " + c.unseenDropped
            + " of " + c.unseenCandidates);
  }

  /** buildPerKeyFromArrays merges several records of one key; dedupPairs works on pairs. */
  @Test
  void repeatedKeysAndPairCandidates() {
    List<Tuple2<String, long[]>> history = SparkTests.history(40, 300);
    List<Tuple2<String, long[]>> split = new ArrayList<>();
    for (Tuple2<String, long[]> h : history) { // each user's history in three records
      long[] a = h._2();
      split.add(new Tuple2<>(h._1(), java.util.Arrays.copyOfRange(a, 0, 100)));
      split.add(new Tuple2<>(h._1(), java.util.Arrays.copyOfRange(a, 100, 250)));
      split.add(new Tuple2<>(h._1(), java.util.Arrays.copyOfRange(a, 250, 300)));
    }
    JavaPairRDD<String, BloomFilter> filters =
        PerKeyFilters.buildPerKeyFromArrays(jsc.parallelizePairs(split, 5), PerKeyOptions.of(Sizing.fixed(1000, 0.001)));
    assertEquals(40, filters.count());

    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 100, 2);
    List<Tuple2<String, Long>> candidatePairs = new ArrayList<>();
    for (Tuple2<String, long[]> t : candidates) {
      for (long v : t._2()) {
        candidatePairs.add(new Tuple2<>(t._1(), v));
      }
    }
    List<Tuple2<String, Long>> keptPairs =
        PerKeyFilters.dedupPairs(filters, jsc.parallelizePairs(candidatePairs, 3)).collect();
    Map<String, List<Long>> grouped = new HashMap<>();
    for (Tuple2<String, Long> t : keptPairs) {
      grouped.computeIfAbsent(t._1(), k -> new ArrayList<>()).add(t._2());
    }
    Map<String, long[]> kept = new HashMap<>();
    for (Tuple2<String, long[]> t : candidates) {
      List<Long> l = grouped.getOrDefault(t._1(), List.of());
      kept.put(t._1(), l.stream().mapToLong(Long::longValue).toArray());
    }
    // dedupPairs groups per key without an order guarantee: compare as sets
    Map<String, long[]> history2 = SparkTests.byKey(history);
    for (Map.Entry<String, long[]> e : kept.entrySet()) {
      java.util.Set<Long> seen = new java.util.HashSet<>();
      for (long v : history2.getOrDefault(e.getKey(), new long[0])) {
        seen.add(v);
      }
      for (long v : e.getValue()) {
        assertTrue(!seen.contains(v), "false negative for " + e.getKey());
      }
    }
    long unseen = candidates.stream().flatMapToLong(t -> java.util.Arrays.stream(t._2())
        .filter(v -> java.util.Arrays.stream(history2.getOrDefault(t._1(), new long[0])).noneMatch(h -> h == v)))
        .count();
    long keptTotal = keptPairs.size();
    assertTrue(keptTotal <= unseen && keptTotal >= unseen - 5, "kept " + keptTotal + " of " + unseen + " unseen");
  }

  /**
   * The RDD overloads Scala calls (here through {@code .rdd()}) give what the JavaPairRDD ones
   * give, partitioners included.
   */
  @Test
  void rddOverloadsMatchTheJavaPairOnes(@TempDir Path tmp) {
    List<Tuple2<String, long[]>> history = SparkTests.history(30, 100);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 60, 2);
    JavaPairRDD<String, long[]> historyRdd = jsc.parallelizePairs(history, 3);
    JavaPairRDD<String, long[]> candidateRdd = jsc.parallelizePairs(candidates, 2);

    RDD<Tuple2<String, BloomFilter>> built =
        PerKeyFilters.buildPerRecord(historyRdd.rdd(), PerKeyOptions.of(Sizing.fixed(1000, 0.01)).withPartitions(4));
    assertEquals(4, built.partitioner().get().numPartitions());
    String dir = tmp.resolve("filters").toUri().toString();
    PerKeyFilters.saveAsObjectFile(
        JavaPairRDD.fromRDD(built, ClassTag$.MODULE$.apply(String.class), ClassTag$.MODULE$.apply(BloomFilter.class))
            .partitionBy(new org.apache.spark.HashPartitioner(5)).rdd(), dir);
    RDD<Tuple2<String, BloomFilter>> loaded = PerKeyFilters.objectFile(jsc.sc(), dir);
    assertEquals(5, loaded.partitioner().get().numPartitions());

    Map<String, long[]> viaRdd = JavaPairRDD.fromRDD(
        PerKeyFilters.dedup(loaded, candidateRdd.rdd()), ClassTag$.MODULE$.apply(String.class),
        ClassTag$.MODULE$.apply(long[].class)).collectAsMap();
    Map<String, long[]> viaJava = PerKeyFilters.dedup(PerKeyFilters.buildPerRecord(historyRdd, PerKeyOptions.of(Sizing.fixed(1000, 0.01)).withPartitions(4)), candidateRdd,
        PerKeyOptions.defaults().withPartitions(3)).collectAsMap();
    assertEquals(viaJava.keySet(), viaRdd.keySet());
    for (String user : viaJava.keySet()) {
      assertArrayEquals(viaJava.get(user), viaRdd.get(user), "user " + user);
    }
    SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), viaRdd);

    List<Tuple2<String, Long>> candidatePairs = new ArrayList<>();
    for (Tuple2<String, long[]> t : candidates) {
      for (long v : t._2()) {
        candidatePairs.add(new Tuple2<>(t._1(), v));
      }
    }
    long keptPairs = PerKeyFilters.dedupPairs(
        JavaPairRDD.fromRDD(loaded, ClassTag$.MODULE$.apply(String.class), ClassTag$.MODULE$.apply(BloomFilter.class)),
        jsc.parallelizePairs(candidatePairs, 2)).count();
    assertEquals(viaJava.values().stream().mapToLong(a -> a.length).sum(), keptPairs);
  }

  /** A filter as the zero value of aggregate() travels in the task closure (Java serialization). */
  @Test
  void filterAsAggregateZeroValueAndReduceByKeyMerge() {
    List<Long> items = new ArrayList<>();
    for (long i = 0; i < 20_000; i++) {
      items.add(i * 7919);
    }
    BloomFilter zero = BloomFilter.create(20_000, 0.01);
    BloomFilter all = jsc.parallelize(items, 8).aggregate(zero,
        (f, v) -> {
          f.put(v);
          return f;
        },
        (a, b) -> {
          a.merge(b);
          return a;
        });
    for (long v : items) {
      assertTrue(all.mightContain(v));
    }
    // reduceByKey merging per-key filters through the shuffle
    List<Tuple2<Integer, Long>> keyed = new ArrayList<>();
    for (long v : items) {
      keyed.add(new Tuple2<>((int) (v % 5), v));
    }
    Map<Integer, BloomFilter> perKey = jsc.parallelizePairs(keyed, 8)
        .mapValues(v -> {
          BloomFilter f = BloomFilter.create(10_000, 0.01);
          f.put(v.longValue());
          return f;
        })
        .reduceByKey((a, b) -> {
          a.merge(b);
          return a;
        })
        .collectAsMap();
    for (Tuple2<Integer, Long> t : keyed) {
      assertTrue(perKey.get(t._1()).mightContain(t._2().longValue()));
    }
    // what Spark sent back answers exactly like a filter built on the driver
    BloomFilter local = BloomFilter.create(20_000, 0.01);
    for (long v : items) {
      local.put(v);
    }
    assertArrayEquals(local.toByteArray(), all.toByteArray());
  }
}
