package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkException;
import org.apache.spark.api.java.JavaPairRDD;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Reading filters back from a path that holds none: an empty directory fails on the driver (it
 * once kept every candidate), and an objectFile of other records fails naming the file and the
 * record type (it once failed with a bare ClassCastException). And the string dedup answers a key
 * with filters of two shapes as the {@code long} dedup does.
 */
class SavedFilterErrorsTest extends WithSparkSession {
  @Test
  void anEmptyDirectoryIsNoSavedFilters(@TempDir Path dir) throws Exception {
    Path empty = Files.createDirectory(dir.resolve("filters"));
    String path = empty.toUri().toString();
    JavaPairRDD<String, long[]> candidates = jsc.parallelizePairs(List.of(new Tuple2<>("u", new long[] {1})), 1);
    for (org.junit.jupiter.api.function.Executable call : List.<org.junit.jupiter.api.function.Executable>of(
        () -> PerKeyFilters.objectFile(jsc, path),
        () -> PerKeyFilters.dedup(jsc, path, candidates).collect(),
        () -> PerKeyFilters.dedupBroadcast(jsc, path, candidates, PerKeyOptions.defaults()).collect(),
        () -> DedupPlan.of(jsc, path, PerKeyOptions.defaults()))) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
      assertTrue(e.getMessage().contains("no saved filters at " + path), e.getMessage());
    }
  }

  @Test
  void otherRecordsNameTheFileAndTheType(@TempDir Path dir) {
    String path = dir.resolve("strings").toUri().toString();
    jsc.parallelizePairs(List.of(new Tuple2<>("u", "not a filter")), 1).saveAsObjectFile(path);
    SparkException e = assertThrows(SparkException.class,
        () -> PerKeyFilters.<String>objectFile(jsc, path).collectAsMap());
    String message = chain(e);
    assertTrue(message.contains("part-00000"), message);
    assertTrue(message.contains("(key, java.lang.String)"), message);

    String other = dir.resolve("longs").toUri().toString();
    jsc.parallelize(List.of(1L, 2L), 1).saveAsObjectFile(other);
    e = assertThrows(SparkException.class,
        () -> PerKeyFilters.dedup(PerKeyFilters.<String>objectFile(jsc, other), jsc.parallelizePairs(List.of(new Tuple2<>("u", new long[] {1})), 1)).collect());
    message = chain(e);
    assertTrue(message.contains("part-00000") && message.contains("java.lang.Long"), message);
  }

  private static String chain(Throwable t) {
    StringBuilder b = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      b.append(c).append(" <- ");
    }
    return b.toString();
  }

  @Test
  void stringDedupQueriesEveryShapeOfAKey() {
    BloomFilter perKey = Sizing.perKeyCount(0.001).create(1);
    perKey.put("a");
    BloomFilter fixed = BloomFilter.create(1_000, 0.01);
    fixed.put("b");
    JavaPairRDD<String, BloomFilter> filters =
        jsc.parallelizePairs(List.of(new Tuple2<>("u", perKey), new Tuple2<>("u", fixed)), 2);
    Map<String, String[]> kept = PerKeyFilters.dedup(filters, jsc.parallelizePairs(List.of(new Tuple2<>("u", new String[] {"a", "b", "c"})), 1)).collectAsMap();
    assertArrayEquals(new String[] {"c"}, kept.get("u"));
  }
}
