package io.sparkbloom.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * One key per call: {@code put}, {@code mightContain} on hits and on misses, for 8-byte
 * {@code long} keys and 32-byte ASCII {@code String} keys (UTF-8 hashed by every
 * implementation: Guava's {@code stringFunnel(UTF_8)}, Spark's {@code putString}).
 *
 * <p>Puts cycle through a pool of distinct keys (the n long keys; min(n, 2^20) strings) and start
 * over in a new, empty filter when the pool wraps (inside the timing, amortised over the pool),
 * so they land in a filter that is filling up. Queries run on a filter holding n keys; hits are
 * a sample of them spread over all n, misses another seeded stream (≈ p of them false
 * positives). Same keys and the same scheme as {@code rust/benches/filter.rs}.
 */
public class SingleKeyBench extends BenchDefaults {
  private static final String NO_VIEW = "-Dsparkbloom.singleKeyView=false";

  @State(Scope.Thread)
  public static class Params {
    @Param({Impl.SPARKBLOOM, Impl.GUAVA, Impl.SPARK_V1, Impl.SPARK_V2})
    public String impl;

    @Param({"n1e4_p1e-3", "n1e7_p1e-2"})
    public String shape;
  }

  /** A filling filter and the pool of keys to put: the n long keys. */
  @State(Scope.Thread)
  public static class PutLongs extends Filling {
    long[] keys;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      keys = Keys.longs(Keys.PRESENT, shape.n, (int) shape.n);
      start(params.impl, shape, false);
    }

    boolean put() {
      int i = nextFrom(keys.length, 1); // first: it may replace filter
      return filter.put(keys[i]);
    }
  }

  /** A filling filter and the pool of keys to put: min(n, 2^20) strings. */
  @State(Scope.Thread)
  public static class PutStrings extends Filling {
    String[] keys;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      keys = Keys.strings(Keys.STR_PRESENT, shape.n, Keys.pool(shape.n));
      start(params.impl, shape, true);
    }

    boolean put() {
      int i = nextFrom(keys.length, 1); // first: it may replace filter
      return filter.put(keys[i]);
    }
  }

  /** A filter holding the n long keys, a sample of them (hits) and absent keys (misses). */
  @State(Scope.Thread)
  public static class QueryLongs extends Queried {
    long[] hits;
    long[] misses;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      long[] present = Keys.longs(Keys.PRESENT, shape.n, (int) shape.n);
      filter = Impl.holding(params.impl, shape, present);
      hits = Keys.sample(present, Keys.pool(shape.n));
      misses = Keys.longs(Keys.MISSES, shape.n, Keys.pool(shape.n));
    }

    boolean hit() {
      return filter.mightContain(hits[nextHit(hits.length)]);
    }

    boolean miss() {
      return filter.mightContain(misses[nextMiss(misses.length)]);
    }
  }

  /** A filter holding n string keys, a sample of them (hits) and absent strings (misses). */
  @State(Scope.Thread)
  public static class QueryStrings extends Queried {
    String[] hits;
    String[] misses;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      int pool = Keys.pool(shape.n);
      long stride = shape.n / pool;
      filter = Impl.create(params.impl, shape, true);
      hits = new String[pool];
      Keys.SplitMix64 stream = Keys.stream(Keys.STR_PRESENT, shape.n);
      for (long i = 0; i < shape.n; i++) {
        String key = Keys.keyString(stream);
        filter.put(key);
        if (i % stride == 0 && i / stride < pool) {
          hits[(int) (i / stride)] = key;
        }
      }
      misses = Keys.strings(Keys.STR_MISSES, shape.n, pool);
    }

    boolean hit() {
      return filter.mightContain(hits[nextHit(hits.length)]);
    }

    boolean miss() {
      return filter.mightContain(misses[nextMiss(misses.length)]);
    }
  }

  @Benchmark
  public boolean put_u64(PutLongs s) {
    return s.put();
  }

  @Benchmark
  public boolean hit_u64(QueryLongs s) {
    return s.hit();
  }

  @Benchmark
  public boolean miss_u64(QueryLongs s) {
    return s.miss();
  }

  /**
   * {@link #hit_u64} in a fork where sparkbloom answers through one JNI call per key instead of
   * over its view of the native words ({@code -Dsparkbloom.singleKeyView=false}): what the view
   * saves over the transition (run with {@code -p impl=sparkbloom}; the peers do not change).
   */
  @Benchmark
  @Fork(value = 1, jvmArgsAppend = NO_VIEW)
  public boolean hit_u64_jni(QueryLongs s) {
    return s.hit();
  }

  /** {@link #miss_u64} through JNI, as {@link #hit_u64_jni}. */
  @Benchmark
  @Fork(value = 1, jvmArgsAppend = NO_VIEW)
  public boolean miss_u64_jni(QueryLongs s) {
    return s.miss();
  }

  @Benchmark
  public boolean put_str(PutStrings s) {
    return s.put();
  }

  @Benchmark
  public boolean hit_str(QueryStrings s) {
    return s.hit();
  }

  @Benchmark
  public boolean miss_str(QueryStrings s) {
    return s.miss();
  }
}
