package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Interoperation with Guava's {@code com.google.common.hash.BloomFilter}: its {@code writeTo}
 * stream in both directions, and conversion of live Guava objects (any Guava from 14 to 33,
 * shaded or not). A filter from here answers {@code mightContain} exactly as the Guava filter
 * did for keys of {@code Funnels.longFunnel()}, {@code byteArrayFunnel()} and {@code
 * stringFunnel(UTF_8)}. {@link BloomFilter}'s Guava methods delegate here.
 *
 * <p>Guava's stream is big-endian: strategy ordinal (1 byte), k (1 byte), word count (int32),
 * the words (int64 each); {@code FORMAT.md} §6.
 */
public final class GuavaInterop {
  /** Bytes of the header of Guava's {@code writeTo} stream. */
  static final int HEADER_LENGTH = 6;

  private GuavaInterop() {}

  /**
   * The bytes Guava's {@code BloomFilter.writeTo} writes for the same filter, which Guava 17+
   * reads with {@code BloomFilter.readFrom(in, funnel)}.
   *
   * @throws IllegalArgumentException if the filter has more than (2<sup>31</sup> − 1) · 64 bits,
   *     which Guava cannot represent
   * @throws FilterExceedsMemoryException if the bytes exceed the Java heap's maximum ({@code
   *     -Xmx}), naming both
   * @throws OutOfMemoryError only if the heap, below that maximum, has no room for them now
   * @throws IllegalStateException if the filter is closed
   */
  public static byte[] toGuavaByteArray(BloomFilter filter) {
    return filter.call(BloomFilterNative::nToGuava);
  }

  /** Writes {@link #toGuavaByteArray} to {@code out}; does not flush or close it. */
  public static void writeGuava(BloomFilter filter, OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out is null");
    out.write(toGuavaByteArray(filter));
  }

  /**
   * The filter whose Guava {@code writeTo} bytes are exactly {@code bytes}, refusing one of more
   * than {@code maxNumBits} ({@code >= 0}) bits.
   *
   * @throws FilterTooLargeException if the filter has more than {@code maxNumBits} bits or
   *     cannot be allocated
   * @throws CorruptFilterException if the bytes are not exactly one Guava filter, naming the
   *     field (strategy, numHashFunctions, numBits, length)
   * @throws NullPointerException if {@code bytes} is null
   */
  public static BloomFilter readGuava(byte[] bytes, long maxNumBits) throws CorruptFilterException {
    return new BloomFilter(
        BloomFilterNative.nFromGuava(bytes, DecodeLimit.check(maxNumBits, "maxNumBits")));
  }

  /**
   * Reads one filter written by Guava's {@code BloomFilter.writeTo}, consuming exactly its
   * bytes, refusing more than {@code maxNumBits} bits; memory grows only as the bytes arrive.
   *
   * @throws FilterTooLargeException if the header declares more than {@code maxNumBits} bits
   * @throws CorruptFilterException if the bytes are not a valid Guava filter or end early
   * @throws IOException if {@code in} throws
   */
  public static BloomFilter readGuava(InputStream in, long maxNumBits) throws IOException {
    return FramedReader.readFilter(
        in, maxNumBits, HEADER_LENGTH, "words", BloomFilterNative::nGuavaTotalLength,
        GuavaInterop::readGuava);
  }

