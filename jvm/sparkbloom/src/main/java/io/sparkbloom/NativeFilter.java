package io.sparkbloom;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Reference;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.function.LongToIntFunction;
import java.util.function.LongUnaryOperator;

/**
 * What {@link BloomFilter} and {@link CountingBloomFilter} share around their natives: the calls
 * that take the handle and keep the filter reachable until they return ({@link NativeHandle}'s
 * rule 1), the shape and bytes accessors, and {@code equals}, {@code hashCode} and {@code
 * toString}. Each filter class passes its natives as a {@link Natives} constant.
 */
abstract class NativeFilter extends NativeHandle {

  /** The natives every filter class has, by method reference to its {@code *Native} class. */
  static final class Natives {
    final LongUnaryOperator bitSize;
    final LongToIntFunction numHashes;
    final LongToIntFunction strategy;
    final LongFunction<byte[]> toBytes;
    final PairCall<Boolean> equals;
    final LongToIntFunction hashCode;
    final LongFunction<String> describe;

    Natives(
        LongUnaryOperator bitSize,
        LongToIntFunction numHashes,
        LongToIntFunction strategy,
        LongFunction<byte[]> toBytes,
        PairCall<Boolean> equals,
        LongToIntFunction hashCode,
        LongFunction<String> describe) {
      this.bitSize = bitSize;
      this.numHashes = numHashes;
      this.strategy = strategy;
      this.toBytes = toBytes;
      this.equals = equals;
      this.hashCode = hashCode;
      this.describe = describe;
    }
  }

  NativeFilter(long handle, long nativeBytes, java.util.function.LongConsumer freeNative) {
    super(handle, nativeBytes, freeNative);
  }

  /** This class's natives: a static constant of the subclass. */
  abstract Natives natives();

  // ---- shared public API (each documented once, here)

  /**
   * The number of positions m (bits, or 4-bit counters).
   *
   * @return m
   * @throws IllegalStateException if closed
   */
  public long bitSize() {
    return callLong(natives().bitSize);
  }

  /**
   * The number of hash functions k.
   *
   * @return k
   * @throws IllegalStateException if closed
   */
  public int numHashFunctions() {
    return callInt(natives().numHashes);
  }

  /**
   * How hashes become positions.
   *
   * @return the strategy
   * @throws IllegalStateException if closed
   */
  public Strategy strategy() {
    return Strategy.ofOrdinal(callInt(natives().strategy));
  }

  /**
   * The filter in the versioned, checksummed layout of {@code FORMAT.md}: deterministic, equal
   * filters give equal bytes; its class's {@code fromByteArray} reads them.
   *
   * @return the bytes
   * @throws IllegalStateException if closed
   * @throws IllegalArgumentException if they would exceed a Java array, naming the size
   * @throws FilterExceedsMemoryException if they exceed the Java heap's maximum
   */
  public byte[] toByteArray() {
    return call(natives().toBytes);
  }

  /**
   * Writes {@link #toByteArray()} to {@code out}; does not flush or close it. Its class's {@code
   * readFrom} reads exactly these bytes back.
   *
   * @param out the stream
   * @throws IOException if {@code out} throws
   */
  public void writeTo(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out is null");
    out.write(toByteArray());
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
      return call(other, natives().equals);
    } catch (IllegalStateException closedMeanwhile) {
      return false;
    }
  }

  /** Consistent with {@link #equals}; identity once closed. */
  @Override
  public int hashCode() {
    try {
      return callInt(natives().hashCode);
    } catch (IllegalStateException closed) {
      return System.identityHashCode(this);
    }
  }

  /** The class's simple name and its shape, or {@code {closed}}. */
  @Override
  public String toString() {
    String name = getClass().getSimpleName();
    try {
      return name + "{" + call(natives().describe) + "}";
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
    try {
      return nativeCall.test(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final long callLong(LongUnaryOperator nativeCall) {
    try {
      return nativeCall.applyAsLong(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final int callInt(LongToIntFunction nativeCall) {
    try {
      return nativeCall.applyAsInt(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final void run(java.util.function.LongConsumer nativeCall) {
    try {
      nativeCall.accept(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A native call with the handle and a {@code long} key. */
  interface KeyCall {
    boolean apply(long handle, long key);
  }

  /** A native call with the handle and a {@code long} key, returning an {@code int}. */
  interface KeyIntCall {
    int apply(long handle, long key);
  }

  final boolean testKey(KeyCall nativeCall, long key) {
    try {
      return nativeCall.apply(handle(), key);
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

  // ---- arguments both filter classes check the same way

  /** {@code expectedInsertions} as the native sizing takes it: 0 counts as 1 (as in Guava). */
  static long insertionsToSize(long expectedInsertions, Strategy strategy) {
    if (expectedInsertions < 0) {
      throw new IllegalArgumentException(
          "invalid argument expectedInsertions: " + expectedInsertions + " is negative");
    }
    Objects.requireNonNull(strategy, "strategy is null");
    return expectedInsertions == 0 ? 1 : expectedInsertions;
  }

  static String format(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
