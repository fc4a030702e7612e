package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Reference;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.function.LongToIntFunction;
import java.util.function.LongUnaryOperator;

/**
 * What {@link BloomFilter} and {@link CountingBloomFilter} share around their natives: the
 * natives of every operation both have, one each ({@code rust/src/jni/native_filter.rs}), taking
 * the filter's kind ({@link #PLAIN} or {@link #COUNTING}) beside its handle; the calls that take
 * the handle and keep the filter reachable until they return ({@link NativeHandle}'s rule 1);
 * the shape, bytes and {@code long} batch methods, and {@code equals}, {@code hashCode} and
 * {@code toString}. Loading this class loads the library.
 */
abstract class NativeFilter extends NativeHandle {
  static {
    NativeLibrary.ensureLoaded();
  }

  /** The kind of a {@link BloomFilter}'s handle. */
  static final int PLAIN = 0;

  /** The kind of a {@link CountingBloomFilter}'s handle. */
  static final int COUNTING = 1;

  /** {@link #PLAIN} or {@link #COUNTING}: which core type the handle is. */
  final int kind;

  NativeFilter(long handle, long nativeBytes, int kind) {
    super(handle, nativeBytes, h -> nFree(kind, h));
    this.kind = kind;
  }

  /** The filter's shape and state for {@link #toString}. */
  abstract String describe(long handle);

  // ---- shared public API (each documented once, here; all throw IllegalStateException once the
  // filter is closed)

  /** The number of positions m (bits, or 4-bit counters). */
  public long bitSize() {
    return callLong(h -> nBitSize(kind, h));
  }

  /** The number of hash functions k. */
  public int numHashFunctions() {
    return callInt(h -> nNumHashes(kind, h));
  }

  /** How hashes become positions. */
  public Strategy strategy() {
    return Strategy.ofOrdinal(callInt(h -> nStrategy(kind, h)));
  }

  /**
   * The filter in the versioned, checksummed layout of {@code FORMAT.md}: deterministic, equal
   * filters give equal bytes; its class's {@code fromByteArray} reads them.
   *
   * @throws IllegalArgumentException if they would exceed a Java array, naming the size
   * @throws FilterExceedsMemoryException if they exceed the Java heap's maximum
   */
  public byte[] toByteArray() {
    return call(h -> nToBytes(kind, h));
  }

  /**
   * Writes {@link #toByteArray()} to {@code out}; does not flush or close it. Its class's {@code
   * readFrom} reads exactly these bytes back.
   */
  public void writeTo(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out is null");
    out.write(toByteArray());
  }

