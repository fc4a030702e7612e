package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.ref.Reference;
import java.util.Objects;

/**
 * A Bloom filter that sets exactly the bits Guava's {@code com.google.common.hash.BloomFilter}
 * sets, in native memory managed by a Rust core. {@link #mightContain(long)} never answers {@code
 * false} for a key that was put, and {@code true} for one never put with about the {@code fpp} it
 * was sized for, up to {@code expectedInsertions} distinct keys. {@code long}, {@code String} and
 * {@code byte[]} keys hash as Guava's {@code longFunnel()}, {@code stringFunnel(UTF_8)} and {@code
 * byteArrayFunnel()}, so a filter converted from or to Guava answers identically.
 *
 * <pre>{@code
 * try (BloomFilter seen = BloomFilter.create(10_000, 0.001)) {
 *   seen.putAll(new long[] {17, 42, 99});
 *   long[] fresh = seen.retainAbsent(new long[] {42, 7, 99, 8}); // {7, 8}
 * }
 * }</pre>
 *
 * <p>Puts, queries, {@code merge} and {@code intersect} may run from many threads at once (the
 * calls that change the bits take turns, so no put is lost; queries never wait). The bits ({@link
 * #bitSize()} / 8 bytes) live outside the heap until {@link #close()} or collection; drop shared
 * filters rather than close them (the package doc has the exact rules). {@link #toByteArray()}
 * writes {@code FORMAT.md}'s checksummed layout, which Java serialization ({@link Ser}) and Kryo
 * carry too, never a native pointer; Guava's, Spark's and Redis' forms are documented in {@link
 * GuavaInterop}, {@link SparkSketchInterop} and {@link RedisBitmaps}. Errors name the argument
 * or field: {@link IllegalArgumentException} ({@link FilterExceedsMemoryException} beyond this
 * process's memory), {@link NullPointerException}, {@link IllegalStateException} after close,
 * {@link CorruptFilterException} for bad bytes ({@link FilterTooLargeException} above the limit).
 */
