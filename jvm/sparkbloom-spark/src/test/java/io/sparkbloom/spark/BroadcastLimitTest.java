package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * The broadcast dedup's size limit: saved filters over it are refused before any job, in-memory
 * filters are collected within it (the job fails with the clear exception once over), and
 * {@code dedup(jsc, path, candidates)} broadcasts what fits and joins what does not, answering as
 * the join does either way. The session sets the limit to 64 KiB: 40 filters sized for 10,000
 * items (~2 KB of sparse bytes each, ~80 KB) are over it, 40 per-key sized ones (~410 bytes each)
 * fit.
 */
class BroadcastLimitTest extends WithSparkSession {
  private static final double P = 0.001;
  private static final long LIMIT = 64 << 10;
  private final List<Tuple2<String, long[]>> history = SparkTests.history(40, 200);
  private final List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 300, 2);

  @Override
  String[] conf() {
    return new String[] {PerKeyFilters.BROADCAST_MAX_BYTES_KEY, "64k"};
  }

  private String save(Path dir, Sizing sizing) {
    String path = dir.resolve("filters-" + sizing.isPerKeyCount()).toUri().toString();
    PerKeyFilters.saveAsObjectFile(PerKeyFilters.buildPerRecord(jsc.parallelizePairs(history, 3), PerKeyOptions.of(sizing)), path);
    return path;
  }

  private JavaPairRDD<String, long[]> candidates() {
    return jsc.parallelizePairs(candidates, 3);
  }

  private static void assertNamesLimitAndAlternative(IllegalArgumentException e, long limit) {
    String m = e.getMessage();
    assertTrue(m.contains(String.format("over the broadcast limit of %,d bytes", limit)), m);
    assertTrue(m.contains(PerKeyFilters.BROADCAST_MAX_BYTES_KEY), m);
    assertTrue(m.contains("use PerKeyFilters.dedup"), m);
  }

  @Test
  void theConfKeySetsTheLimit() {
    assertEquals(LIMIT, PerKeyOptions.defaults().broadcastMaxBytes(jsc));
    assertThrows(IllegalArgumentException.class, () -> DedupPlan.of(jsc, "unused", PerKeyOptions.defaults().withBroadcastMaxBytes(-1)));
  }

  @Test
  void savedFiltersOverTheLimitAreRefusedBeforeAnyJob(@TempDir Path dir) {
    String path = save(dir, Sizing.perKeyCount(P));
    long saved = DedupPlan.of(jsc, path, PerKeyOptions.defaults()).savedBytes();
    // the listing counts the part files only: at least the filters' bytes, at most a few per record more
    long filterBytes = PerKeyFilters.objectFile(jsc, path).values().map(f -> (long) f.toByteArray().length)
        .reduce(Long::sum);
    assertTrue(saved >= filterBytes && saved < filterBytes + 100 * history.size(), saved + " vs " + filterBytes);
    jsc.setJobGroup("limit-check", "no job may run", false);
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> PerKeyFilters.dedupBroadcast(jsc, path, candidates(), PerKeyOptions.defaults().withBroadcastMaxBytes(saved - 1)));
      assertNamesLimitAndAlternative(e, saved - 1);
      assertTrue(e.getMessage().contains(String.format("the filters saved at %s take %,d bytes", path, saved)),
          e.getMessage());
      assertEquals(0, jsc.statusTracker().getJobIdsForGroup("limit-check").length, "the check ran a job");
    } finally {
      jsc.clearJobGroup();
    }
    // exactly at the limit it broadcasts
    Map<String, long[]> expected = PerKeyFilters.dedup(PerKeyFilters.objectFile(jsc, path), candidates()).collectAsMap();
    SparkTests.assertSameAnswers(expected, PerKeyFilters.dedupBroadcast(jsc, path, candidates(), PerKeyOptions.defaults().withBroadcastMaxBytes(saved)).collectAsMap());
  }

  /**
   * The saved files are listed as objectFile reads them (SavedFiles, no permissions read): a
   * glob's directories, hidden files and directories skipped, a missing path named.
   */
  @Test
  void savedFilesAreListedAsObjectFileReadsThem(@TempDir Path dir) throws Exception {
    String perKey = save(dir, Sizing.perKeyCount(P));
    String fixed = save(dir, Sizing.fixed(1_000, P));
    long perKeyBytes = DedupPlan.of(jsc, perKey, PerKeyOptions.defaults()).savedBytes();
    long fixedBytes = DedupPlan.of(jsc, fixed, PerKeyOptions.defaults()).savedBytes();
    long parts = 0;
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir.resolve("filters-true"))) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        if (!name.startsWith("_") && !name.startsWith(".")) {
          parts += java.nio.file.Files.size(f);
        }
      }
    }
    assertEquals(parts, perKeyBytes, "the part files' bytes, not _SUCCESS or the .crc files");
    // a hidden directory (a job's _temporary, say) is neither counted nor read
    Path hidden = dir.resolve("filters-true").resolve("_temporary");
    java.nio.file.Files.createDirectories(hidden);
    java.nio.file.Files.write(hidden.resolve("part-00000"), new byte[1000]);
    assertEquals(perKeyBytes, DedupPlan.of(jsc, perKey, PerKeyOptions.defaults()).savedBytes());
    assertEquals(history.size(), PerKeyFilters.objectFile(jsc, perKey).count());
    // a glob over both directories: both counted and read
    String glob = dir.resolve("filters-*").toUri().toString();
    assertEquals(perKeyBytes + fixedBytes, DedupPlan.of(jsc, glob, PerKeyOptions.defaults()).savedBytes());
    assertEquals(2L * history.size(), PerKeyFilters.objectFile(jsc, glob).count());
    // nothing there: the listing and the read name the path
    String missing = dir.resolve("none").toUri().toString();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DedupPlan.of(jsc, missing, PerKeyOptions.defaults()));
    assertTrue(e.getMessage().contains("no saved filters at " + missing), e.getMessage());
    // objectFile checks on the driver, at the call, not in the first job
    Exception read = assertThrows(IllegalArgumentException.class, () -> PerKeyFilters.objectFile(jsc, missing));
    assertTrue(read.getMessage().contains("no saved filters at " + missing), read.getMessage());
  }

  @Test
  void savedFixedSizeFiltersOverTheConfLimitAreRefused(@TempDir Path dir) {
    String path = save(dir, Sizing.fixed(10_000, P));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PerKeyFilters.dedupBroadcast(jsc, path, candidates(), PerKeyOptions.defaults()));
    assertNamesLimitAndAlternative(e, LIMIT);
  }

  @Test
  void theChooserBroadcastsWhatFitsAndJoinsTheRest(@TempDir Path dir) {
    JavaPairRDD<String, long[]> c = candidates();
    for (Sizing sizing : List.of(Sizing.fixed(10_000, P), Sizing.perKeyCount(P))) {
      String path = save(dir, sizing);
      Map<String, long[]> joined = PerKeyFilters.dedup(PerKeyFilters.objectFile(jsc, path), c).collectAsMap();
      SparkTests.checkAgainstExact(SparkTests.byKey(history), SparkTests.byKey(candidates), joined);
      // under the conf's 64 KiB: the fixed-size filters (~80 KB) are joined, the per-key ones broadcast
      DedupPlan plan = DedupPlan.of(jsc, path, PerKeyOptions.defaults());
      assertEquals(sizing.isPerKeyCount(), plan.isBroadcast(), plan.describe());
      assertTrue(plan.describe().startsWith(sizing.isPerKeyCount() ? "broadcast" : "join"), plan.describe());
      JavaPairRDD<String, long[]> chosen = PerKeyFilters.dedup(jsc, path, c);
      SparkTests.assertSameAnswers(joined, chosen.collectAsMap());
      // the broadcast answers the candidates in place (their partitioning, none); the join hash-partitions
      assertEquals(!plan.isBroadcast(), chosen.partitioner().isPresent());
      // explicit limits take each plan for either sizing
      JavaPairRDD<String, long[]> broadcast = PerKeyFilters.dedup(jsc, path, c, PerKeyOptions.defaults().withBroadcastMaxBytes(Long.MAX_VALUE));
      JavaPairRDD<String, long[]> join = PerKeyFilters.dedup(jsc, path, c, PerKeyOptions.defaults().withBroadcastMaxBytes(0));
      assertFalse(broadcast.partitioner().isPresent());
      assertTrue(join.partitioner().isPresent());
      SparkTests.assertSameAnswers(joined, broadcast.collectAsMap());
      SparkTests.assertSameAnswers(joined, join.collectAsMap());
    }
  }

  @Test
  void inMemoryFiltersAreCollectedWithinTheLimit() {
    JavaPairRDD<String, BloomFilter> filters = PerKeyFilters
        .buildPerRecord(jsc.parallelizePairs(history, 4), PerKeyOptions.of(Sizing.fixed(10_000, P)))
        .persist(StorageLevel.MEMORY_ONLY());
    List<Long> perPartition = filters.values()
        .mapPartitions(it -> {
          long sum = 0;
          while (it.hasNext()) {
            sum += it.next().toByteArray().length;
          }
          return List.of(sum).iterator();
        })
        .collect();
    long total = perPartition.stream().mapToLong(Long::longValue).sum();
    long largest = perPartition.stream().mapToLong(Long::longValue).max().getAsLong();
    assertTrue(largest < total - 1, perPartition.toString());
    JavaPairRDD<String, long[]> c = candidates();
    // one partition alone over the limit (its task sends its size only), and the running total over it
    for (long limit : new long[] {largest / 2, total - 1}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> PerKeyFilters.dedupBroadcast(filters, c, PerKeyOptions.defaults().withBroadcastMaxBytes(limit)));
      assertNamesLimitAndAlternative(e, limit);
      assertTrue(e.getMessage().contains("the filters collected so far take at least"), e.getMessage());
      // Spark failed the job with the result handler's exception as the cause; it is rethrown as itself
      assertTrue(e.getCause() instanceof org.apache.spark.SparkException, String.valueOf(e.getCause()));
    }
    // the conf's limit (64 KiB) applies without one: ~80 KB of filters
    assertTrue(total > LIMIT, "the data must be over the conf's limit: " + total);
    assertThrows(IllegalArgumentException.class, () -> PerKeyFilters.dedupBroadcast(filters, c, PerKeyOptions.defaults()));
    // the context is fine after the failed jobs, and exactly at the limit the broadcast runs
    Map<String, long[]> joined = PerKeyFilters.dedup(filters, c).collectAsMap();
    SparkTests.assertSameAnswers(joined, PerKeyFilters.dedupBroadcast(filters, c, PerKeyOptions.defaults().withBroadcastMaxBytes(total)).collectAsMap());
    assertEquals(history.size(), filters.mapValues(BloomFilter::toByteArray).count(), "the caller's filters stay open");
    filters.unpersist();
  }
}