  /** {@code mightContain} of every key, one answer per key, in one native call. */
  public boolean[] mightContainAll(long[] keys) {
    return mightContainAllSlice(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /**
   * The keys certainly never put, in their order, duplicates kept, in one native call (the
   * dedup step).
   */
  public long[] retainAbsent(long[] keys) {
    return retainAbsentSlice(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /** Puts (adds) {@code keys[from..to)}: whether a bit (a counter) changed. */
  final boolean putAllSlice(long[] keys, int from, int to) {
    KeyArgs.checkSlice(keys, from, to);
    return test(h -> nPutAll(kind, h, keys, from, to));
  }

  /** {@code mightContain} of {@code keys[from..to)}. */
  final boolean[] mightContainAllSlice(long[] keys, int from, int to) {
    KeyArgs.checkSlice(keys, from, to);
    boolean[] out = new boolean[to - from];
    run(h -> nMightContainAll(kind, h, keys, from, to, out));
    return out;
  }

  /** The keys of {@code keys[from..to)} certainly never put. */
  final long[] retainAbsentSlice(long[] keys, int from, int to) {
    KeyArgs.checkSlice(keys, from, to);
    return call(h -> nRetainAbsent(kind, h, keys, from, to));
  }

  /**
   * Equal when of the same class, both open, with the same shape, strategy and contents. A closed
   * filter equals only itself.
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (o == null || o.getClass() != getClass()) {
      return false;
    }
    NativeFilter other = (NativeFilter) o;
    if (isClosed() || other.isClosed()) {
      return false;
    }
    try {
      return call(other, (h, x) -> nEquals(kind, h, x));
    } catch (IllegalStateException closedMeanwhile) {
      return false;
    }
  }

  /** Consistent with {@link #equals}; identity once closed. */
  @Override
  public int hashCode() {
    try {
      return callInt(h -> nHashCode(kind, h));
    } catch (IllegalStateException closed) {
      return System.identityHashCode(this);
    }
  }

  /** The class's simple name and its shape, or {@code {closed}}. */
  @Override
  public String toString() {
    String name = getClass().getSimpleName();
    try {
      return name + "{" + call(this::describe) + "}";
    } catch (IllegalStateException closed) {
      return name + "{closed}";
    }
  }

  // ---- native calls with the handle, keeping this filter reachable until they return. The hot
  // single-key calls take the native method as a non-capturing reference and the key as an
  // argument: no lambda allocated per key.

  final <R> R call(LongFunction<R> nativeCall) {
    try {
      return nativeCall.apply(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final boolean test(LongPredicate nativeCall) {
    return call(nativeCall::test); // Boolean.valueOf: no allocation
  }

  final long callLong(LongUnaryOperator nativeCall) {
    return call(nativeCall::applyAsLong);
  }

  final int callInt(LongToIntFunction nativeCall) {
    return call(nativeCall::applyAsInt);
  }

  final void run(java.util.function.LongConsumer nativeCall) {
    call(
        h -> {
          nativeCall.accept(h);
          return null;
        });
  }

  /** A native call with the kind, the handle and a {@code long} key. */
  interface KeyCall {
    boolean apply(int kind, long handle, long key);
  }

  /** A native call with the handle and a {@code long} key, returning an {@code int}. */
  interface KeyIntCall {
    int apply(long handle, long key);
  }

  final boolean testKey(KeyCall nativeCall, long key) {
    try {
      return nativeCall.apply(kind, handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final int callIntKey(KeyIntCall nativeCall, long key) {
    try {
      return nativeCall.apply(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A native call on two handles. */
  interface PairCall<R> {
    R apply(long handle, long other);
  }

  /** A native call on two handles that returns nothing (merge, intersect, subtract). */
  interface PairRun {
    void apply(long handle, long other);
  }

  /** A native call on this filter's and {@code other}'s handles, both kept reachable. */
  final <R> R call(NativeFilter other, PairCall<R> nativeCall) {
    Objects.requireNonNull(other, "other is null");
    try {
      return nativeCall.apply(handle(), other.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  final void run(NativeFilter other, PairRun nativeCall) {
    call(
        other,
        (h, o) -> {
          nativeCall.apply(h, o);
          return null;
        });
  }

  // ---- the natives of both filter classes: the kind names the core type behind the handle

  static native long nCreate(int kind, long expectedInsertions, double fpp, int strategy);

  static native long nWithShape(int kind, long numBits, int numHashFunctions, int strategy);

  static native void nFree(int kind, long handle);

  static native long nCopy(int kind, long handle);

  /** {@code put} (plain) or {@code add} (counting). */
  static native boolean nPut(int kind, long handle, long key);

  static native boolean nPutBytes(int kind, long handle, byte[] key);

  static native boolean nMightContain(int kind, long handle, long key);

  static native boolean nMightContainBytes(int kind, long handle, byte[] key);

  static native boolean nPutAll(int kind, long handle, long[] keys, int from, int to);

  static native void nMightContainAll(
      int kind, long handle, long[] keys, int from, int to, boolean[] out);

  static native long[] nRetainAbsent(int kind, long handle, long[] keys, int from, int to);

  /** The union (plain) or the counters' sum (counting). */
  static native void nMerge(int kind, long handle, long other);

  static native boolean nIsCompatible(int kind, long handle, long other);

  static native boolean nEquals(int kind, long handle, long other);

  static native int nHashCode(int kind, long handle);

  static native long nBitSize(int kind, long handle);

  static native int nNumHashes(int kind, long handle);

  static native int nStrategy(int kind, long handle);

  static native byte[] nToBytes(int kind, long handle);

  static native long nFromBytes(int kind, byte[] bytes, long maxNumBits)
      throws CorruptFilterException;

  static native long nTotalLength(int kind, byte[] header, long maxNumBits)
      throws CorruptFilterException;

  // ---- the factories' bodies, arguments checked the same way for both filter classes

  /** {@code expectedInsertions} as the native sizing takes it: 0 counts as 1 (as in Guava). */
  static long insertionsToSize(long expectedInsertions, Strategy strategy) {
    if (expectedInsertions < 0) {
      throw new IllegalArgumentException(
          "invalid argument expectedInsertions: " + expectedInsertions + " is negative");
    }
    Objects.requireNonNull(strategy, "strategy is null");
    return expectedInsertions == 0 ? 1 : expectedInsertions;
  }

  /** The handle of {@code create(expectedInsertions, fpp, strategy)}. */
  static long createHandle(int kind, long expectedInsertions, double fpp, Strategy strategy) {
    long n = insertionsToSize(expectedInsertions, strategy);
    return nCreate(kind, n, fpp, strategy.ordinal());
  }

  /** The handle of {@code withShape(bitSize, numHashFunctions, strategy)}. */
  static long shapeHandle(int kind, long bitSize, int numHashFunctions, Strategy strategy) {
    Objects.requireNonNull(strategy, "strategy is null");
    return nWithShape(kind, bitSize, numHashFunctions, strategy.ordinal());
  }

  /** The handle of {@code fromByteArray(bytes, maxNumBits)}. */
  static long fromBytes(int kind, byte[] bytes, long maxNumBits) throws CorruptFilterException {
    return nFromBytes(kind, bytes, DecodeLimit.check(maxNumBits, "maxNumBits"));
  }

  /** {@code readFrom(in, maxNumBits)}: one FORMAT.md filter, decoded by {@code decoder}. */
  static <F> F readFramed(int kind, InputStream in, long maxNumBits, FramedReader.Decoder<F> decoder)
      throws IOException {
    return FramedReader.readFilter(in, maxNumBits, BloomFilter.HEADER_LENGTH, "payload",
        (header, max) -> nTotalLength(kind, header, max), decoder);
  }

  static String format(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
