package io.sparkbloom.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The fixed cost of one call into the native library, without filter work: {@code bitSize()}
 * and {@code numHashFunctions()} are native calls that only read a field of the Rust filter, so
 * their time is the JNI transition plus the bridge's per-call wrapper. Subtracting it from a
 * single-key {@code mightContain} leaves the Rust core's work. Diagnostic, not a comparison.
 */
@State(Scope.Thread)
public class JniOverheadBench extends BenchDefaults {
  io.sparkbloom.BloomFilter filter;

  @Setup(Level.Trial)
  public void setUp() {
    filter = io.sparkbloom.BloomFilter.create(10_000, 1e-3);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    filter.close();
  }

  @Benchmark
  public long bitSize() {
    return filter.bitSize();
  }

  @Benchmark
  public int numHashFunctions() {
    return filter.numHashFunctions();
  }
}
