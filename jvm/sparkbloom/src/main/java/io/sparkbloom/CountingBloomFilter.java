package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Objects;

/**
 * A Bloom filter that can forget: a 4-bit counter per position instead of a bit, incremented by
 * {@link #add}, decremented by {@link #remove}. For dedup over a sliding
 * window: add today's keys, {@link #subtract} the day that leaves the window.
 *
 * <p>Sized exactly as {@link BloomFilter#create(long, double)} (same m, same k, same strategies
 * and hashing), so position i is bit i of the plain filter and {@link #toBloomFilter()} is
 * byte-identical to a {@code BloomFilter} put exactly the keys still present, while no counter
 * saturated.
 *
 * <ul>
 *   <li><b>Saturation.</b> A counter that reaches 15 stays at 15 forever: never incremented past
 *       it, never decremented. Saturation can therefore never cause a false negative (a
 *       saturated position only stays set); {@link #saturatedCounters()} reports how many
 *       counters saturated. At design capacity (k = (m/n) ln 2) a counter's count is about
 *       Poisson(ln 2), so it reaches 15 with probability P(Poisson(ln 2) ≥ 15) ≈ 1.6 ·
 *       10<sup>−15</sup>.
 *   <li><b>Removing a key the filter says is definitely absent</b> changes nothing and returns
 *       {@code false}.
 *   <li><b>Removing a key that was never added is a caller error that can cause false
 *       negatives</b>: if the filter reports it present by a false positive, its counters belong
 *       to other keys, and decrementing them can make those keys report absent. Remove only keys
 *       you added, as many times as you added them.
 * </ul>
 *
 * <p>Thread-safe: add, remove and queries may run from many threads at once (each counter update
 * is an atomic compare-and-swap of its 64-bit word: no lost counts). Native memory: m/2 bytes,
 * freed by {@link #close()} (or, if forgotten, by a {@link java.lang.ref.Cleaner}). Serializable
 * (Java and Kryo) as FORMAT.md §10 bytes; bad input throws {@link IllegalArgumentException},
 * {@link NullPointerException}, {@link IllegalStateException} after close, or {@link
 * CorruptFilterException} naming the field.
 */
