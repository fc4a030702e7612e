package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import scala.Tuple2;

/**
 * Migration: an objectFile of per-user Guava filters written by the classic pipeline is read
 * back, converted with {@code fromGuava}, and answers identically to the Guava filters.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GuavaMigrationTest {
  private SparkSession spark;
  private JavaSparkContext jsc;

  @BeforeAll
  void start() {
    spark = SparkTests.session("GuavaMigrationTest");
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  @AfterAll
  void stop() {
    spark.stop();
  }

  private static long[] probes(int count, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = r.nextLong();
    }
    return out;
  }

  /** Guava 33 (unshaded), the classic per-user pipeline with the modern package. */
  @Test
  void guavaObjectFileConvertsWithIdenticalAnswers(@TempDir Path tmp) {
    List<Tuple2<String, long[]>> history = SparkTests.history(80, 200);
    String dir = tmp.resolve("guava-filters").toUri().toString();
    jsc.parallelizePairs(history, 4).mapValues(records -> {
      com.google.common.hash.BloomFilter<Long> bf = com.google.common.hash.BloomFilter.create(
          com.google.common.hash.Funnels.longFunnel(), 10000, 0.001);
      for (long r : records) {
        bf.put(r);
      }
      return bf;
    }).saveAsObjectFile(dir);

    JavaPairRDD<String, com.google.common.hash.BloomFilter<Long>> guava =
        JavaPairRDD.fromJavaRDD(jsc.<Tuple2<String, com.google.common.hash.BloomFilter<Long>>>objectFile(dir));
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
      return java.util.Arrays.stream(c).filter(v -> !fc._1().mightContain(v)).toArray();
    }).collectAsMap();
    for (String user : theirs.keySet()) {
      assertArrayEquals(theirs.get(user), ours.get(user), "user " + user);
    }
  }

  /** Spark's own shaded Guava (org.sparkproject.guava, as the seed used Spark's copy). */
  @Test
  void sparkShadedGuavaObjectFileConverts(@TempDir Path tmp) {
    List<Tuple2<String, long[]>> history = SparkTests.history(30, 500);
    String dir = tmp.resolve("shaded-filters").toUri().toString();
    jsc.parallelizePairs(history, 3).mapValues(records -> {
      org.sparkproject.guava.hash.BloomFilter<Long> bf = org.sparkproject.guava.hash.BloomFilter.create(
          org.sparkproject.guava.hash.Funnels.longFunnel(), 2000, 0.01);
      for (long r : records) {
        bf.put(r);
      }
      return bf;
    }).saveAsObjectFile(dir);
    JavaPairRDD<String, org.sparkproject.guava.hash.BloomFilter<Long>> shaded = JavaPairRDD.fromJavaRDD(
        jsc.<Tuple2<String, org.sparkproject.guava.hash.BloomFilter<Long>>>objectFile(dir));
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
