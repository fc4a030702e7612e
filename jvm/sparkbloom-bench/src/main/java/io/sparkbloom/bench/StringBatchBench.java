package io.sparkbloom.bench;

import com.google.common.hash.Funnels;
import io.sparkbloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;

/**
 * String keys of 32 ASCII characters (32 UTF-8 bytes), reported per key: sparkbloom's batched
 * {@code mightContainAll(String[])} / {@code putAll(String[])} (one JNI crossing per batch of
 * {@link #KEYS_PER_CALL}) against the loops a user writes over Guava's {@code
 * stringFunnel(UTF_8)} filter and Spark's sketch filter ({@code mightContainString} / {@code
 * putString}); {@code sparkbloom_bytes} is the same batches as {@code byte[][]} of the keys' UTF-8
 * bytes (encoded once, outside the timing). Queries are a 50/50 mix of keys put and keys never
 * put, on a filter holding n keys at p: (10^6, 1 %) (1.2 MB, beyond L2) and the per-user filter
 * (10^4, 0.1 %). Puts fill filters as a build does, as {@code BatchBench.putAll} does for
 * {@code long} keys: n new keys into an empty filter, which is then replaced by an empty one
 * (each implementation's create and, for sparkbloom, close are in the timing): re-puts into a
 * filter already holding the keys would measure a query, not a build.
 */
@OperationsPerInvocation(StringBatchBench.KEYS_PER_CALL)
public class StringBatchBench extends BenchDefaults {
  public static final int KEYS_PER_CALL = 4096;

  /** {@code count} keys of 32 characters from {@code [0-9a-z]}, seeded. */
  static String[] keys(long seed, int count) {
    SplittableRandom r = new SplittableRandom(seed);
    String[] out = new String[count];
    char[] c = new char[32];
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < c.length; j++) {
        c[j] = Character.forDigit(r.nextInt(36), 36);
      }
      out[i] = new String(c);
    }
    return out;
  }

  @State(Scope.Thread)
  public static class Filters {
    @Param({"sparkbloom", "sparkbloom_bytes", "guava", "spark"})
    public String impl;

    /** n and p, named as the criterion benches name them. */
    @Param({"n1e6_p1e-2", "n1e4_p1e-3"})
    public String shape;

    BloomFilter ours;
    com.google.common.hash.BloomFilter<CharSequence> guava;
    org.apache.spark.util.sketch.BloomFilter spark;
    int n;
    double fpp;
    /** The filters puts fill (see the class doc), and the keys they have taken so far. */
    BloomFilter oursPut;
    com.google.common.hash.BloomFilter<CharSequence> guavaPut;
    org.apache.spark.util.sketch.BloomFilter sparkPut;
    int putCount;
    /** Batches of KEYS_PER_CALL keys, half put, half never put. */
    String[][] batches;
    String[][] putBatches;
    byte[][][] byteBatches;
    byte[][][] bytePutBatches;
    int next;
    int nextPut;

    @Setup(Level.Trial)
    public void setUp() {
      n = shape.startsWith("n1e6") ? 1_000_000 : 10_000;
      fpp = shape.endsWith("p1e-2") ? 0.01 : 0.001;
      String[] present = keys(1, n);
      String[] absent = keys(2, n);
      ours = BloomFilter.create(n, fpp);
      guava = com.google.common.hash.BloomFilter.create(
          Funnels.stringFunnel(StandardCharsets.UTF_8), n, fpp);
      spark = org.apache.spark.util.sketch.BloomFilter.create(n, fpp);
      ours.putAll(present);
      for (String s : present) {
        guava.put(s);
        spark.putString(s);
      }
      int count = 256;
      batches = new String[count][KEYS_PER_CALL];
      putBatches = new String[count][KEYS_PER_CALL];
      for (int b = 0; b < count; b++) {
        for (int i = 0; i < KEYS_PER_CALL; i++) {
          int k = b * KEYS_PER_CALL + i;
          batches[b][i] = (i & 1) == 0 ? present[k % n] : absent[k % n];
          putBatches[b][i] = absent[k % n];
        }
      }
      byteBatches = utf8(batches);
      bytePutBatches = utf8(putBatches);
      freshPutFilters();
    }

    /** Empty filters for the puts, replacing the full ones. */
    void freshPutFilters() {
      if (oursPut != null) {
        oursPut.close();
      }
      oursPut = BloomFilter.create(n, fpp);
      guavaPut =
          com.google.common.hash.BloomFilter.create(
              Funnels.stringFunnel(StandardCharsets.UTF_8), n, fpp);
      sparkPut = org.apache.spark.util.sketch.BloomFilter.create(n, fpp);
      putCount = 0;
    }

    /** Called before each put batch: replaces the filters once the next batch would pass n keys. */
    void beforePutBatch() {
      if (putCount + KEYS_PER_CALL > n) {
        freshPutFilters();
      }
      putCount += KEYS_PER_CALL;
    }

    static byte[][][] utf8(String[][] batches) {
      byte[][][] out = new byte[batches.length][][];
      for (int b = 0; b < batches.length; b++) {
        out[b] = new byte[batches[b].length][];
        for (int i = 0; i < batches[b].length; i++) {
          out[b][i] = batches[b][i].getBytes(StandardCharsets.UTF_8);
        }
      }
      return out;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      ours.close();
      oursPut.close();
    }
  }

  @Benchmark
  public void mightContain(Filters f, Blackhole bh) {
    int b = f.next;
    String[] batch = f.batches[b];
    f.next = (b + 1) % f.batches.length;
    switch (f.impl) {
      case "sparkbloom":
        bh.consume(f.ours.mightContainAll(batch));
        break;
      case "sparkbloom_bytes":
        bh.consume(f.ours.mightContainAll(f.byteBatches[b]));
        break;
      case "guava":
        for (String s : batch) {
          bh.consume(f.guava.mightContain(s));
        }
        break;
      default:
        for (String s : batch) {
          bh.consume(f.spark.mightContainString(s));
        }
    }
  }

  @Benchmark
  public void put(Filters f, Blackhole bh) {
    // New keys into a filter that is filling (see the class doc).
    f.beforePutBatch();
    int b = f.nextPut;
    String[] batch = f.putBatches[b];
    f.nextPut = (b + 1) % f.putBatches.length;
    switch (f.impl) {
      case "sparkbloom":
        bh.consume(f.oursPut.putAll(batch));
        break;
      case "sparkbloom_bytes":
        bh.consume(f.oursPut.putAll(f.bytePutBatches[b]));
        break;
      case "guava":
        for (String s : batch) {
          bh.consume(f.guavaPut.put(s));
        }
        break;
      default:
        for (String s : batch) {
          bh.consume(f.sparkPut.putString(s));
        }
    }
  }
}
