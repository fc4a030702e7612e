package io.sparkbloom.bench;

import java.util.Arrays;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Batched put and query, reported per key: every invocation processes {@link #KEYS_PER_CALL}
 * keys as {@code KEYS_PER_CALL / batch} calls of the batch method on consecutive batches sliced
 * from one pool array ({@code keys[from..to)}, as a user cuts an array of 10^6 keys), so {@code @OperationsPerInvocation(KEYS_PER_CALL)} makes JMH's figure ns per key for
 * every batch size.
 *
 * <p>{@code mightContainAll} and {@code retainAbsent} run on a 50/50 mix of hits and misses
 * against a filter holding n keys; {@code putAll} cycles through the n keys, starting over in a
 * new filter when the pool wraps. {@code sparkbloom_blocked} is {@code Strategy.BLOCKED} (one
 * cache line per key) beside the classic layout. Guava and Spark have no batch methods: theirs are the loop a
 * user would write (see {@link Impl}).
 */
@OperationsPerInvocation(BatchBench.KEYS_PER_CALL)
public class BatchBench extends BenchDefaults {
  /** Keys per invocation: a multiple of every batch size. */
  public static final int KEYS_PER_CALL = 4096;

  @State(Scope.Thread)
  public static class Params {
    @Param({Impl.SPARKBLOOM, Impl.SPARKBLOOM_BLOCKED, Impl.GUAVA, Impl.SPARK_V1, Impl.SPARK_V2})
    public String impl;

    @Param({"n1e4_p1e-3", "n1e7_p1e-2"})
    public String shape;

    @Param({"1", "16", "256", "4096"})
    public int batch;
  }

  @State(Scope.Thread)
  public static class Put extends Filling {
    long[] pool;
    int batch;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      batch = params.batch;
      pool = wholeBatches(Keys.longs(Keys.PRESENT, shape.n, (int) shape.n), batch);
      start(params.impl, shape, false);
    }

    /** The start of the next batch in {@link #pool}; a new filter when the pool wraps. */
    int nextBatch() {
      return nextFrom(pool.length, batch);
    }
  }

  @Benchmark
  public void putAll(Put s, Params p, Blackhole bh) {
    for (int done = 0; done < KEYS_PER_CALL; done += p.batch) {
      int from = s.nextBatch(); // first: it may replace s.filter
      bh.consume(s.filter.putAll(s.pool, from, from + p.batch));
    }
  }

  @State(Scope.Thread)
  public static class Query extends FilterState {
    long[] pool;
    int next;
    int batch;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      Shape shape = Shape.of(params.shape);
      long[] present = Keys.longs(Keys.PRESENT, shape.n, (int) shape.n);
      filter = Impl.holding(params.impl, shape, present);
      int size = Keys.pool(shape.n);
      long[] mix =
          Keys.mix(Keys.sample(present, size), Keys.longs(Keys.MISSES, shape.n, size), shape.n);
      pool = wholeBatches(mix, params.batch);
      batch = params.batch;
    }

    /** The start of the next batch in {@link #pool}. */
    int nextBatch() {
      if (next == pool.length) {
        next = 0;
      }
      int from = next;
      next += batch;
      return from;
    }
  }

  @Benchmark
  public void mightContainAll(Query s, Params p, Blackhole bh) {
    for (int done = 0; done < KEYS_PER_CALL; done += p.batch) {
      int from = s.nextBatch();
      bh.consume(s.filter.mightContainAll(s.pool, from, from + p.batch));
    }
  }

  @Benchmark
  public void retainAbsent(Query s, Params p, Blackhole bh) {
    for (int done = 0; done < KEYS_PER_CALL; done += p.batch) {
      int from = s.nextBatch();
      bh.consume(s.filter.retainAbsent(s.pool, from, from + p.batch));
    }
  }

  /** The first whole batches of {@code keys}: a pool that slices into batches exactly. */
  static long[] wholeBatches(long[] keys, int batch) {
    return Arrays.copyOf(keys, keys.length / batch * batch);
  }
}
