package io.sparkbloom.bench;

import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One filter of one implementation, behind the operations the benchmarks time. Each JMH fork
 * runs one (benchmark, implementation, shape) combination, so every call site here sees a
 * single subclass and the JIT inlines through it.
 *
 * <p>Guava and Spark have no batch API: their {@code putAll}, {@code mightContainAll} and
 * {@code retainAbsent} are the loops a user would write, written once here over the peer's
 * per-key calls and allocating the result as sparkbloom's methods do. Batches are slices {@code
 * keys[from..to)} of a larger array, as a user cuts them: the peers loop over the slice,
 * sparkbloom passes it to its slice methods (no copy).
 */
abstract class Impl implements AutoCloseable {
  static final String SPARKBLOOM = "sparkbloom";
  static final String GUAVA = "guava";
  static final String SPARK_V1 = "spark_v1";
  static final String SPARK_V2 = "spark_v2";
  /** sparkbloom's opt-in cache-blocked layout ({@code Strategy.BLOCKED}), its own sizing. */
  static final String SPARKBLOOM_BLOCKED = "sparkbloom_blocked";

  /** An empty filter sized for (n, p) by {@code name}'s own sizing; strings or u64 keys. */
  static Impl create(String name, Shape shape, boolean stringKeys) {
    switch (name) {
      case SPARKBLOOM:
        return new Sparkbloom(io.sparkbloom.BloomFilter.create(shape.n, shape.p));
      case SPARKBLOOM_BLOCKED:
        return new Sparkbloom(
            io.sparkbloom.BloomFilter.create(shape.n, shape.p, io.sparkbloom.Strategy.BLOCKED));
      case GUAVA:
        return stringKeys
            ? new GuavaStrings(
                com.google.common.hash.BloomFilter.create(
                    Funnels.stringFunnel(StandardCharsets.UTF_8), shape.n, shape.p))
            : new GuavaLongs(
                com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), shape.n, shape.p));
      case SPARK_V1:
        return new Spark(spark(org.apache.spark.util.sketch.BloomFilter.Version.V1, shape));
      case SPARK_V2:
        return new Spark(spark(org.apache.spark.util.sketch.BloomFilter.Version.V2, shape));
      default:
        throw new IllegalArgumentException("unknown implementation " + name);
    }
  }

  /** {@link #create} with long keys, then each of {@code keys} put, one call per key. */
  static Impl holding(String name, Shape shape, long[] keys) {
    Impl filter = create(name, shape, false);
    for (long key : keys) {
      filter.put(key);
    }
    return filter;
  }

  private static org.apache.spark.util.sketch.BloomFilter spark(
      org.apache.spark.util.sketch.BloomFilter.Version version, Shape shape) {
    long numBits = org.apache.spark.util.sketch.BloomFilter.optimalNumOfBits(shape.n, shape.p);
    return org.apache.spark.util.sketch.BloomFilter.create(version, shape.n, numBits, 0);
  }

  abstract boolean put(long key);

  abstract boolean mightContain(long key);

  abstract boolean put(String key);

  abstract boolean mightContain(String key);

  // The batch operations of a peer without a batch API: the loops a user writes, shared by the
  // peers (one subclass per fork, so put/mightContain inline into them); sparkbloom overrides
  // them with its batch calls.

  boolean putAll(long[] keys, int from, int to) {
    boolean changed = false;
    for (int i = from; i < to; i++) {
      changed |= put(keys[i]);
    }
    return changed;
  }

  boolean[] mightContainAll(long[] keys, int from, int to) {
    boolean[] out = new boolean[to - from];
    for (int i = from; i < to; i++) {
      out[i - from] = mightContain(keys[i]);
    }
    return out;
  }

  long[] retainAbsent(long[] keys, int from, int to) {
    long[] out = new long[to - from];
    int n = 0;
    for (int i = from; i < to; i++) {
      long key = keys[i];
      if (!mightContain(key)) {
        out[n++] = key;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The object a user hands to an ObjectOutputStream. */
  abstract Object serializable();

  /** The implementation's own byte format: write. */
  abstract byte[] toBytes();

  /** The implementation's own byte format: read. */
  abstract Object fromBytes(byte[] bytes);

  @Override
  public void close() {}

  /** A peer's {@code writeTo(OutputStream)}. */
  interface StreamWriter {
    void writeTo(OutputStream out) throws IOException;
  }

  /** A peer's {@code readFrom}, or any read that throws IOException. */
  interface Reader {
    Object read() throws IOException;
  }

  /** The bytes {@code writer} writes. */
  static byte[] written(StreamWriter writer) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      writer.writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** What {@code reader} reads; its IOException unchecked. */
  static Object read(Reader reader) {
    try {
      return reader.read();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // ------------------------------------------------------------------------------------------

  static final class Sparkbloom extends Impl {
    final io.sparkbloom.BloomFilter f;

    Sparkbloom(io.sparkbloom.BloomFilter f) {
      this.f = f;
    }

    @Override
    boolean put(long key) {
      return f.put(key);
    }

    @Override
    boolean mightContain(long key) {
      return f.mightContain(key);
    }

    @Override
    boolean put(String key) {
      return f.put(key);
    }

    @Override
    boolean mightContain(String key) {
      return f.mightContain(key);
    }

    @Override
    boolean putAll(long[] keys, int from, int to) {
      return f.putAll(keys, from, to);
    }

    @Override
    boolean[] mightContainAll(long[] keys, int from, int to) {
      return f.mightContainAll(keys, from, to);
    }

    @Override
    long[] retainAbsent(long[] keys, int from, int to) {
      return f.retainAbsent(keys, from, to);
    }

    @Override
    Object serializable() {
      return f;
    }

    @Override
    byte[] toBytes() {
      return f.toByteArray();
    }

    @Override
    Object fromBytes(byte[] bytes) {
      return read(() -> io.sparkbloom.BloomFilter.fromByteArray(bytes));
    }

    @Override
    public void close() {
      f.close();
    }
  }

  /** Guava with {@code Funnels.longFunnel()}: {@code BloomFilter<Long>}, boxing each key. */
  static final class GuavaLongs extends Impl {
    final com.google.common.hash.BloomFilter<Long> f;

    GuavaLongs(com.google.common.hash.BloomFilter<Long> f) {
      this.f = f;
    }

    @Override
    boolean put(long key) {
      return f.put(key);
    }

    @Override
    boolean mightContain(long key) {
      return f.mightContain(key);
    }

    @Override
    boolean put(String key) {
      throw new UnsupportedOperationException("a BloomFilter<Long> takes no strings");
    }

    @Override
    boolean mightContain(String key) {
      throw new UnsupportedOperationException("a BloomFilter<Long> takes no strings");
    }

    @Override
    Object serializable() {
      return f;
    }

    @Override
    byte[] toBytes() {
      return written(f::writeTo);
    }

    @Override
    Object fromBytes(byte[] bytes) {
      return read(() -> com.google.common.hash.BloomFilter.readFrom(
          new ByteArrayInputStream(bytes), Funnels.longFunnel()));
    }
  }

  /** Guava with {@code Funnels.stringFunnel(UTF_8)}: what sparkbloom's String keys equal. */
  static final class GuavaStrings extends Impl {
    final com.google.common.hash.BloomFilter<CharSequence> f;

    GuavaStrings(com.google.common.hash.BloomFilter<CharSequence> f) {
      this.f = f;
    }

    @Override
    boolean put(long key) {
      throw new UnsupportedOperationException("a BloomFilter<CharSequence> takes no longs");
    }

    @Override
    boolean mightContain(long key) {
      throw new UnsupportedOperationException("a BloomFilter<CharSequence> takes no longs");
    }

    @Override
    boolean put(String key) {
      return f.put(key);
    }

    @Override
    boolean mightContain(String key) {
      return f.mightContain(key);
    }

    @Override
    Object serializable() {
      return f;
    }

    @Override
    byte[] toBytes() {
      throw new UnsupportedOperationException();
    }

    @Override
    Object fromBytes(byte[] bytes) {
      throw new UnsupportedOperationException();
    }
  }

  /** Spark's {@code org.apache.spark.util.sketch.BloomFilter}, V1 or V2. */
  static final class Spark extends Impl {
    final org.apache.spark.util.sketch.BloomFilter f;

    Spark(org.apache.spark.util.sketch.BloomFilter f) {
      this.f = f;
    }

    @Override
    boolean put(long key) {
      return f.putLong(key);
    }

    @Override
    boolean mightContain(long key) {
      return f.mightContainLong(key);
    }

    @Override
    boolean put(String key) {
      return f.putString(key);
    }

    @Override
    boolean mightContain(String key) {
      return f.mightContainString(key);
    }

    @Override
    Object serializable() {
      return f;
    }

    @Override
    byte[] toBytes() {
      return written(f::writeTo);
    }

    @Override
    Object fromBytes(byte[] bytes) {
      return read(() -> org.apache.spark.util.sketch.BloomFilter.readFrom(bytes));
    }
  }
}
