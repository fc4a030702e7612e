package io.sparkbloom;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;

/**
 * Interoperation with Spark's own filter, {@code org.apache.spark.util.sketch.BloomFilter} (what
 * {@code df.stat.bloomFilter} and the runtime filters build): its {@code writeTo} stream both
 * ways, and conversion of live Spark objects. A filter read from Spark's bytes has strategy
 * {@link Strategy#SPARK_SKETCH_V1} or {@link Strategy#SPARK_SKETCH_V2} and answers {@code
 * mightContain(long | String | byte[])} exactly as Spark's {@code mightContainLong /
 * mightContainString / mightContainBinary}; {@code writeSpark(readSpark(x))} gives back {@code x}
 * byte for byte. {@link BloomFilter}'s Spark methods delegate here.
 *
 * <p>Spark's stream is big-endian: V1 (Spark 2.0 to 4.0) is version 1, k, word count (int32
 * each), then the words (int64 each); V2 (the default since Spark 4.1) adds an int32 seed after
 * k. Only V2's default seed 0 is supported ({@code FORMAT.md} §1.6, §10).
 */
public final class SparkSketchInterop {
  private static final int VERSION_LENGTH = 4;
  private static final int V1_HEADER_LENGTH = 12;
  private static final int V2_HEADER_LENGTH = 16;

  private SparkSketchInterop() {}

  /**
   * The bytes Spark's {@code BloomFilter.writeTo} writes for the same filter, which Spark's
   * {@code BloomFilter.readFrom} loads: V1 for {@link Strategy#SPARK_SKETCH_V1}, V2 (seed 0) for
   * {@link Strategy#SPARK_SKETCH_V2}.
   *
   * @throws IllegalArgumentException if the filter's strategy is not a Spark sketch strategy
   * @throws IllegalStateException if the filter is closed
   */
  public static byte[] toSparkByteArray(BloomFilter filter) {
    return filter.call(BloomFilterNative::nToSpark);
  }

  /** Writes {@link #toSparkByteArray} to {@code out}; does not flush or close it. */
  public static void writeSpark(BloomFilter filter, OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out is null");
    out.write(toSparkByteArray(filter));
  }

  /**
   * The filter whose Spark {@code writeTo} bytes (V1 or V2) are exactly {@code bytes}, refusing
   * one of more than {@code maxNumBits} ({@code >= 0}) bits.
   *
   * @throws FilterTooLargeException if the filter has more than {@code maxNumBits} bits
   * @throws CorruptFilterException naming the field (version, numHashFunctions, seed, numBits,
   *     length)
   */
  public static BloomFilter readSpark(byte[] bytes, long maxNumBits) throws CorruptFilterException {
    return new BloomFilter(
        BloomFilterNative.nFromSpark(bytes, DecodeLimit.check(maxNumBits, "maxNumBits")));
  }

  /**
   * Reads one filter written by Spark's {@code BloomFilter.writeTo} (V1 or V2), consuming
   * exactly its bytes, refusing more than {@code maxNumBits} bits; memory grows only as the
   * bytes arrive.
   *
   * @throws FilterTooLargeException if the header declares more than {@code maxNumBits} bits
   * @throws CorruptFilterException if the bytes are not a valid Spark filter or end early
   * @throws IOException if {@code in} throws
   */
  public static BloomFilter readSpark(InputStream in, long maxNumBits) throws IOException {
    Objects.requireNonNull(in, "in is null");
    byte[] version = new byte[VERSION_LENGTH];
    int got = in.readNBytes(version, 0, VERSION_LENGTH);
    if (got < VERSION_LENGTH) {
      throw new CorruptFilterException("corrupt filter: length: the stream ended after " + got
          + " bytes, in the version of Spark's header");
    }
    int v = java.nio.ByteBuffer.wrap(version).getInt();
    int headerLength;
    if (v == 1) {
      headerLength = V1_HEADER_LENGTH;
    } else if (v == 2) {
      headerLength = V2_HEADER_LENGTH;
    } else {
      throw new CorruptFilterException(
          "corrupt filter: version: unknown Spark sketch Bloom filter version " + v
              + "; expected 1 or 2");
    }
    InputStream whole = new SequenceInputStream(new ByteArrayInputStream(version), in);
    return FramedReader.readFilter(
        whole, maxNumBits, headerLength, "words", BloomFilterNative::nSparkTotalLength,
        SparkSketchInterop::readSpark);
  }

  /**
   * Converts a live Spark {@code org.apache.spark.util.sketch.BloomFilter} (V1 or V2, from any
   * class loader) through its public {@code writeTo}: a new filter with the same bits, k and
   * index walk.
   *
   * @throws IllegalArgumentException if the object is not a Spark sketch Bloom filter, or is a
   *     V2 filter with a seed other than 0
   * @throws NullPointerException if {@code sparkSketchBloomFilter} is null
   */
  public static BloomFilter fromSpark(Object sparkSketchBloomFilter) {
    Objects.requireNonNull(sparkSketchBloomFilter, "sparkSketchBloomFilter is null");
    Class<?> api = sparkSketchApi(sparkSketchBloomFilter.getClass());
    if (api == null) {
      throw new IllegalArgumentException(
          "sparkSketchBloomFilter: " + sparkSketchBloomFilter.getClass().getName()
              + " is not an org.apache.spark.util.sketch.BloomFilter");
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      // The public abstract class's method: the implementations are package-private.
      Method writeTo = api.getMethod("writeTo", OutputStream.class);
      writeTo.invoke(sparkSketchBloomFilter, bytes);
      return readSpark(bytes.toByteArray(), DecodeLimit.MAX_NUM_BITS);
    } catch (InvocationTargetException e) {
      // an Error (writeTo out of heap) is only named (Causes)
      Throwable cause = e.getCause();
      throw new IllegalArgumentException(
          "sparkSketchBloomFilter: writeTo failed: " + cause, Causes.withoutErrors(cause));
    } catch (NoSuchMethodException | IllegalAccessException | CorruptFilterException e) {
      throw new IllegalArgumentException("sparkSketchBloomFilter: " + e.getMessage(), e);
    }
  }

  /** Spark's public {@code BloomFilter} class among the supertypes of {@code type}, or null. */
  private static Class<?> sparkSketchApi(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      if (c.getName().equals("org.apache.spark.util.sketch.BloomFilter")) {
        return c;
      }
    }
    return null;
  }
}
