package io.sparkbloom.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

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
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SingleKeyBench {
  private static final String NO_VIEW = "-Dsparkbloom.singleKeyView=false";

  @State(Scope.Thread)
  public static class Params {
    @Param({Impl.SPARKBLOOM, Impl.GUAVA, Impl.SPARK_V1, Impl.SPARK_V2})
    public String impl;

    @Param({"n1e4_p1e-3", "n1e7_p1e-2"})
    public String shape;
  }

  /** A filling filter and the pool of keys to put. */
  @State(Scope.Thread)
  public static class PutLongs {
    Impl filter;
    long[] keys;
    int next;
    Params params;
    Shape shape;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      this.params = params;
      shape = Shape.of(params.shape);
      keys = Keys.longs(Keys.PRESENT, shape.n, (int) shape.n);
      filter = Impl.create(params.impl, shape, false);
    }

    void restart() {
      filter.close();
      filter = Impl.create(params.impl, shape, false);
      next = 0;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  @State(Scope.Thread)
  public static class PutStrings {
    Impl filter;
    String[] keys;
    int next;
    Params params;
    Shape shape;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      this.params = params;
      shape = Shape.of(params.shape);
      keys = Keys.strings(Keys.STR_PRESENT, shape.n, Keys.pool(shape.n));
      filter = Impl.create(params.impl, shape, true);
    }

    void restart() {
      filter.close();
      filter = Impl.create(params.impl, shape, true);
      next = 0;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  /** A filter holding the n long keys, a sample of them (hits) and absent keys (misses). */
  @State(Scope.Thread)
  public static class QueryLongs {
    Impl filter;
    long[] hits;
    long[] misses;
    int nextHit;
    int nextMiss;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      long[] present = Keys.longs(Keys.PRESENT, shape.n, (int) shape.n);
      filter = Impl.holding(params.impl, shape, present);
      hits = Keys.sample(present, Keys.pool(shape.n));
      misses = Keys.longs(Keys.MISSES, shape.n, Keys.pool(shape.n));
    }

    boolean hit() {
      int i = nextHit == hits.length ? 0 : nextHit;
      nextHit = i + 1;
      return filter.mightContain(hits[i]);
    }

    boolean miss() {
      int i = nextMiss == misses.length ? 0 : nextMiss;
      nextMiss = i + 1;
      return filter.mightContain(misses[i]);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  @State(Scope.Thread)
  public static class QueryStrings {
    Impl filter;
    String[] hits;
    String[] misses;
    int nextHit;
    int nextMiss;

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

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  @Benchmark
  public boolean put_u64(PutLongs s) {
    if (s.next == s.keys.length) {
      s.restart();
    }
    return s.filter.put(s.keys[s.next++]);
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
    if (s.next == s.keys.length) {
      s.restart();
    }
    return s.filter.put(s.keys[s.next++]);
  }

  @Benchmark
  public boolean hit_str(QueryStrings s) {
    int i = s.nextHit == s.hits.length ? 0 : s.nextHit;
    s.nextHit = i + 1;
    return s.filter.mightContain(s.hits[i]);
  }

  @Benchmark
  public boolean miss_str(QueryStrings s) {
    int i = s.nextMiss == s.misses.length ? 0 : s.nextMiss;
    s.nextMiss = i + 1;
    return s.filter.mightContain(s.misses[i]);
  }
}
