package io.sparkbloom.bench;

import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One filter of one implementation, behind the operations the benchmarks time. Each JMH fork
 * runs one (benchmark, implementation, shape) combination, so every call site here sees a
 * single subclass and the JIT inlines through it.
 *
 * <p>Guava and Spark have no batch API: their {@code putAll}, {@code mightContainAll} and
 * {@code retainAbsent} are the loop a user would write, allocating the result as sparkbloom's
 * methods do.
 */
abstract class Impl implements AutoCloseable {
  static final String SPARKBLOOM = "sparkbloom";
  static final String GUAVA = "guava";
  static final String SPARK_V1 = "spark_v1";
  static final String SPARK_V2 = "spark_v2";

  /** An empty filter sized for (n, p) by {@code name}'s own sizing; strings or u64 keys. */
  static Impl create(String name, Shape shape, boolean stringKeys) {
    switch (name) {
      case SPARKBLOOM:
        return new Sparkbloom(io.sparkbloom.BloomFilter.create(shape.n, shape.p));
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

  private static org.apache.spark.util.sketch.BloomFilter spark(
      org.apache.spark.util.sketch.BloomFilter.Version version, Shape shape) {
    long numBits = org.apache.spark.util.sketch.BloomFilter.optimalNumOfBits(shape.n, shape.p);
    return org.apache.spark.util.sketch.BloomFilter.create(version, shape.n, numBits, 0);
  }

  abstract boolean put(long key);

  abstract boolean mightContain(long key);

  abstract boolean put(String key);

  abstract boolean mightContain(String key);

  abstract boolean putAll(long[] keys);

  abstract boolean[] mightContainAll(long[] keys);

  abstract long[] retainAbsent(long[] keys);

  /** The object a user hands to an ObjectOutputStream. */
  abstract Object serializable();

  /** The implementation's own byte format: write. */
  abstract byte[] toBytes();

  /** The implementation's own byte format: read. */
  abstract Object fromBytes(byte[] bytes);

  @Override
  public void close() {}

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
    boolean putAll(long[] keys) {
      return f.putAll(keys);
    }

    @Override
    boolean[] mightContainAll(long[] keys) {
      return f.mightContainAll(keys);
    }

    @Override
    long[] retainAbsent(long[] keys) {
      return f.retainAbsent(keys);
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
      try {
        return io.sparkbloom.BloomFilter.fromByteArray(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
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
    boolean putAll(long[] keys) {
      boolean changed = false;
      for (long key : keys) {
        changed |= f.put(key);
      }
      return changed;
    }

    @Override
    boolean[] mightContainAll(long[] keys) {
      boolean[] out = new boolean[keys.length];
      for (int i = 0; i < keys.length; i++) {
        out[i] = f.mightContain(keys[i]);
      }
      return out;
    }

    @Override
    long[] retainAbsent(long[] keys) {
      long[] out = new long[keys.length];
      int n = 0;
      for (long key : keys) {
        if (!f.mightContain(key)) {
          out[n++] = key;
        }
      }
      return Arrays.copyOf(out, n);
    }

    @Override
    Object serializable() {
      return f;
    }

    @Override
    byte[] toBytes() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try {
        f.writeTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out.toByteArray();
    }

    @Override
    Object fromBytes(byte[] bytes) {
      try {
        return com.google.common.hash.BloomFilter.readFrom(
            new ByteArrayInputStream(bytes), Funnels.longFunnel());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
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
    boolean putAll(long[] keys) {
      throw new UnsupportedOperationException();
    }

    @Override
    boolean[] mightContainAll(long[] keys) {
      throw new UnsupportedOperationException();
    }

    @Override
    long[] retainAbsent(long[] keys) {
      throw new UnsupportedOperationException();
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
    boolean putAll(long[] keys) {
      boolean changed = false;
      for (long key : keys) {
        changed |= f.putLong(key);
      }
      return changed;
    }

    @Override
    boolean[] mightContainAll(long[] keys) {
      boolean[] out = new boolean[keys.length];
      for (int i = 0; i < keys.length; i++) {
        out[i] = f.mightContainLong(keys[i]);
      }
      return out;
    }

    @Override
    long[] retainAbsent(long[] keys) {
      long[] out = new long[keys.length];
      int n = 0;
      for (long key : keys) {
        if (!f.mightContainLong(key)) {
          out[n++] = key;
        }
      }
      return Arrays.copyOf(out, n);
    }

    @Override
    Object serializable() {
      return f;
    }

    @Override
    byte[] toBytes() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try {
        f.writeTo(out);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out.toByteArray();
    }

    @Override
    Object fromBytes(byte[] bytes) {
      try {
        return org.apache.spark.util.sketch.BloomFilter.readFrom(bytes);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