@com.esotericsoftware.kryo.DefaultSerializer(CountingBloomFilterKryoSerializer.class)
public final class CountingBloomFilter extends NativeFilter implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A counter at this value is saturated and never changes again. */
  public static final int MAX_COUNT = 15;

  private CountingBloomFilter(long handle) {
    super(handle, (nBitSize(COUNTING, handle) + 1) / 2, COUNTING);
  }

  @Override
  String describe(long h) {
    return format(
        "m=%d, k=%d, strategy=%s, nonzero=%d, saturated=%d",
        nBitSize(COUNTING, h),
        nNumHashes(COUNTING, h),
        Strategy.ofOrdinal(nStrategy(COUNTING, h)),
        CountingBloomFilterNative.nNonzeroCounters(h),
        CountingBloomFilterNative.nSaturatedCounters(h));
  }

  /**
   * A filter for {@code expectedInsertions} keys (present at once) at false-positive rate {@code
   * fpp} in (0, 1): the m and k of {@link BloomFilter#create(long, double)}, MITZ_64.
   *
   * @throws IllegalArgumentException if an argument is out of range
   * @throws FilterExceedsMemoryException if the counters (m / 2 bytes) exceed this process's
   *     memory limit
   */
  public static CountingBloomFilter create(long expectedInsertions, double fpp) {
    return create(expectedInsertions, fpp, Strategy.MURMUR128_MITZ_64);
  }

  /** {@link #create(long, double)} with a strategy, sized as {@link BloomFilter#create(long, double, Strategy)}. */
  public static CountingBloomFilter create(long expectedInsertions, double fpp, Strategy strategy) {
    return new CountingBloomFilter(createHandle(COUNTING, expectedInsertions, fpp, strategy));
  }

  /** An empty filter of exactly {@code bitSize} counters (1 to 2^43) and k = {@code numHashFunctions} (1 to 255). */
  public static CountingBloomFilter withShape(long bitSize, int numHashFunctions, Strategy strategy) {
    return new CountingBloomFilter(shapeHandle(COUNTING, bitSize, numHashFunctions, strategy));
  }

  /** An independent copy with the same counters. */
  public CountingBloomFilter copy() {
    return new CountingBloomFilter(callLong(h -> nCopy(COUNTING, h)));
  }

  // ---- add (returns whether a counter changed: false only when all k are saturated), remove,
  // query; keys hash as Guava's longFunnel(), byteArrayFunnel() and stringFunnel(UTF_8)

  /** Adds a key: increments its k counters (saturating at 15). */
  public boolean add(long key) {
    return testKey(NativeFilter::nPut, key);
  }

  /** Adds a byte-string key. */
  public boolean add(byte[] key) {
    return test(h -> nPutBytes(COUNTING, h, key));
  }

  /** Adds a string key, hashed as its UTF-8 bytes. */
  public boolean add(String key) {
    return add(KeyArgs.utf8(key));
  }

  /** Adds every key in one native call. */
  public boolean addAll(long[] keys) {
    return putAllSlice(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /**
   * Removes one occurrence of a key that was added: decrements its k counters (saturated ones
   * stay); {@code false}, changing nothing, when the key is certainly absent. Removing a key that
   * was never added can cause false negatives (see the class doc).
   */
  public boolean remove(long key) {
    return testKey((anyKind, h, k) -> CountingBloomFilterNative.nRemove(h, k), key);
  }

  /** As {@link #remove(long)} for a byte-string key. */
  public boolean remove(byte[] key) {
    return test(h -> CountingBloomFilterNative.nRemoveBytes(h, key));
  }

  /** As {@link #remove(long)} for a string key (UTF-8). */
  public boolean remove(String key) {
    return remove(KeyArgs.utf8(key));
  }

  /** {@link #remove(long)} of every key, one by one: how many were possibly present, hence removed. */
  public long removeAll(long[] keys) {
    Objects.requireNonNull(keys, "keys is null");
    return callLong(h -> CountingBloomFilterNative.nRemoveAll(h, keys, 0, keys.length));
  }

  /** Whether the key might be present ({@code false}: certainly absent). */
  public boolean mightContain(long key) {
    return testKey(NativeFilter::nMightContain, key);
  }

  /** As {@link #mightContain(long)} for a byte-string key. */
  public boolean mightContain(byte[] key) {
    return test(h -> nMightContainBytes(COUNTING, h, key));
  }

  /** As {@link #mightContain(long)} for a string key (UTF-8). */
  public boolean mightContain(String key) {
    return mightContain(KeyArgs.utf8(key));
  }

  /**
   * The smallest of the key's k counters, 0 to 15: an upper bound on how many times it is present
   * (added minus removed); 0 when certainly absent; 15 means 15 or more.
   */
  public int count(long key) {
    return callIntKey(CountingBloomFilterNative::nCount, key);
  }

  /** {@link #count(long)} of a byte-string key. */
  public int count(byte[] key) {
    return callInt(h -> CountingBloomFilterNative.nCountBytes(h, key));
  }

  /** {@link #count(long)} of a string key (UTF-8). */
  public int count(String key) {
    return count(KeyArgs.utf8(key));
  }

  // ---- combining: other must have the same m, k and strategy (else IllegalArgumentException
  // naming every parameter that differs)

  /** Adds {@code other}'s counters to this filter's (saturating at 15): the multiset union. */
  public void merge(CountingBloomFilter other) {
    run(other, (h, o) -> nMerge(COUNTING, h, o));
  }

  /**
   * Subtracts {@code other}'s counters from this filter's (floored at 0; saturated counters stay
   * at 15): removes a multiset that was added, such as the day that leaves a window. Subtracting
   * keys that were never added can cause false negatives, as {@link #remove(long)} can.
   */
  public void subtract(CountingBloomFilter other) {
    run(other, CountingBloomFilterNative::nSubtract);
  }

  /** Whether {@link #merge} and {@link #subtract} accept {@code other}: same m, k and strategy. */
  public boolean isCompatible(CountingBloomFilter other) {
    return call(other, (h, o) -> nIsCompatible(COUNTING, h, o));
  }

  /**
   * A new plain filter with bit i set exactly when counter i is nonzero: byte-identical to a
   * {@link BloomFilter} of the same shape put exactly the keys still present, while no counter
   * saturated. The caller closes it.
   */
  public BloomFilter toBloomFilter() {
    return new BloomFilter(callLong(CountingBloomFilterNative::nToBloomFilter));
  }

  /** The number of counters stuck at 15 (see the class doc): 0 in normal use. */
  public long saturatedCounters() {
    return callLong(CountingBloomFilterNative::nSaturatedCounters);
  }

  /** The number of nonzero counters: the bit count of {@link #toBloomFilter()}. */
  public long nonzeroCounters() {
    return callLong(CountingBloomFilterNative::nNonzeroCounters);
  }

  // ---- bytes: FORMAT.md §10

  /**
   * The filter whose {@link #toByteArray()} is {@code bytes}, under the default decode limit.
   *
   * @throws CorruptFilterException naming the bad field ({@link FilterTooLargeException} above
   *     the limit)
   */
  public static CountingBloomFilter fromByteArray(byte[] bytes) throws CorruptFilterException {
    return fromByteArray(bytes, DecodeLimit.defaultMaxNumBits());
  }

  /** {@link #fromByteArray(byte[])} refusing more than {@code maxNumBits} counters before allocating. */
  public static CountingBloomFilter fromByteArray(byte[] bytes, long maxNumBits)
      throws CorruptFilterException {
    return new CountingBloomFilter(fromBytes(COUNTING, bytes, maxNumBits));
  }

  /** Reads one filter {@link #writeTo} wrote, exactly its bytes, memory growing as they arrive. */
  public static CountingBloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, DecodeLimit.defaultMaxNumBits());
  }

  /** {@link #readFrom(InputStream)} refusing more than {@code maxNumBits} counters. */
  public static CountingBloomFilter readFrom(InputStream in, long maxNumBits) throws IOException {
    return readFramed(COUNTING, in, maxNumBits, CountingBloomFilter::fromByteArray);
  }

  // ---- Java serialization: the serial proxy CountingSer carries the bytes, never the handle

  private Object writeReplace() {
    return new CountingSer(toByteArray());
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException(
        "io.sparkbloom.CountingBloomFilter is read through its serial proxy");
  }
}
