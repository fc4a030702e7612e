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
 * sparkbloom's single-key {@code mightContain(long)} two ways: answered in Java over the
 * native words (the default, {@code view_*}) and through one JNI call per key ({@code jni_*},
 * in a fork started with {@code -Dsparkbloom.singleKeyView=false}). Same filter, keys and
 * scheme as {@link SingleKeyBench}'s {@code hit_u64}/{@code miss_u64}, whose rows compare
 * against Guava and Spark's sketch. Diagnostic: what the view saves over the transition.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SingleKeyViewBench {
  private static final String NO_VIEW = "-Dsparkbloom.singleKeyView=false";

  @Param({"n1e4_p1e-3", "n1e7_p1e-2"})
  public String shape;

  Impl filter;
  long[] hits;
  long[] misses;
  int nextHit;
  int nextMiss;

  @Setup(Level.Trial)
  public void setUp() {
    Shape s = Shape.of(shape);
    long[] present = Keys.longs(Keys.PRESENT, s.n, (int) s.n);
    filter = Impl.holding(Impl.SPARKBLOOM, s, present);
    hits = Keys.sample(present, Keys.pool(s.n));
    misses = Keys.longs(Keys.MISSES, s.n, Keys.pool(s.n));
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    filter.close();
  }

  private boolean hit() {
    int i = nextHit == hits.length ? 0 : nextHit;
    nextHit = i + 1;
    return filter.mightContain(hits[i]);
  }

  private boolean miss() {
    int i = nextMiss == misses.length ? 0 : nextMiss;
    nextMiss = i + 1;
    return filter.mightContain(misses[i]);
  }

  @Benchmark
  public boolean view_hit_u64() {
    return hit();
  }

  @Benchmark
  public boolean view_miss_u64() {
    return miss();
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = NO_VIEW)
  public boolean jni_hit_u64() {
    return hit();
  }

  @Benchmark
  @Fork(value = 1, jvmArgsAppend = NO_VIEW)
  public boolean jni_miss_u64() {
    return miss();
  }
}