  /**
   * Converts a live Guava {@code BloomFilter} — any Guava from 14 to 33, unshaded or shaded
   * (e.g. Spark 3's {@code org.sparkproject.guava.hash.BloomFilter}), from any class loader —
   * keeping its bits, number of hash functions and strategy. Use it to migrate filters that only
   * Java serialization can load (such as those saved with Spark's {@code saveAsObjectFile}).
   *
   * <p>The filter's funnel is not checked: answers match Guava's for {@code longFunnel()},
   * {@code byteArrayFunnel()} and {@code stringFunnel(UTF_8)} keys. (Guava 14's {@code
   * stringFunnel()} hashes UTF-16 chars, not UTF-8: query such a filter with the bytes of
   * {@code s.toCharArray()} as little-endian chars.)
   *
   * <p>The private fields are read by reflection; where that is refused (Guava as a named
   * module), Guava's public {@code writeTo} is used instead.
   *
   * @throws IllegalArgumentException if the object is not a Guava Bloom filter
   * @throws NullPointerException if {@code guavaBloomFilter} is null
   */
  public static BloomFilter fromGuava(Object guavaBloomFilter) {
    Objects.requireNonNull(guavaBloomFilter, "guavaBloomFilter is null");
    Class<?> type = guavaBloomFilter.getClass();
    if (!type.getName().endsWith(".hash.BloomFilter")) {
      throw new IllegalArgumentException(
          "guavaBloomFilter: " + type.getName() + " is not a Guava hash.BloomFilter");
    }
    Object data;
    int numHashFunctions;
    Object strategy;
    try {
      Object bits = readField(type, guavaBloomFilter, "bits");
      data = readField(bits.getClass(), bits, "data");
      numHashFunctions = (Integer) readField(type, guavaBloomFilter, "numHashFunctions");
      strategy = readField(type, guavaBloomFilter, "strategy");
    } catch (ReflectiveOperationException | RuntimeException e) {
      if (e instanceof IllegalArgumentException) {
        throw (IllegalArgumentException) e;
      }
      // Only a refused reflective read falls back (e.g. Guava as a named module): failures of
      // the conversion itself propagate, they would fail again after a full writeTo copy.
      return fromGuavaWriteTo(guavaBloomFilter, e);
    }
    if (!(strategy instanceof Enum)) {
      throw new IllegalArgumentException(
          "guavaBloomFilter: unknown strategy " + strategy.getClass().getName());
    }
    Strategy ours = Strategy.ofOrdinal(((Enum<?>) strategy).ordinal());
    if (data instanceof long[]) {
      return BloomFilter.fromWords((long[]) data, numHashFunctions, ours); // Guava <= 22: BitArray
    }
    if (data instanceof AtomicLongArray) {
      return fromAtomicWords((AtomicLongArray) data, numHashFunctions, ours); // Guava >= 23
    }
    throw new IllegalArgumentException(
        "guavaBloomFilter: unexpected bit array " + data.getClass().getName());
  }

  /** Words per copy from an {@code AtomicLongArray}: bounds the heap a conversion needs. */
  private static final int WORDS_PER_COPY = 64 * 1024;

  /**
   * A filter with the words of Guava 23+'s {@code LockFreeBitArray}, copied through a bounded
   * buffer: a 2 GB Guava filter needs no 2 GB heap copy.
   */
  private static BloomFilter fromAtomicWords(
      AtomicLongArray atomic, int numHashFunctions, Strategy strategy) {
    int length = atomic.length();
    BloomFilter filter = BloomFilter.withShape(64L * length, numHashFunctions, strategy);
    long[] buffer = new long[Math.min(length, WORDS_PER_COPY)];
    for (int from = 0; from < length; from += buffer.length) {
      int count = Math.min(buffer.length, length - from);
      for (int i = 0; i < count; i++) {
        buffer[i] = atomic.get(from + i);
      }
      filter.orWords(from, buffer, count);
    }
    return filter;
  }

  private static BloomFilter fromGuavaWriteTo(Object guava, Exception reflectionFailure) {
    try {
      Method writeTo = guava.getClass().getMethod("writeTo", OutputStream.class);
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      writeTo.invoke(guava, bytes);
      return readGuava(bytes.toByteArray(), DecodeLimit.MAX_NUM_BITS);
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException
        | IOException e) {
      // an Error that writeTo threw (out of heap) is only named (Causes)
      Throwable thrown = e instanceof InvocationTargetException ? e.getCause() : e;
      IllegalArgumentException failure =
          new IllegalArgumentException(
              "guavaBloomFilter: cannot read the fields of "
                  + guava.getClass().getName()
                  + " ("
                  + reflectionFailure
                  + ") and it has no usable writeTo ("
                  + thrown
                  + ")",
              Causes.withoutErrors(e));
      failure.addSuppressed(reflectionFailure);
      throw failure;
    }
  }

  private static Object readField(Class<?> type, Object target, String name)
      throws ReflectiveOperationException {
    Field field = type.getDeclaredField(name);
    field.setAccessible(true);
    Object value = field.get(target);
    if (value == null) {
      throw new IllegalArgumentException("guavaBloomFilter: field " + name + " is null");
    }
    return value;
  }
}
