package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.dedup.BroadcastDedup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * {@link PerKeyFilters#dedupBroadcast}: the filters broadcast as their FORMAT bytes and decoded
 * per query answer exactly as the hash join does, for filters sized far above their contents
 * (sparse bytes), per-key sized ones and keys with several filters of different shapes; the
 * caller's filters stay open; saved filters are broadcast from their bytes without decoding
 * (the records read as bytes: {@code storage.ObjectFileRecordsTest}).
 */
class BroadcastDedupTest extends WithSparkSession {
  private static final double P = 0.001;

  @Test
  void fixedSizeFiltersAnswerAsTheJoinAndStayTheCallers() {
    List<Tuple2<String, long[]>> history = SparkTests.history(60, 200);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 500, 3);
    // sized for 10,000 items, holding 200: their bytes are sparse, about a ninth of the bits
    JavaPairRDD<String, BloomFilter> filters = PerKeyFilters
        .buildPerRecord(jsc.parallelizePairs(history, 3), PerKeyOptions.of(Sizing.fixed(10_000, P)))
        .persist(StorageLevel.MEMORY_ONLY());
    BloomFilter one = filters.values().first();
    assertTrue(one.toByteArray().length < one.bitSize() / 8 / 5, "sparse bytes: " + one.toByteArray().length);
    JavaPairRDD<String, long[]> c = jsc.parallelizePairs(candidates, 4);

    Map<String, long[]> joined = PerKeyFilters.dedup(filters, c).collectAsMap();
    Map<String, long[]> broadcast = PerKeyFilters.dedupBroadcast(filters, c, PerKeyOptions.defaults()).collectAsMap();
    SparkTests.assertSameAnswers(joined, broadcast);
    SparkTests.Check check = SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), broadcast);
    SparkTests.assertFppWithin(check, P);
    // the candidates kept their partitioning (answered in place)
    assertEquals(4, PerKeyFilters.dedupBroadcast(filters, c, PerKeyOptions.defaults()).getNumPartitions());
    // the cached filters were only read: none was closed (a closed filter cannot be encoded)
    assertEquals(history.size(), filters.mapValues(BloomFilter::toByteArray).count());
    filters.unpersist();
  }

  @Test
  void severalFiltersOfOneKeyKeepOnlyWhatNoneHasSeen() {
    long[] a = {1, 2, 3};
    long[] b = {4, 5};
    BloomFilter fixed = Sizing.fixed(10_000, P).build(a);
    BloomFilter perKey = Sizing.perKeyCount(P).build(b); // another shape
    BloomFilter sameShape = Sizing.fixed(10_000, P).build(new long[] {6});
    List<Tuple2<String, BloomFilter>> filters = new ArrayList<>();
    filters.add(new Tuple2<>("u", fixed));
    filters.add(new Tuple2<>("u", perKey));
    filters.add(new Tuple2<>("u", sameShape));
    filters.add(new Tuple2<>("v", null)); // no filter
    List<Tuple2<String, long[]>> candidates = List.of(
        new Tuple2<>("u", new long[] {1, 7, 4, 6, 8}),
        new Tuple2<>("u", new long[] {5, 9}), // a second record of the same key
        new Tuple2<>("v", new long[] {1, 2}),
        new Tuple2<>("w", new long[] {3}),
        new Tuple2<>("u", new long[0]));
    List<Tuple2<String, long[]>> kept = PerKeyFilters.dedupBroadcast(jsc.parallelizePairs(filters, 2), jsc.parallelizePairs(candidates, 1), PerKeyOptions.defaults()).collect();
    assertEquals(5, kept.size());
    assertArrayEquals(new long[] {7, 8}, kept.get(0)._2());
    assertArrayEquals(new long[] {9}, kept.get(1)._2());
    assertArrayEquals(new long[] {1, 2}, kept.get(2)._2(), "a null filter is no filter");
    assertArrayEquals(new long[] {3}, kept.get(3)._2(), "no filter: everything kept");
    assertArrayEquals(new long[0], kept.get(4)._2());
    assertFalse(fixed.isClosed() || perKey.isClosed() || sameShape.isClosed());
  }

  @Test
  void savedFiltersAreBroadcastFromTheirBytes(@TempDir Path dir) {
    List<Tuple2<String, long[]>> history = SparkTests.history(40, 200);
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 300, 2);
    JavaPairRDD<String, long[]> c = jsc.parallelizePairs(candidates, 3);
    for (Sizing sizing : List.of(Sizing.fixed(10_000, P), Sizing.perKeyCount(P))) {
      JavaPairRDD<String, BloomFilter> filters = PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 3), PerKeyOptions.of(sizing));
      String ours = dir.resolve("ours-" + sizing.isPerKeyCount()).toUri().toString();
      String spark = dir.resolve("spark-" + sizing.isPerKeyCount()).toUri().toString();
      PerKeyFilters.saveAsObjectFile(filters.partitionBy(new org.apache.spark.HashPartitioner(4)), ours); // with its marker
      filters.saveAsObjectFile(spark); // Spark's own layout: 10 records per group
      Map<String, long[]> expected = PerKeyFilters.dedup(PerKeyFilters.objectFile(jsc, ours), c).collectAsMap();
      SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), expected);
      SparkTests.assertSameAnswers(expected, PerKeyFilters.dedupBroadcast(jsc, ours, c, PerKeyOptions.defaults()).collectAsMap());
      SparkTests.assertSameAnswers(expected, PerKeyFilters.dedupBroadcast(jsc, spark, c, PerKeyOptions.defaults()).collectAsMap());
      SparkTests.assertSameAnswers(expected, PerKeyFilters.dedup(jsc, spark, c).collectAsMap());
    }
  }

  private org.apache.spark.SparkContext spark() {
    return spark.sparkContext();
  }

  @Test
  void savedRecordsThatAreNotFiltersAreNamed(@TempDir Path dir) {
    String path = dir.resolve("strings").toUri().toString();
    jsc.parallelizePairs(List.of(new Tuple2<>("u", "not a filter")), 1).saveAsObjectFile(path);
    SparkException e = assertThrows(SparkException.class, () -> PerKeyFilters
        .dedupBroadcast(jsc, path, jsc.parallelizePairs(List.of(new Tuple2<>("u", new long[] {1})), 1),
            PerKeyOptions.defaults())
        .collect());
    assertTrue(String.valueOf(e.getMessage()).contains("not a (key, BloomFilter) record of saveAsObjectFile: (key, java.lang.String)"),
        e.getMessage());
  }

  @Test
  void corruptBytesInTheBroadcastNameTheKey() {
    byte[] good = Sizing.fixed(1_000, P).build(new long[] {1}).toByteArray();
    byte[] bad = good.clone();
    bad[bad.length - 1] ^= 1; // the CRC
    JavaPairRDD<String, byte[]> encoded = jsc.parallelizePairs(List.of(new Tuple2<>("k", bad)), 1);
    SparkException e = assertThrows(SparkException.class, () -> BroadcastDedup
        .dedupEncoded(encoded, jsc.parallelizePairs(List.of(new Tuple2<>("k", new long[] {1})), 1), Long.MAX_VALUE)
        .collect());
    assertTrue(String.valueOf(e.getMessage()).contains("cannot decode the filter of key k"), e.getMessage());
  }
}
