package io.sparkbloom.bench;

import com.google.common.hash.Hashing;
import io.sparkbloom.CountingBloomFilter;
import org.apache.commons.collections4.bloomfilter.ArrayCountingBloomFilter;
import org.apache.commons.collections4.bloomfilter.CellExtractor;
import org.apache.commons.collections4.bloomfilter.EnhancedDoubleHasher;
import org.apache.commons.collections4.bloomfilter.Shape;
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
 * sparkbloom's {@link CountingBloomFilter} beside Apache Commons Collections 4.5's {@link
 * ArrayCountingBloomFilter} (an {@code int} per position, not thread-safe), in one run (issue
 * 11): batched add, add+remove and query, ns per key over batches of {@link #BATCH} keys.
 *
 * <p>Both filters have the same m and k ({@code CountingBloomFilter.create(n, p)}'s; Commons'
 * shape is {@code Shape.fromKM(k, m)}). Commons has no batch calls and takes a {@code Hasher}:
 * its keys are hashed as a user would, Murmur3_128 of the long (Guava) into an {@code
 * EnhancedDoubleHasher}, one per key, inside the measured loop (sparkbloom hashes natively).
 * Queries are a 50/50 mix of present and absent keys against a filter holding n keys; the
 * add+remove filter holds n keys and each key is added and removed again, so it stays at n.
 * {@link CountingSizes} prints the bytes in memory and serialized.
 */
@OperationsPerInvocation(CountingBench.BATCH)
public class CountingBench extends BenchDefaults {
  static final String SPARKBLOOM = "sparkbloom";
  static final String COMMONS = "commons";
  /** Keys per batch call and per invocation. */
  public static final int BATCH = 4096;

  /** (n, p) from a parameter such as {@code n1e4_p1e-3}. */
  static double[] np(String shape) {
    switch (shape) {
      case "n1e4_p1e-3":
        return new double[] {10_000, 1e-3};
      case "n1e6_p1e-2":
        return new double[] {1_000_000, 1e-2};
      default:
        throw new IllegalArgumentException("shape " + shape);
    }
  }

  /** One of the two filters behind a common face. */
  abstract static class Filter implements AutoCloseable {
    abstract void addAll(long[] keys);

    abstract void removeAll(long[] keys);

    abstract int queryAll(long[] keys);

    @Override
    public void close() {}

    static Filter create(String impl, String shape) {
      double[] np = np(shape);
      CountingBloomFilter ours = CountingBloomFilter.create((long) np[0], np[1]);
      if (impl.equals(SPARKBLOOM)) {
        return new Ours(ours);
      }
      Shape commonsShape = Shape.fromKM(ours.numHashFunctions(), (int) ours.bitSize());
      ours.close();
      return new Commons(new ArrayCountingBloomFilter(commonsShape));
    }
  }

  static final class Ours extends Filter {
    final CountingBloomFilter f;

    Ours(CountingBloomFilter f) {
      this.f = f;
    }

    @Override
    void addAll(long[] keys) {
      f.addAll(keys);
    }

    @Override
    void removeAll(long[] keys) {
      f.removeAll(keys);
    }

    @Override
    int queryAll(long[] keys) {
      return f.retainAbsent(keys).length;
    }

    @Override
    public void close() {
      f.close();
    }
  }

  /**
   * Commons through its fastest per-key calls. Its documented {@code merge(Hasher)} and {@code
   * remove(Hasher)} first deduplicate the k indexes through a {@code BitSet} of m bits per key
   * (O(m/64) per key: milliseconds per key at m = 9.6·10^6), so keys go in as {@code
   * add(CellExtractor.from(hasher.indices(shape)))}, which counts a repeated index twice, as
   * sparkbloom does.
   */
  static final class Commons extends Filter {
    final ArrayCountingBloomFilter f;
    final Shape shape;

    Commons(ArrayCountingBloomFilter f) {
      this.f = f;
      this.shape = f.getShape();
    }

    static EnhancedDoubleHasher hasher(long key) {
      return new EnhancedDoubleHasher(Hashing.murmur3_128().hashLong(key).asBytes());
    }

    CellExtractor cells(long key) {
      return CellExtractor.from(hasher(key).indices(shape));
    }

    @Override
    void addAll(long[] keys) {
      for (long key : keys) {
        f.add(cells(key));
      }
    }

    @Override
    void removeAll(long[] keys) {
      for (long key : keys) {
        f.subtract(cells(key));
      }
    }

    @Override
    int queryAll(long[] keys) {
      int absent = 0;
      for (long key : keys) {
        if (!f.contains(hasher(key).indices(shape))) {
          absent++;
        }
      }
      return absent;
    }
  }

  @State(Scope.Thread)
  public static class Params {
    @Param({SPARKBLOOM, COMMONS})
    public String impl;

    @Param({"n1e4_p1e-3", "n1e6_p1e-2"})
    public String shape;
  }

  @State(Scope.Thread)
  public static class Filled {
    Filter filter;
    long[][] present;
    long[][] queries;
    long[][] fresh;
    int next;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      long n = (long) np(params.shape)[0];
      long[] keys = Keys.longs(Keys.PRESENT, n, (int) n);
      filter = Filter.create(params.impl, params.shape);
      filter.addAll(keys);
      int pool = Keys.pool(n);
      long[] hits = Keys.sample(keys, Math.max(BATCH, pool / 2));
      long[] misses = Keys.longs(Keys.MISSES, n, hits.length);
      queries = Keys.batches(Keys.mix(hits, misses, n), BATCH);
      present = Keys.batches(hits, BATCH);
      // Keys not in the filter, added and removed again by the add+remove benchmark.
      fresh = Keys.batches(Keys.longs(Keys.STR_PRESENT, n, Math.max(BATCH, pool / 2)), BATCH);
    }

    int step() {
      next = next + 1 == queries.length ? 0 : next + 1;
      return next;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  /** A filter that starts empty and is recreated when n keys were added, so it never overfills. */
  @State(Scope.Thread)
  public static class Empty {
    Filter filter;
    long[][] batches;
    int next;
    Params params;

    @Setup(Level.Trial)
    public void setUp(Params params) {
      this.params = params;
      long n = (long) np(params.shape)[0];
      batches = Keys.batches(Keys.longs(Keys.PRESENT, n, (int) Math.max(n, BATCH)), BATCH);
      filter = Filter.create(params.impl, params.shape);
    }

    long[] nextBatch() {
      if (next == batches.length) {
        filter.close();
        filter = Filter.create(params.impl, params.shape);
        next = 0;
      }
      return batches[next++];
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  @Benchmark
  public void add(Empty s) {
    long[] batch = s.nextBatch(); // first: it may replace s.filter
    s.filter.addAll(batch);
  }

  /** Each key added then removed: the window's daily add and subtract, per key. */
  @Benchmark
  public void addRemove(Filled s) {
    long[] batch = s.fresh[s.step() % s.fresh.length];
    s.filter.addAll(batch);
    s.filter.removeAll(batch);
  }

  @Benchmark
  public void query(Filled s, Blackhole bh) {
    bh.consume(s.filter.queryAll(s.queries[s.step()]));
  }
}
