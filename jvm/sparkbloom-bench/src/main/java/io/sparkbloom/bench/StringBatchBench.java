package io.sparkbloom.bench;

import com.google.common.hash.Funnels;
import io.sparkbloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * String keys of 32 ASCII characters (32 UTF-8 bytes), reported per key: sparkbloom's batched
 * {@code mightContainAll(String[])} / {@code putAll(String[])} (one JNI crossing per batch of
 * {@link #KEYS_PER_CALL}) against the loops a user writes over Guava's {@code
 * stringFunnel(UTF_8)} filter and Spark's sketch filter ({@code mightContainString} / {@code
 * putString}). Queries are a 50/50 mix of keys put and keys never put, on a filter of n = 10^6
 * at p = 1 %.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StringBatchBench {
  public static final int KEYS_PER_CALL = 4096;
  static final int N = 1_000_000;
  static final double FPP = 0.01;

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
    @Param({"sparkbloom", "guava", "spark"})
    public String impl;

    BloomFilter ours;
    com.google.common.hash.BloomFilter<CharSequence> guava;
    org.apache.spark.util.sketch.BloomFilter spark;
    /** Batches of KEYS_PER_CALL keys, half put, half never put. */
    String[][] batches;
    String[][] putBatches;
    int next;
    int nextPut;

    @Setup(Level.Trial)
    public void setUp() {
      String[] present = keys(1, N);
      String[] absent = keys(2, N);
      ours = BloomFilter.create(N, FPP);
      guava = com.google.common.hash.BloomFilter.create(
          Funnels.stringFunnel(StandardCharsets.UTF_8), N, FPP);
      spark = org.apache.spark.util.sketch.BloomFilter.create(N, FPP);
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
          batches[b][i] = (i & 1) == 0 ? present[k % N] : absent[k % N];
          putBatches[b][i] = absent[k % N];
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      ours.close();
    }
  }

  @Benchmark
  @OperationsPerInvocation(KEYS_PER_CALL)
  public void mightContain(Filters f, Blackhole bh) {
    String[] batch = f.batches[f.next];
    f.next = (f.next + 1) % f.batches.length;
    switch (f.impl) {
      case "sparkbloom":
        bh.consume(f.ours.mightContainAll(batch));
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
  @OperationsPerInvocation(KEYS_PER_CALL)
  public void put(Filters f, Blackhole bh) {
    // Puts into the full filter (bits mostly set already): the cost of hashing and setting.
    String[] batch = f.putBatches[f.nextPut];
    f.nextPut = (f.nextPut + 1) % f.putBatches.length;
    switch (f.impl) {
      case "sparkbloom":
        bh.consume(f.ours.putAll(batch));
        break;
      case "guava":
        for (String s : batch) {
          bh.consume(f.guava.put(s));
        }
        break;
      default:
        for (String s : batch) {
          bh.consume(f.spark.putString(s));
        }
    }
  }
}