@com.esotericsoftware.kryo.DefaultSerializer(BloomFilterKryoSerializer.class)
public final class BloomFilter extends NativeFilter implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Guava's default false-positive probability, used by {@link #create(long)}. */
  public static final double DEFAULT_FPP = 0.03;

  /** Bytes of the FORMAT.md header, which holds the length of the rest. */
  static final int HEADER_LENGTH = 24;

  /** Single-key queries over the native words, made on the first ({@link BitsView}). */
  private transient BitsView view;
  private transient boolean noView; // BitsView.of declined this filter

  /** The filter behind a handle just returned by a native factory. */
  BloomFilter(long handle) {
    super(handle, nBitSize(PLAIN, handle) / 8, PLAIN);
  }

  @Override
  String describe(long h) {
    return format(
        "m=%d, k=%d, strategy=%s, fill=%.2f%%",
        nBitSize(PLAIN, h),
        nNumHashes(PLAIN, h),
        Strategy.ofOrdinal(nStrategy(PLAIN, h)),
        100.0 * BloomFilterNative.nBitCount(h) / nBitSize(PLAIN, h));
  }

  /**
   * An empty filter for {@code expectedInsertions} (≥ 0; 0 counts as 1) keys at {@code fpp} in
   * (0, 1): the m and k of Guava's {@code create(funnel, expectedInsertions, fpp)}, MITZ_64.
   */
  public static BloomFilter create(long expectedInsertions, double fpp) {
    return create(expectedInsertions, fpp, Strategy.MURMUR128_MITZ_64);
  }

  /** {@link #create(long, double)} at Guava's default fpp of 3 %. */
  public static BloomFilter create(long expectedInsertions) {
    return create(expectedInsertions, DEFAULT_FPP);
  }

  /**
   * {@link #create(long, double)} with a strategy; {@link Strategy#MURMUR128_MITZ_32} sizes as
   * Guava 14.0.1 (k included), so new filters merge with ones {@linkplain #fromGuava converted}.
   */
  public static BloomFilter create(long expectedInsertions, double fpp, Strategy strategy) {
    return new BloomFilter(createHandle(PLAIN, expectedInsertions, fpp, strategy));
  }

  /**
   * The {@link #bitSize()} that {@link #create(long, double) create(expectedInsertions, fpp)}
   * gives, without making the filter: Guava's ⌊−n·ln p / ln²2⌋ rounded up to whole 64-bit words,
   * from the same sizing code.
   *
   * @throws IllegalArgumentException naming the argument, as {@code create} does for arguments
   *     out of range (a negative count, fpp outside (0, 1), more than 2<sup>43</sup> bits)
   */
  public static long bitSizeFor(long expectedInsertions, double fpp) {
    long n = insertionsToSize(expectedInsertions, Strategy.MURMUR128_MITZ_64);
    return BloomFilterNative.nBitSizeFor(n, fpp);
  }

  /**
   * The bit size of a filter for a key of {@code distinctItems} distinct items (0 counts as 1)
   * whose measured false-positive rate is at most {@code fpp} on Guava's double-hashing walk: the
   * fewest whole 64-bit words for which the walk's rate (the textbook (1 − e<sup>−kn/m</sup>)<sup>k</sup>
   * plus the short and aligned walks a small filter has) reaches fpp for some k. The rule of
   * {@code Sizing.perKeyCount(p)}, the CLI's {@code --sizing per-key} and Python's
   * {@code per_key_shape}, from the same core code. With {@link #perKeyNumHashFunctions} it gives
   * {@link #withShape}'s arguments (strategy {@code MURMUR128_MITZ_64}: Guava-readable).
   *
   * @throws IllegalArgumentException naming the argument: a negative count, fpp outside (0, 1),
   *     or a filter beyond 2<sup>43</sup> bits
   */
  public static long perKeyBitSize(long distinctItems, double fpp) {
    return BloomFilterNative.nPerKeyShape(distinctItems, fpp) >>> 8;
  }

  /** The k of {@link #perKeyBitSize}'s shape: the fewest hash functions that reach fpp there. */
  public static int perKeyNumHashFunctions(long distinctItems, double fpp) {
    return (int) (BloomFilterNative.nPerKeyShape(distinctItems, fpp) & 0xff);
  }

  /**
   * Sized by ClickHouse's table: the fewest whole bits per key b, then k, with (1 −
   * e<sup>−k/b</sup>)<sup>k</sup> ≤ {@code fpp} (≥ about 10<sup>−13</sup>): fewer hash
   * functions than {@code create}, a few more bits (1000 keys at 1 %: m = 10,048, k = 5).
   */
  public static BloomFilter createBestPractice(long expectedInsertions, double fpp) {
    return new BloomFilter(BloomFilterNative.nCreateBestPractice(expectedInsertions, fpp));
  }

  /**
   * An empty filter of exactly {@code bitSize} bits (1 to 2<sup>43</sup>; not a multiple of 64:
   * format version 2, no Guava form) and k = {@code numHashFunctions} (1 to 255), placed as Guava
   * places them (with MITZ_32: the Redis "BloomFilterHelper"'s filter, {@code RedisLayout}).
   */
  public static BloomFilter withShape(long bitSize, int numHashFunctions, Strategy strategy) {
    return new BloomFilter(shapeHandle(PLAIN, bitSize, numHashFunctions, strategy));
  }

  /** A filter over a copy of {@code words} (bit b in word b / 64 at bit b % 64). */
  static BloomFilter fromWords(long[] words, int numHashFunctions, Strategy strategy) {
    return new BloomFilter(BloomFilterNative.nFromWords(words, numHashFunctions, strategy.ordinal()));
  }

  /** ORs {@code words[0..count)} into this filter's words from {@code wordOffset} on. */
  void orWords(int wordOffset, long[] words, int count) {
    run(h -> BloomFilterNative.nOrWords(h, wordOffset, words, count));
  }

  /** An independent copy with the same shape, strategy and bits (Guava's {@code copy()}). */
  public BloomFilter copy() {
    return new BloomFilter(callLong(h -> nCopy(PLAIN, h)));
  }

  // ---- put (returns whether a bit changed, as in Guava) and query; slices as in copyOfRange

  /** Puts a {@code long} key. */
  public boolean put(long key) {
    return testKey(NativeFilter::nPut, key);
  }

  /** Puts a byte-string key. */
  public boolean put(byte[] key) {
    return test(h -> nPutBytes(PLAIN, h, key));
  }

  /** Puts a string key, hashed as its UTF-8 bytes. */
  public boolean put(String key) {
    return put(KeyArgs.utf8(key));
  }

  /** Puts every key in one native call. */
  public boolean putAll(long[] keys) {
    return putAll(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /** Puts {@code keys[from..to)} in one native call, without copying the slice. */
  public boolean putAll(long[] keys, int from, int to) {
    return putAllSlice(keys, from, to);
  }

  /** Puts every byte-string key in one native call. */
  public boolean putAll(byte[][] keys) {
    PackedKeys p = PackedKeys.of(keys);
    return test(h -> BloomFilterNative.nPutAllPacked(h, p.data, p.ends));
  }

  /** Puts every string key (as UTF-8) in one native call. */
  public boolean putAll(String[] keys) {
    PackedChars p = PackedChars.of(keys);
    return test(h -> BloomFilterNative.nPutAllUtf16(h, p.chars, p.ends));
  }

  /**
   * Whether {@code key} might have been put ({@code false}: certainly not). Answered in Java over
   * the native bits, without a native call or allocation; sees every put that happens-before it.
   */
  public boolean mightContain(long key) {
    try {
      long handle = handle(); // first: throws once closed, and marks the filter shared
      BitsView v = view;
      if (v == null) {
        v = view(handle);
      }
      return v != null ? v.mightContain(key) : nMightContain(PLAIN, handle, key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** As {@link #mightContain(long)} for a byte-string key. */
  public boolean mightContain(byte[] key) {
    try {
      long handle = handle();
      BitsView v = view(handle);
      return v == null ? nMightContainBytes(PLAIN, handle, key)
          : v.mightContain(Objects.requireNonNull(key, "key is null"));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** As {@link #mightContain(long)} for a string key (UTF-8). */
  public boolean mightContain(String key) {
    return mightContain(KeyArgs.utf8(key));
  }

  /** {@link #view}, made on first use; null if this filter has none. */
  private BitsView view(long handle) {
    BitsView v = view;
    if (v == null && !noView) {
      v = BitsView.of(handle);
      if (v == null) {
        noView = true;
      } else {
        view = v;
      }
    }
    return v;
  }

  /** {@code mightContain} of {@code keys[from..to)}, in one native call, without copying it. */
  public boolean[] mightContainAll(long[] keys, int from, int to) {
    return mightContainAllSlice(keys, from, to);
  }

  /** {@code mightContain} of every byte-string key, in one native call. */
  public boolean[] mightContainAll(byte[][] keys) {
    PackedKeys p = PackedKeys.of(keys);
    boolean[] out = new boolean[p.ends.length];
    run(h -> BloomFilterNative.nMightContainAllPacked(h, p.data, p.ends, out));
    return out;
  }

  /** {@code mightContain} of every string key, in one native call. */
  public boolean[] mightContainAll(String[] keys) {
    PackedChars p = PackedChars.of(keys);
    boolean[] out = new boolean[p.ends.length];
    run(h -> BloomFilterNative.nMightContainAllUtf16(h, p.chars, p.ends, out));
    return out;
  }

  /** {@link #retainAbsent(long[])} of {@code keys[from..to)}, without copying the slice. */
  public long[] retainAbsent(long[] keys, int from, int to) {
    return retainAbsentSlice(keys, from, to);
  }

  /** The byte-string keys certainly never put, in order. */
  public byte[][] retainAbsent(byte[][] keys) {
    return KeyArgs.absent(keys, mightContainAll(keys)).toArray(new byte[0][]);
  }

  /** The string keys certainly never put, in order. */
  public String[] retainAbsent(String[] keys) {
    return KeyArgs.absent(keys, mightContainAll(keys)).toArray(new String[0]);
  }

  /** ORs {@code other} (unchanged) in: the union (Guava's {@code putAll(BloomFilter)}). */
  public void merge(BloomFilter other) {
    run(other, (h, o) -> nMerge(PLAIN, h, o));
  }

  /** ANDs {@code other} in: "probably in both" (more often true than an exact one). */
  public void intersect(BloomFilter other) {
    run(other, BloomFilterNative::nIntersect);
  }

  /** Whether merge and intersect accept {@code other} (else they name each mismatch). */
  public boolean isCompatible(BloomFilter other) {
    return call(other, (h, o) -> nIsCompatible(PLAIN, h, o));
  }

  /** The number of bits set. */
  public long bitCount() {
    return callLong(BloomFilterNative::nBitCount);
  }

  /** Guava's estimate of the distinct keys put, {@code -m/k · ln(1 - bitCount/m)}, rounded. */
  public long approximateElementCount() {
    return callLong(BloomFilterNative::nApproximateElementCount);
  }

  /** Guava's {@code (bitCount/m)^k}: the false-positive probability now. */
  public double expectedFpp() {
    return call(BloomFilterNative::nExpectedFpp);
  }

  /** The filter whose {@link #toByteArray()} is {@code bytes}, under the default decode limit. */
  public static BloomFilter fromByteArray(byte[] bytes) throws CorruptFilterException {
    return fromByteArray(bytes, DecodeLimit.defaultMaxNumBits());
  }

  /**
   * {@link #fromByteArray(byte[])} refusing more than {@code maxNumBits} bits ({@link
   * FilterTooLargeException}) before allocating: 37 bytes can declare 2<sup>43</sup> bits.
   */
  public static BloomFilter fromByteArray(byte[] bytes, long maxNumBits)
      throws CorruptFilterException {
    return new BloomFilter(fromBytes(PLAIN, bytes, maxNumBits));
  }

  /** Reads one filter {@link #writeTo} wrote, exactly its bytes, memory growing as they arrive. */
  public static BloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, DecodeLimit.defaultMaxNumBits());
  }

  /** {@link #readFrom(InputStream)} refusing more than {@code maxNumBits} bits. */
  public static BloomFilter readFrom(InputStream in, long maxNumBits) throws IOException {
    return readFramed(PLAIN, in, maxNumBits, BloomFilter::fromByteArray);
  }

  /** {@link RedisBitmaps#toRedisBitmap}. */
  public byte[] toRedisBitmap() {
    return RedisBitmaps.toRedisBitmap(this);
  }

  /** {@link RedisBitmaps#fromRedisBitmap}. */
  public static BloomFilter fromRedisBitmap(
      byte[] bitmap, long bitSize, int numHashFunctions, Strategy strategy) {
    return RedisBitmaps.fromRedisBitmap(bitmap, bitSize, numHashFunctions, strategy);
  }

  /** {@link SparkSketchInterop#readSpark(InputStream, long)}, default limit. */
  public static BloomFilter readSpark(InputStream in) throws IOException {
    return SparkSketchInterop.readSpark(in, DecodeLimit.defaultMaxNumBits());
  }

  /** {@link SparkSketchInterop#writeSpark}. */
  public void writeSpark(OutputStream out) throws IOException {
    SparkSketchInterop.writeSpark(this, out);
  }

  /** {@link SparkSketchInterop#fromSpark}. */
  public static BloomFilter fromSpark(Object sparkSketchBloomFilter) {
    return SparkSketchInterop.fromSpark(sparkSketchBloomFilter);
  }

  /** {@link GuavaInterop#writeGuava}. */
  public void writeGuava(OutputStream out) throws IOException {
    GuavaInterop.writeGuava(this, out);
  }

  /** {@link GuavaInterop#toGuavaByteArray}. */
  public byte[] toGuavaByteArray() {
    return GuavaInterop.toGuavaByteArray(this);
  }

  /** {@link GuavaInterop#readGuava(byte[], long)}, default limit. */
  public static BloomFilter fromGuavaByteArray(byte[] bytes) throws CorruptFilterException {
    return GuavaInterop.readGuava(bytes, DecodeLimit.defaultMaxNumBits());
  }

  /** {@link GuavaInterop#readGuava(byte[], long)}. */
  public static BloomFilter fromGuavaByteArray(byte[] bytes, long maxNumBits)
      throws CorruptFilterException {
    return GuavaInterop.readGuava(bytes, maxNumBits);
  }

  /** {@link GuavaInterop#readGuava(InputStream, long)}, default limit. */
  public static BloomFilter readGuava(InputStream in) throws IOException {
    return GuavaInterop.readGuava(in, DecodeLimit.defaultMaxNumBits());
  }

  /** {@link GuavaInterop#readGuava(InputStream, long)}. */
  public static BloomFilter readGuava(InputStream in, long maxNumBits) throws IOException {
    return GuavaInterop.readGuava(in, maxNumBits);
  }

  /** {@link GuavaInterop#fromGuava}. */
  public static BloomFilter fromGuava(Object guavaBloomFilter) {
    return GuavaInterop.fromGuava(guavaBloomFilter);
  }

  // ---- Java serialization: the serial proxy Ser carries the bytes, never the handle

  private Object writeReplace() {
    return new Ser(this);
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("io.sparkbloom.BloomFilter is read through its serial proxy");
  }
}
