package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnels;
import io.sparkbloom.BloomFilter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Migration: an objectFile of per-user Guava filters written by the classic pipeline is read
 * back, converted with {@code fromGuava}, and answers identically to the Guava filters.
 */
class GuavaMigrationTest extends WithSparkSession {
  private static long[] probes(int count, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = r.nextLong();
    }
    return out;
  }

  /**
   * An objectFile of (user, filter) as the classic pipeline wrote it, {@code filter} making each
   * user's filter of the user's history, read back.
   */
  private <F> JavaPairRDD<String, F> savedAndRead(List<Tuple2<String, long[]>> history, int partitions,
      Path dir, Function<long[], F> filter) {
    String path = dir.toUri().toString();
    jsc.parallelizePairs(history, partitions).mapValues(filter).saveAsObjectFile(path);
    return JavaPairRDD.fromJavaRDD(jsc.<Tuple2<String, F>>objectFile(path));
  }

  /** Guava 33's filter of one user's history. */
  private static com.google.common.hash.BloomFilter<Long> guavaFilter(long[] history) {
    com.google.common.hash.BloomFilter<Long> bf =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), 10000, 0.001);
    Arrays.stream(history).forEach(bf::put);
    return bf;
  }

  /** Guava 33 (unshaded), the classic per-user pipeline with the modern package. */
  @Test
  void guavaObjectFileConvertsWithIdenticalAnswers(@TempDir Path tmp) {
    List<Tuple2<String, long[]>> history = SparkTests.history(80, 200);
    JavaPairRDD<String, com.google.common.hash.BloomFilter<Long>> guava =
        savedAndRead(history, 4, tmp.resolve("guava-filters"), GuavaMigrationTest::guavaFilter);
    // the recipe: objectFile -> fromGuava -> saveAsObjectFile in the new format
    String migrated = tmp.resolve("sparkbloom-filters").toUri().toString();
    PerKeyFilters.fromGuava(guava.rdd()).saveAsObjectFile(migrated);
    JavaPairRDD<String, BloomFilter> converted = PerKeyFilters.objectFile(jsc, migrated);

    long[] probes = probes(20_000, 99);
    // per user: the Guava answers and the converted filter's answers, on history + random probes
    List<Tuple2<String, Long>> mismatches = guava.join(converted).mapValues(gc -> {
      com.google.common.hash.BloomFilter<Long> g = gc._1();
      BloomFilter s = gc._2();
      long bad = 0;
      boolean[] batch = s.mightContainAll(probes);
      for (int i = 0; i < probes.length; i++) {
        if (g.mightContain(probes[i]) != batch[i] || s.mightContain(probes[i]) != batch[i]) {
          bad++;
        }
      }
      return bad;
    }).collect();
    assertEquals(80, mismatches.size());
    for (Tuple2<String, Long> m : mismatches) {
      assertEquals(0L, m._2().longValue(), "user " + m._1() + " answers differ");
    }

    // and the converted filters equal filters built directly by sparkbloom (same strategy, bits)
    Map<String, BloomFilter> byUser = new HashMap<>(converted.collectAsMap());
    for (Tuple2<String, long[]> h : history) {
      BloomFilter direct = BloomFilter.create(10000, 0.001);
      direct.putAll(h._2());
      assertArrayEquals(direct.toByteArray(), byUser.get(h._1()).toByteArray(), "user " + h._1());
      for (long v : h._2()) {
        assertTrue(byUser.get(h._1()).mightContain(v));
      }
    }

    // dedup with the converted filters keeps exactly what the Guava pipeline keeps
    List<Tuple2<String, long[]>> candidates = SparkTests.candidates(history, 300, 0);
    JavaPairRDD<String, long[]> candidateRdd = jsc.parallelizePairs(candidates, 3);
    Map<String, long[]> ours = PerKeyFilters.dedup(converted, candidateRdd).collectAsMap();
    Map<String, long[]> theirs = guava.leftOuterJoin(candidateRdd).mapValues(fc -> {
      long[] c = fc._2().orElse(new long[0]);
      return Arrays.stream(c).filter(v -> !fc._1().mightContain(v)).toArray();
    }).collectAsMap();
    for (String user : theirs.keySet()) {
      assertArrayEquals(theirs.get(user), ours.get(user), "user " + user);
    }
  }

  /** Spark's shaded Guava's filter of one user's history. */
  private static org.sparkproject.guava.hash.BloomFilter<Long> shadedFilter(long[] history) {
    org.sparkproject.guava.hash.BloomFilter<Long> bf = org.sparkproject.guava.hash.BloomFilter.create(
        org.sparkproject.guava.hash.Funnels.longFunnel(), 2000, 0.01);
    Arrays.stream(history).forEach(bf::put);
    return bf;
  }

  /** Spark's own shaded Guava (org.sparkproject.guava, as the seed used Spark's copy). */
  @Test
  void sparkShadedGuavaObjectFileConverts(@TempDir Path tmp) {
    JavaPairRDD<String, org.sparkproject.guava.hash.BloomFilter<Long>> shaded = savedAndRead(
        SparkTests.history(30, 500), 3, tmp.resolve("shaded-filters"), GuavaMigrationTest::shadedFilter);
    long[] probes = probes(50_000, 7);
    List<Long> bad = shaded.mapValues(g -> {
      BloomFilter s = BloomFilter.fromGuava(g);
      long n = 0;
      for (long v : probes) {
        if (g.mightContain(v) != s.mightContain(v)) {
          n++;
        }
      }
      return n;
    }).values().collect();
    assertEquals(30, bad.size());
    for (long b : bad) {
      assertEquals(0, b);
    }
  }
}
