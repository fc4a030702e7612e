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
   * A filter for {@code expectedInsertions} keys at false-positive rate {@code fpp}: the m and k
   * of {@link BloomFilter#create(long, double)}, strategy {@code MURMUR128_MITZ_64}.
   *
   * @param expectedInsertions the number of keys present at once that the filter is sized for
   * @param fpp the false-positive probability at that load, in (0, 1)
   * @return an empty filter
   * @throws IllegalArgumentException if an argument is out of range
   * @throws FilterExceedsMemoryException if the counters (m / 2 bytes) exceed this process's
   *     memory limit
   */
  public static CountingBloomFilter create(long expectedInsertions, double fpp) {
    return create(expectedInsertions, fpp, Strategy.MURMUR128_MITZ_64);
  }

  /**
   * As {@link #create(long, double)} with the given strategy (sized as {@link
   * BloomFilter#create(long, double, Strategy)}).
   *
   * @param expectedInsertions the number of keys the filter is sized for
   * @param fpp the false-positive probability at that load
   * @param strategy Guava's strategy
   * @return an empty filter
   */
  public static CountingBloomFilter create(long expectedInsertions, double fpp, Strategy strategy) {
    long n = insertionsToSize(expectedInsertions, strategy);
    return new CountingBloomFilter(nCreate(COUNTING, n, fpp, strategy.ordinal()));
  }

  /**
   * An empty filter of exactly {@code bitSize} counters and {@code numHashFunctions} hashes.
   *
   * @param bitSize m, in 1..2^43
   * @param numHashFunctions k, in 1..255
   * @param strategy Guava's strategy
   * @return an empty filter
   */
  public static CountingBloomFilter withShape(long bitSize, int numHashFunctions, Strategy strategy) {
    Objects.requireNonNull(strategy, "strategy is null");
    return new CountingBloomFilter(
        nWithShape(COUNTING, bitSize, numHashFunctions, strategy.ordinal()));
  }

  /**
   * An independent copy.
   *
   * @return a new filter with the same counters
   */
  public CountingBloomFilter copy() {
    return new CountingBloomFilter(callLong(h -> nCopy(COUNTING, h)));
  }

  // ---------------------------------------------------------------------------------------
  // Add, remove, query. Long keys go through NativeFilter.testKey: no lambda allocated per key.

  /**
   * Adds a key: increments its k counters (saturating at 15).
   *
   * @param key the key, hashed as Guava's {@code Funnels.longFunnel()}
   * @return whether any counter changed ({@code false} only when all k are saturated)
   */
  public boolean add(long key) {
    return testKey(NativeFilter::nPut, key);
  }

  /**
   * Adds a byte-array key ({@code Funnels.byteArrayFunnel()}).
   *
   * @param key the key
   * @return whether any counter changed
   */
  public boolean add(byte[] key) {
    return test(h -> nPutBytes(COUNTING, h, key));
  }

  /**
   * Adds a string key as its UTF-8 bytes ({@code Funnels.stringFunnel(UTF_8)}).
   *
   * @param key the key
   * @return whether any counter changed
   */
  public boolean add(String key) {
    return add(KeyArgs.utf8(key));
  }

  /**
   * Adds every key.
   *
   * @param keys the keys
   * @return whether any counter changed
   */
  public boolean addAll(long[] keys) {
    return putAllSlice(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /**
   * Removes one occurrence of a key that was added: decrements its k counters (saturated ones
   * stay). Removing a key that was never added can cause false negatives (see the class doc).
   *
   * @param key the key
   * @return {@code false}, changing nothing, when the key is definitely absent
   */
  public boolean remove(long key) {
    return testKey((anyKind, h, k) -> CountingBloomFilterNative.nRemove(h, k), key);
  }

  /**
   * Removes a byte-array key; see {@link #remove(long)}.
   *
   * @param key the key
   * @return {@code false}, changing nothing, when the key is definitely absent
   */
  public boolean remove(byte[] key) {
    return test(h -> CountingBloomFilterNative.nRemoveBytes(h, key));
  }

  /**
   * Removes a string key (UTF-8); see {@link #remove(long)}.
   *
   * @param key the key
   * @return {@code false}, changing nothing, when the key is definitely absent
   */
  public boolean remove(String key) {
    return remove(KeyArgs.utf8(key));
  }

  /**
   * Removes every key, as {@link #remove(long)} one by one.
   *
   * @param keys the keys
   * @return how many keys were possibly present, hence removed
   */
  public long removeAll(long[] keys) {
    Objects.requireNonNull(keys, "keys is null");
    return callLong(h -> CountingBloomFilterNative.nRemoveAll(h, keys, 0, keys.length));
  }

  /**
   * Whether the key might be present.
   *
   * @param key the key
   * @return {@code false} when it is certainly absent
   */
  public boolean mightContain(long key) {
    return testKey(NativeFilter::nMightContain, key);
  }

  /**
   * Whether the byte-array key might be present.
   *
   * @param key the key
   * @return {@code false} when it is certainly absent
   */
  public boolean mightContain(byte[] key) {
    return test(h -> nMightContainBytes(COUNTING, h, key));
  }

  /**
   * Whether the string key (UTF-8) might be present.
   *
   * @param key the key
   * @return {@code false} when it is certainly absent
   */
  public boolean mightContain(String key) {
    return mightContain(KeyArgs.utf8(key));
  }

  /**
   * The smallest of the key's k counters: an upper bound on how many times it is present (added
   * minus removed); 0 when certainly absent; 15 means 15 or more.
   *
   * @param key the key
   * @return the count estimate, 0..15
   */
  public int count(long key) {
    return callIntKey(CountingBloomFilterNative::nCount, key);
  }

  /**
   * {@link #count(long)} of a byte-array key.
   *
   * @param key the key
   * @return the count estimate, 0..15
   */
  public int count(byte[] key) {
    return callInt(h -> CountingBloomFilterNative.nCountBytes(h, key));
  }

  /**
   * {@link #count(long)} of a string key (UTF-8).
   *
   * @param key the key
   * @return the count estimate, 0..15
   */
  public int count(String key) {
    return count(KeyArgs.utf8(key));
  }

  // ---------------------------------------------------------------------------------------
  // Combining

  /**
   * Adds {@code other}'s counters to this filter's (saturating at 15): the multiset union.
   *
   * @param other a filter of the same m, k and strategy
   * @throws IllegalArgumentException naming every parameter that differs
   */
  public void merge(CountingBloomFilter other) {
    run(other, (h, o) -> nMerge(COUNTING, h, o));
  }

  /**
   * Subtracts {@code other}'s counters from this filter's (floored at 0; saturated counters stay
   * at 15): removes a multiset that was added, such as the day that leaves a window. Subtracting
   * keys that were never added can cause false negatives, as {@link #remove(long)} can.
   *
   * @param other a filter of the same m, k and strategy
   * @throws IllegalArgumentException naming every parameter that differs
   */
  public void subtract(CountingBloomFilter other) {
    run(other, CountingBloomFilterNative::nSubtract);
  }

  /**
   * Whether {@link #merge} and {@link #subtract} accept {@code other}.
   *
   * @param other another filter
   * @return same m, k and strategy
   */
  public boolean isCompatible(CountingBloomFilter other) {
    return call(other, (h, o) -> nIsCompatible(COUNTING, h, o));
  }

  /**
   * The plain filter with bit i set exactly when counter i is nonzero: byte-identical to a
   * {@link BloomFilter} of the same shape put exactly the keys still present, while no counter
   * saturated. The caller closes it.
   *
   * @return a new plain filter
   */
  public BloomFilter toBloomFilter() {
    return new BloomFilter(callLong(CountingBloomFilterNative::nToBloomFilter));
  }

  // ---------------------------------------------------------------------------------------
  // Properties

  /**
   * Counters stuck at 15 (see the class doc): 0 in normal use.
   *
   * @return the number of saturated counters
   */
  public long saturatedCounters() {
    return callLong(CountingBloomFilterNative::nSaturatedCounters);
  }

  /**
   * Nonzero counters: the bit count of {@link #toBloomFilter()}.
   *
   * @return the number of nonzero counters
   */
  public long nonzeroCounters() {
    return callLong(CountingBloomFilterNative::nNonzeroCounters);
  }

  // ---------------------------------------------------------------------------------------
  // Bytes: FORMAT.md §10

  /**
   * Decodes {@link #toByteArray()}'s bytes, refusing filters above the default decode limit.
   *
   * @param bytes exactly one serialized counting filter
   * @return the filter
   * @throws CorruptFilterException naming the bad field ({@link FilterTooLargeException} above
   *     the limit)
   */
  public static CountingBloomFilter fromByteArray(byte[] bytes) throws CorruptFilterException {
    return fromByteArray(bytes, DecodeLimit.defaultMaxNumBits());
  }

  /**
   * Decodes, refusing a filter of more than {@code maxNumBits} counters before allocating it.
   *
   * @param bytes exactly one serialized counting filter
   * @param maxNumBits the largest m accepted
   * @return the filter
   * @throws CorruptFilterException naming the bad field
   */
  public static CountingBloomFilter fromByteArray(byte[] bytes, long maxNumBits)
      throws CorruptFilterException {
    return new CountingBloomFilter(
        nFromBytes(COUNTING, bytes, DecodeLimit.check(maxNumBits, "maxNumBits")));
  }

  /**
   * Reads exactly one filter written by {@link #writeTo} and no byte more.
   *
   * @param in the stream
   * @return the filter
   * @throws IOException from the stream, or a {@link CorruptFilterException}
   */
  public static CountingBloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, DecodeLimit.defaultMaxNumBits());
  }

  /**
   * {@link #readFrom(InputStream)} with a decode limit, checked from the header before the
   * payload is read.
   *
   * @param in the stream
   * @param maxNumBits the largest m accepted
   * @return the filter
   * @throws IOException from the stream, or a {@link CorruptFilterException}
   */
  public static CountingBloomFilter readFrom(InputStream in, long maxNumBits) throws IOException {
    return FramedReader.readFilter(
        in,
        maxNumBits,
        BloomFilter.HEADER_LENGTH,
        "payload",
        (header, max) -> nTotalLength(COUNTING, header, max),
        CountingBloomFilter::fromByteArray);
  }

  // Java serialization: a serial proxy carrying toByteArray(), never the handle.

  private Object writeReplace() {
    return new CountingSer(toByteArray());
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException(
        "io.sparkbloom.CountingBloomFilter is read through its serial proxy");
  }
}
