package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A Bloom filter that sets exactly the bits Guava's {@code com.google.common.hash.BloomFilter}
 * sets, with its bits in native memory managed by a Rust core.
 *
 * <p>A Bloom filter answers "might this key have been put?": {@link #mightContain(long)} never
 * returns {@code false} for a key that was put (no false negatives), and returns {@code true}
 * for a key that was not put with a probability close to the {@code fpp} the filter was sized
 * for, as long as no more than {@code expectedInsertions} distinct keys were put. Its size is
 * fixed at creation.
 *
 * <pre>{@code
 * try (BloomFilter seen = BloomFilter.create(10_000, 0.001)) {
 *   seen.putAll(new long[] {17, 42, 99});
 *   long[] fresh = seen.retainAbsent(new long[] {42, 7, 99, 8}); // {7, 8}
 * }
 * }</pre>
 *
 * <h2>Keys</h2>
 *
 * {@code long} keys hash as Guava's {@code Funnels.longFunnel()}, {@code String} keys as
 * {@code Funnels.stringFunnel(UTF_8)} and {@code byte[]} keys as {@code
 * Funnels.byteArrayFunnel()}, so a filter converted from or to Guava answers identically for
 * keys put through those funnels.
 *
 * <h2>Threads</h2>
 *
 * {@code put}, {@code putAll}, {@code mightContain*}, {@code retainAbsent}, {@code merge} and
 * {@code intersect} may be called from many threads at once: bits are set with atomic ORs, so
 * no put is lost and there are no false negatives. {@link #close()} is safe against calls from
 * other threads: once any thread other than the one that created (or deserialized) the filter
 * has used it, or when another thread closes it, {@code close()} marks it closed (later calls
 * throw {@link IllegalStateException}) but leaves its memory to the {@link java.lang.ref.Cleaner},
 * which frees it when no thread can reach the filter any more — so closing a filter that a Spark
 * broadcast shares between tasks never crashes the JVM, though the other tasks then fail. Don't
 * close shared filters; drop them.
 *
 * <h2>Memory</h2>
 *
 * The bit array ({@link #bitSize()} / 8 bytes) lives outside the Java heap. {@link #close()}
 * frees it at once when only the creating thread ever used the filter (else see Threads); a
 * filter that is never closed is freed after the garbage collector finds it unreachable. Using
 * a filter after {@code close()} throws {@link IllegalStateException}; a second {@code close()}
 * does nothing.
 *
 * <h2>Serialization</h2>
 *
 * {@link #toByteArray()} / {@link #writeTo(OutputStream)} write the versioned, checksummed
 * layout of {@code FORMAT.md}; Java serialization carries the same bytes in a small envelope,
 * and {@link BloomFilterKryoSerializer} does the same for Kryo. No native pointer is ever
 * serialized.
 */
@com.esotericsoftware.kryo.DefaultSerializer(BloomFilterKryoSerializer.class)
public final class BloomFilter implements Serializable, AutoCloseable {
  private static final long serialVersionUID = 1L;

  /**
   * Guava's default false-positive probability, used by {@link #create(long)}. */
  public static final double DEFAULT_FPP = 0.03;

  /**
   * Bytes of the FORMAT.md header, which holds the length of the rest. */
  static final int HEADER_LENGTH = 24;

  /**
   * Bytes of the header of Guava's {@code writeTo} stream. */
  static final int GUAVA_HEADER_LENGTH = 6;

  /**
   * Frees the native memory of filters that become unreachable without {@code close()}. */
  private static final Cleaner CLEANER = Cleaner.create();

  static {
    NativeLibrary.ensureLoaded();
  }

  /**
   * The Rust filter ({@code Box<BloomFilter>} as a pointer); 0 once closed. Never serialized. */
  private transient volatile long handle;

  /**
   * Frees the native memory, once, on close() or when this object becomes unreachable. The
   * filter holds this small action, not the {@code Cleaner.Cleanable}: a Cleanable is linked to
   * every other registered one, and Spark's {@code SizeEstimator} (caching, shuffle maps) walks
   * every field it can reach, so one filter would have "weighed" all live filters.
   */
  private final transient Free free;

  /**
   * The id of the thread that created this object (a number, not the {@code Thread}: Spark's
   * {@code SizeEstimator} would weigh everything a Thread reaches). Thread ids are never reused.
   */
  private final transient long creatorThreadId = Thread.currentThread().getId();

  /**
   * Set (once, for good) when a thread other than the creator uses this filter: from then on
   * {@code close()} cannot know whether a native call is in flight, so it leaves the memory to
   * the Cleaner. Volatile, paired with {@code handle}: a thread writes this then reads {@code
   * handle}; {@code close()} writes {@code handle} then reads this; so either the caller sees
   * the filter closed, or {@code close()} sees it shared (Dekker's pattern, sound under the Java
   * memory model's total order of volatile accesses).
   */
  private transient volatile boolean shared;

  private BloomFilter(long handle) {
    this.handle = handle;
    long bytes = nBitSize(handle) / 8;
    this.free = new Free(handle, bytes);
    CLEANER.register(this, free);
    NativeMemory.allocated(bytes);
  }

  /**
   * The cleaning action, run by {@code close()} or by the Cleaner, whichever comes first; the
   * second run does nothing. A static class holding only the handle: it must not reference the
   * filter, or the filter would never become phantom reachable.
   */
  private static final class Free extends AtomicBoolean implements Runnable {
    private static final long serialVersionUID = 1L;
    private final long handle;
    private final long bytes;

    Free(long handle, long bytes) {
      this.handle = handle;
      this.bytes = bytes;
    }

    @Override
    public void run() {
      if (compareAndSet(false, true)) {
        nFree(handle);
        NativeMemory.freed(bytes);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Creation

  /**
   * A filter for {@code expectedInsertions} distinct keys with false-positive probability
   * {@code fpp}, sized exactly as Guava's {@code BloomFilter.create(funnel, expectedInsertions,
   * fpp)}: the same {@link #bitSize()} and {@link #numHashFunctions()}, strategy {@link
   * Strategy#MURMUR128_MITZ_64}. As in Guava, 0 expected insertions count as 1.
   *
   * @param expectedInsertions the number of distinct keys the filter is sized for; {@code >= 0}
   * @param fpp the false-positive probability wanted at that many keys; in (0, 1)
   * @throws IllegalArgumentException naming the argument that is out of range, or if the filter
   *     would exceed 2<sup>43</sup> bits
   * @throws OutOfMemoryError if the bit array cannot be allocated
   * @return an empty filter
   */
  public static BloomFilter create(long expectedInsertions, double fpp) {
    return create(expectedInsertions, fpp, Strategy.MURMUR128_MITZ_64);
  }

  /**
   * Like {@link #create(long, double)} with Guava's default fpp of 3%.
   *
   * @param expectedInsertions the number of distinct keys the filter is sized for; {@code >= 0}
   * @return an empty filter
   */
  public static BloomFilter create(long expectedInsertions) {
    return create(expectedInsertions, DEFAULT_FPP);
  }

  /**
   * Like {@link #create(long, double)} with a chosen strategy. {@link Strategy#MURMUR128_MITZ_32}
   * gives exactly the filter Guava 14.0.1 (the copy Spark 2.x and 3.x shade) creates for
   * {@code (expectedInsertions, fpp)}, including its number of hash functions, which Guava 14
   * computes with an integer division ({@code round((bits / n) · ln 2)}, e.g. 6 instead of 7 for
   * (500,000, 1%)): new filters then {@linkplain #merge merge} with filters {@linkplain
   * #fromGuava converted} from Guava 14.
   *
   * @param expectedInsertions the number of distinct keys the filter is sized for; {@code >= 0}
   * @param fpp the false-positive probability wanted at that many keys; in (0, 1)
   * @param strategy how hashes become bit positions; not null
   * @return an empty filter
   */
  public static BloomFilter create(long expectedInsertions, double fpp, Strategy strategy) {
    if (expectedInsertions < 0) {
      throw new IllegalArgumentException(
          "invalid argument expectedInsertions: " + expectedInsertions + " is negative");
    }
    Objects.requireNonNull(strategy, "strategy is null");
    long n = expectedInsertions == 0 ? 1 : expectedInsertions;
    return new BloomFilter(nCreate(n, fpp, strategy.ordinal()));
  }

  /**
   * An empty filter of an explicit shape: exactly {@code bitSize} bits (any count from 1 to
   * 2<sup>43</sup>, not only multiples of 64) and {@code numHashFunctions} hash functions.
   * Bits are placed as Guava places them over that m; with {@link Strategy#MURMUR128_MITZ_32}
   * and the bit count of the widely copied Redis "BloomFilterHelper" ({@code (int) (-n ln p /
   * ln²2)}, not rounded up) this is the helper's filter, bit for bit ({@code
   * io.sparkbloom.redis.RedisLayout}). A filter whose m is not a multiple of 64 serializes as
   * format version 2 ({@code FORMAT.md}) and cannot be written as Guava's stream.
   *
   * @param bitSize m, in 1..2<sup>43</sup>
   * @param numHashFunctions k, in 1..255
   * @param strategy how hashes become bit positions; not null
   * @throws IllegalArgumentException naming the argument that is out of range
   * @throws OutOfMemoryError if the bit array cannot be allocated
   * @return an empty filter
   */
  public static BloomFilter withShape(long bitSize, int numHashFunctions, Strategy strategy) {
    Objects.requireNonNull(strategy, "strategy is null");
    return new BloomFilter(nWithShape(bitSize, numHashFunctions, strategy.ordinal()));
  }

  /**
   * A filter over a copy of {@code words} (bit b in word b / 64 at bit b % 64). */
  static BloomFilter fromWords(long[] words, int numHashFunctions, Strategy strategy) {
    return new BloomFilter(nFromWords(words, numHashFunctions, strategy.ordinal()));
  }

  /**
   * An independent copy of this filter (Guava's {@code copy()}).
   *
   * @throws IllegalStateException if this filter is closed
   * @return a new filter with the same shape, strategy and bits
   */
  public BloomFilter copy() {
    try {
      return new BloomFilter(nCopy(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Put and query

  /**
   * Puts a {@code long} key (Guava's {@code Funnels.longFunnel()}).
   *
   * @return {@code true} if a bit changed, i.e. the key was certainly not in the filter before;
   *     as in Guava, two threads putting the same key at once may both get {@code true}
   * @param key the key
   */
  public boolean put(long key) {
    try {
      return nPut(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Puts a byte-string key (Guava's {@code Funnels.byteArrayFunnel()}).
   *
   * @return {@code true} if a bit changed
   * @throws NullPointerException if {@code key} is null
   * @param key the key
   */
  public boolean put(byte[] key) {
    try {
      return nPutBytes(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Puts a string key, hashed as its UTF-8 bytes (Guava's {@code
   * Funnels.stringFunnel(StandardCharsets.UTF_8)}).
   *
   * @return {@code true} if a bit changed
   * @throws NullPointerException if {@code key} is null
   * @param key the key
   */
  public boolean put(String key) {
    return put(utf8(key));
  }

  /**
   * Puts every key of {@code keys} in one native call.
   *
   * @return {@code true} if a bit changed
   * @throws NullPointerException if {@code keys} is null
   * @param keys the keys
   */
  public boolean putAll(long[] keys) {
    try {
      return nPutAll(handle(), keys);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether {@code key} might have been put: {@code false} means certainly not; {@code true}
   * means probably (a false positive has probability about {@link #expectedFpp()}). One native
   * call with primitive arguments, no allocation.
   * @param key the key
   * @return whether the key might have been put
   */
  public boolean mightContain(long key) {
    try {
      return nMightContain(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether the byte-string {@code key} might have been put.
   *
   * @throws NullPointerException if {@code key} is null
   * @param key the key
   * @return whether the key might have been put
   */
  public boolean mightContain(byte[] key) {
    try {
      return nMightContainBytes(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether the string {@code key} (as UTF-8) might have been put.
   *
   * @throws NullPointerException if {@code key} is null
   * @param key the key
   * @return whether the key might have been put
   */
  public boolean mightContain(String key) {
    return mightContain(utf8(key));
  }

  /**
   * {@code result[i] = mightContain(keys[i])}, in one native call.
   *
   * @throws NullPointerException if {@code keys} is null
   * @param keys the keys
   * @return one answer per key, in order
   */
  public boolean[] mightContainAll(long[] keys) {
    Objects.requireNonNull(keys, "keys is null");
    boolean[] out = new boolean[keys.length];
    try {
      nMightContainAll(handle(), keys, out);
    } finally {
      Reference.reachabilityFence(this);
    }
    return out;
  }

  /**
   * The keys that are certainly not in this filter, in their original order (duplicates kept):
   * the dedup step "keep the recommendations this user has not seen yet". One native call.
   *
   * @throws NullPointerException if {@code keys} is null
   * @param keys the candidate keys
   * @return the keys of {@code keys} that were certainly never put
   */
  public long[] retainAbsent(long[] keys) {
    try {
      return nRetainAbsent(handle(), keys);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Combining

  /**
   * ORs {@code other} into this filter (set union; Guava's {@code putAll(BloomFilter)}): this
   * filter then might contain every key either might contain. {@code other} is unchanged.
   *
   * @throws IllegalArgumentException if the filters are not {@linkplain #isCompatible
   *     compatible}; the message names every mismatch (numBits, numHashFunctions, strategy)
   * @throws NullPointerException if {@code other} is null
   * @throws IllegalStateException if either filter is closed
   * @param other the filter to OR in
   */
  public void merge(BloomFilter other) {
    Objects.requireNonNull(other, "other is null");
    try {
      nMerge(handle(), other.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /**
   * ANDs {@code other} into this filter: this filter then answers "probably in both". The
   * result may answer {@code true} more often than a filter built from the true intersection.
   *
   * @throws IllegalArgumentException if the filters are not {@linkplain #isCompatible
   *     compatible}; the message names every mismatch
   * @throws NullPointerException if {@code other} is null
   * @throws IllegalStateException if either filter is closed
   * @param other the filter to AND in
   */
  public void intersect(BloomFilter other) {
    Objects.requireNonNull(other, "other is null");
    try {
      nIntersect(handle(), other.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /**
   * Whether {@link #merge} and {@link #intersect} accept {@code other}: same bit size, number of
   * hash functions and strategy.
   *
   * @throws NullPointerException if {@code other} is null
   * @param other the other filter
   * @return whether the two filters can be merged or intersected
   */
  public boolean isCompatible(BloomFilter other) {
    Objects.requireNonNull(other, "other is null");
    try {
      return nIsCompatible(handle(), other.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Redis bitmaps

  /**
   * The bits as a Redis bitmap string: bit b is byte {@code b / 8}, mask {@code 0x80 >>> (b %
   * 8)} (Redis numbers bits from the most significant bit of byte 0: {@code SETBIT key 0 1}
   * makes the value {@code "\x80"}), {@code ceil(bitSize() / 8)} bytes. Storing it with {@code
   * SET} gives the key that {@code SETBIT key b 1} for every set bit b would give, up to
   * trailing zero bytes; {@code GETBIT key b} then answers bit b. One native call.
   *
   * @throws IllegalStateException if this filter is closed
   * @return a new array of {@code ceil(bitSize() / 8)} bytes
   */
  public byte[] toRedisBitmap() {
    try {
      return nToRedisBitmap(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The filter of the given shape whose Redis bitmap is {@code bitmap} (see {@link
   * #toRedisBitmap()}): what {@code GET key} returns for a key filled with {@code SETBIT}. A
   * shorter string is the same filter with zero tail bytes (Redis grows strings on demand).
   *
   * @param bitmap the Redis string value; not null
   * @param bitSize m, in 1..2<sup>43</sup>
   * @param numHashFunctions k, in 1..255
   * @param strategy how hashes become bit positions; not null
   * @throws IllegalArgumentException naming {@code bitmap} if it is longer than {@code
   *     ceil(bitSize / 8)} bytes or sets a bit at or above {@code bitSize} (it is not a filter of
   *     this shape), or naming another argument that is out of range
   * @return a new filter
   */
  public static BloomFilter fromRedisBitmap(
      byte[] bitmap, long bitSize, int numHashFunctions, Strategy strategy) {
    Objects.requireNonNull(strategy, "strategy is null");
    return new BloomFilter(
        nFromRedisBitmap(bitmap, bitSize, numHashFunctions, strategy.ordinal()));
  }

  // ---------------------------------------------------------------------------------------
  // Properties

  /**
   * The number of bits m (Guava's package-private {@code bitSize()}): a multiple of 64 for
   * every filter sized by {@link #create}, any count for one made by {@link #withShape}.
   *
   * @return m
   */
  public long bitSize() {
    try {
      return nBitSize(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** The number of hash functions k, in 1..255.
   *
   * @return k
   */
  public int numHashFunctions() {
    try {
      return nNumHashes(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** How hashes become bit positions.
   *
   * @return the strategy
   */
  public Strategy strategy() {
    try {
      return Strategy.ofOrdinal(nStrategy(handle()));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** The number of bits set.
   *
   * @return the number of 1 bits
   */
  public long bitCount() {
    try {
      return nBitCount(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * An estimate of the number of distinct keys put: {@code -m/k · ln(1 - bitCount/m)}, rounded
   * half up, as Guava's {@code approximateElementCount()}; {@link Long#MAX_VALUE} when every
   * bit is set.
   * @return the estimated number of distinct keys put
   */
  public long approximateElementCount() {
    try {
      return nApproximateElementCount(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The probability that {@link #mightContain} returns {@code true} for a key never put, from
   * the bits set now: {@code (bitCount/m)^k}, as Guava's {@code expectedFpp()}.
   * @return the current false-positive probability
   */
  public double expectedFpp() {
    try {
      return nExpectedFpp(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Bytes: FORMAT.md

  /**
   * The filter in the sparkbloom binary layout ({@code FORMAT.md}): a 24-byte header, the bits
   * (dense or sparse, whichever is smaller) and a CRC-32. Deterministic: equal filters give
   * equal bytes.
   *
   * @throws IllegalStateException if this filter is closed
   * @return the FORMAT.md bytes
   */
  public byte[] toByteArray() {
    try {
      return nToBytes(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The filter whose {@link #toByteArray()} is {@code bytes}, which must hold exactly one
   * filter.
   *
   * @throws CorruptFilterException if the bytes are not a valid filter; the message names the
   *     field (magic, version, strategy, encoding, numHashFunctions, numBits, payload length,
   *     crc32, ...)
   * @throws NullPointerException if {@code bytes} is null
   * @param bytes the FORMAT.md bytes of one filter
   * @return the filter
   */
  public static BloomFilter fromByteArray(byte[] bytes) throws CorruptFilterException {
    return new BloomFilter(nFromBytes(bytes));
  }

  /**
   * Writes {@link #toByteArray()} to {@code out}. Does not flush or close {@code out}.
   *
   * @throws IOException if {@code out} throws
   * @param out the stream to write to
   */
  public void writeTo(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out is null");
    out.write(toByteArray());
  }

  /**
   * Reads one filter written by {@link #writeTo}, consuming exactly its bytes and never more,
   * so several filters (or other data) can follow each other in one stream. Does not close
   * {@code in}.
   *
   * @throws CorruptFilterException if the bytes are not a valid filter or the stream ends
   *     early
   * @throws IOException if {@code in} throws
   * @param in the stream to read from
   * @return the filter
   */
  public static BloomFilter readFrom(InputStream in) throws IOException {
    Objects.requireNonNull(in, "in is null");
    byte[] header = new byte[HEADER_LENGTH];
    readFully(in, header, 0, HEADER_LENGTH, "header");
    long total = nTotalLength(header);
    byte[] all = new byte[arrayLength(total)];
    System.arraycopy(header, 0, all, 0, HEADER_LENGTH);
    readFully(in, all, HEADER_LENGTH, all.length - HEADER_LENGTH, "payload");
    return fromByteArray(all);
  }

  // ---------------------------------------------------------------------------------------
  // Guava

  /**
   * Writes the bytes Guava's {@code BloomFilter.writeTo} writes for the same filter, which
   * Guava 17+ reads with {@code BloomFilter.readFrom(in, funnel)} (the {@code MURMUR128_MITZ_32}
   * strategy is read by every Guava that has {@code readFrom}). Does not flush or close.
   *
   * @throws IllegalArgumentException if the filter has more than (2<sup>31</sup> − 1) · 64 bits,
   *     which Guava cannot represent
   * @throws IOException if {@code out} throws
   * @param out the stream to write to
   */
  public void writeGuava(OutputStream out) throws IOException {
    Objects.requireNonNull(out, "out is null");
    out.write(toGuavaByteArray());
  }

  /**
   * The bytes Guava's {@code BloomFilter.writeTo} writes for the same filter; see {@link
   * #writeGuava}.
   *
   * @throws IllegalArgumentException if the filter has more than (2<sup>31</sup> − 1) · 64 bits
   * @return the bytes of Guava's {@code writeTo}
   */
  public byte[] toGuavaByteArray() {
    try {
      return nToGuava(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * The filter whose Guava {@code writeTo} bytes are exactly {@code bytes}; see {@link
   * #readGuava}.
   *
   * @throws CorruptFilterException if the bytes are not exactly one Guava filter, naming the
   *     field (strategy, numHashFunctions, numBits, length)
   * @throws NullPointerException if {@code bytes} is null
   * @param bytes the bytes of Guava's {@code writeTo} for one filter
   * @return the filter
   */
  public static BloomFilter fromGuavaByteArray(byte[] bytes) throws CorruptFilterException {
    return new BloomFilter(nFromGuava(bytes));
  }

  /**
   * Reads one filter written by Guava's {@code BloomFilter.writeTo} (strategy byte, k, word
   * count, words), consuming exactly its bytes. The filter answers {@code mightContain}
   * exactly as the Guava filter did for keys of the funnels listed in the class doc.
   *
   * @throws CorruptFilterException if the bytes are not a valid Guava filter or end early
   * @throws IOException if {@code in} throws
   * @param in the stream to read from
   * @return the filter
   */
  public static BloomFilter readGuava(InputStream in) throws IOException {
    Objects.requireNonNull(in, "in is null");
    byte[] header = new byte[GUAVA_HEADER_LENGTH];
    readFully(in, header, 0, GUAVA_HEADER_LENGTH, "header");
    long total = nGuavaTotalLength(header);
    byte[] all = new byte[arrayLength(total)];
    System.arraycopy(header, 0, all, 0, GUAVA_HEADER_LENGTH);
    readFully(in, all, GUAVA_HEADER_LENGTH, all.length - GUAVA_HEADER_LENGTH, "words");
    return fromGuavaByteArray(all);
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
   * @param guavaBloomFilter a {@code com.google.common.hash.BloomFilter} or a shaded copy
   * @throws IllegalArgumentException if the object is not a Guava Bloom filter
   * @throws NullPointerException if {@code guavaBloomFilter} is null
   * @return a new filter with the same bits, k and strategy
   */
  public static BloomFilter fromGuava(Object guavaBloomFilter) {
    Objects.requireNonNull(guavaBloomFilter, "guavaBloomFilter is null");
    Class<?> type = guavaBloomFilter.getClass();
    if (!type.getName().endsWith(".hash.BloomFilter")) {
      throw new IllegalArgumentException(
          "guavaBloomFilter: " + type.getName() + " is not a Guava hash.BloomFilter");
    }
    try {
      Object bits = readField(type, guavaBloomFilter, "bits");
      Object data = readField(bits.getClass(), bits, "data");
      long[] words;
      if (data instanceof long[]) {
        words = (long[]) data; // Guava <= 22: BitArray; nFromWords copies it
      } else if (data instanceof AtomicLongArray) {
        AtomicLongArray atomic = (AtomicLongArray) data; // Guava >= 23: LockFreeBitArray
        words = new long[atomic.length()];
        for (int i = 0; i < words.length; i++) {
          words[i] = atomic.get(i);
        }
      } else {
        throw new IllegalArgumentException(
            "guavaBloomFilter: unexpected bit array " + data.getClass().getName());
      }
      int numHashFunctions = (Integer) readField(type, guavaBloomFilter, "numHashFunctions");
      Object strategy = readField(type, guavaBloomFilter, "strategy");
      if (!(strategy instanceof Enum)) {
        throw new IllegalArgumentException(
            "guavaBloomFilter: unknown strategy " + strategy.getClass().getName());
      }
      return fromWords(words, numHashFunctions, Strategy.ofOrdinal(((Enum<?>) strategy).ordinal()));
    } catch (ReflectiveOperationException | RuntimeException e) {
      if (e instanceof IllegalArgumentException) {
        throw (IllegalArgumentException) e;
      }
      return fromGuavaWriteTo(guavaBloomFilter, e);
    }
  }

  private static BloomFilter fromGuavaWriteTo(Object guava, Exception reflectionFailure) {
    try {
      Method writeTo = guava.getClass().getMethod("writeTo", OutputStream.class);
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      writeTo.invoke(guava, bytes);
      return readGuava(new java.io.ByteArrayInputStream(bytes.toByteArray()));
    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException
        | IOException e) {
      IllegalArgumentException failure =
          new IllegalArgumentException(
              "guavaBloomFilter: cannot read the fields of "
                  + guava.getClass().getName()
                  + " ("
                  + reflectionFailure
                  + ") and it has no usable writeTo",
              e);
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

  // ---------------------------------------------------------------------------------------
  // Lifecycle and Object

  /**
   * Closes this filter: later calls on it throw {@link IllegalStateException}; a second {@code
   * close()} does nothing. The native memory is freed now if only the creating thread ever used
   * the filter and closes it; otherwise a call from another thread may still be running, so the
   * Cleaner frees it once the filter is unreachable (see the class doc). A filter that is never
   * closed is freed once it is unreachable.
   */
  @Override
  public void close() {
    if (handle != 0) {
      handle = 0;
      if (!shared && Thread.currentThread().getId() == creatorThreadId) {
        free.run(); // frees at most once, even if two threads close at once or the Cleaner runs
      }
    }
  }

  /** Whether {@link #close()} was called.
   *
   * @return {@code true} once closed
   */
  public boolean isClosed() {
    return handle == 0;
  }

  /**
   * Equal bit size, number of hash functions, strategy and bits. A closed filter equals only
   * itself.
   *
   * @param o the object to compare with
   * @return whether {@code o} is a filter with the same content
   */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof BloomFilter)) {
      return false;
    }
    BloomFilter other = (BloomFilter) o;
    long a = peekHandle();
    long b = other.peekHandle();
    if (a == 0 || b == 0) {
      return false;
    }
    try {
      return nEquals(a, b);
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /** A hash of the shape and bits, consistent with {@link #equals}; identity once closed.
   *
   * @return the hash
   */
  @Override
  public int hashCode() {
    long h = peekHandle();
    if (h == 0) {
      return System.identityHashCode(this);
    }
    try {
      return nHashCode(h);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** E.g. {@code BloomFilter{m=143808, k=10, strategy=MURMUR128_MITZ_64, fill=6.71%}}.
   *
   * @return a one-line summary
   */
  @Override
  public String toString() {
    long h = peekHandle();
    if (h == 0) {
      return "BloomFilter{closed}";
    }
    try {
      long m = nBitSize(h);
      return String.format(
          java.util.Locale.ROOT,
          "BloomFilter{m=%d, k=%d, strategy=%s, fill=%.2f%%}",
          m,
          nNumHashes(h),
          Strategy.ofOrdinal(nStrategy(h)),
          100.0 * nBitCount(h) / m);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Java serialization: a serial proxy carrying toByteArray(), never the handle.

  /**
   * Java serialization writes the serial proxy {@link Ser} with {@link #toByteArray()} instead
   * of this object, so no native handle is ever written.
   *
   * @return the serial proxy
   */
  private Object writeReplace() {
    return new Ser(toByteArray());
  }

  /**
   * Refuses streams that hold a {@code BloomFilter} itself rather than its proxy (forged).
   *
   * @param in the stream
   * @throws InvalidObjectException always
   */
  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("io.sparkbloom.BloomFilter is read through its serial proxy");
  }

  // ---------------------------------------------------------------------------------------
  // Helpers

  /** The handle for a native call; throws if closed. */
  private long handle() {
    long h = peekHandle();
    if (h == 0) {
      throw new IllegalStateException("BloomFilter is closed");
    }
    return h;
  }

  /**
   * The handle, 0 once closed; first marks the filter shared if this thread is not its creator
   * (see {@link #shared}). Every read of the handle for a native call goes through here.
   */
  private long peekHandle() {
    if (!shared && Thread.currentThread().getId() != creatorThreadId) {
      shared = true;
    }
    return handle;
  }

  private static byte[] utf8(String key) {
    Objects.requireNonNull(key, "key is null");
    return key.getBytes(StandardCharsets.UTF_8);
  }

  private static int arrayLength(long total) throws IOException {
    if (total > Integer.MAX_VALUE - 8) {
      throw new IOException(
          "filter of " + total + " serialized bytes exceeds the largest Java byte array");
    }
    return (int) total;
  }

  /** Reads exactly {@code len} bytes; a stream that ends first is a corrupt filter. */
  private static void readFully(InputStream in, byte[] buf, int off, int len, String what)
      throws IOException {
    int done = 0;
    while (done < len) {
      int n = in.read(buf, off + done, len - done);
      if (n < 0) {
        throw new CorruptFilterException(
            "corrupt filter: length: the stream ended after "
                + done
                + " of the "
                + len
                + " bytes of the "
                + what);
      }
      done += n;
    }
  }

  // Natives (rust/src/jni/bloom_filter.rs). A handle of 0 throws IllegalStateException.

  private static native long nCreate(long expectedInsertions, double fpp, int strategy);

  private static native long nFromWords(long[] words, int numHashFunctions, int strategy);

  private static native void nFree(long handle);

  private static native long nCopy(long handle);

  private static native boolean nPut(long handle, long key);

  private static native boolean nMightContain(long handle, long key);

  private static native boolean nPutBytes(long handle, byte[] key);

  private static native boolean nMightContainBytes(long handle, byte[] key);

  private static native boolean nPutAll(long handle, long[] keys);

  private static native void nMightContainAll(long handle, long[] keys, boolean[] out);

  private static native long[] nRetainAbsent(long handle, long[] keys);

  private static native void nMerge(long handle, long other);

  private static native void nIntersect(long handle, long other);

  private static native boolean nIsCompatible(long handle, long other);

  private static native boolean nEquals(long handle, long other);

  private static native int nHashCode(long handle);

  private static native long nBitSize(long handle);

  private static native int nNumHashes(long handle);

  private static native int nStrategy(long handle);

  private static native long nBitCount(long handle);

  private static native long nApproximateElementCount(long handle);

  private static native double nExpectedFpp(long handle);

  private static native byte[] nToBytes(long handle);

  private static native long nFromBytes(byte[] bytes) throws CorruptFilterException;

  private static native long nTotalLength(byte[] header) throws CorruptFilterException;

  private static native byte[] nToGuava(long handle);

  private static native long nFromGuava(byte[] bytes) throws CorruptFilterException;

  private static native long nGuavaTotalLength(byte[] header) throws CorruptFilterException;

  /** Test hook: a Rust panic with a runtime message; must arrive as a RuntimeException. */
  static native long nPanicForTest(long value);

  // Natives for explicit shapes and Redis bitmaps (rust/src/jni/redis.rs).

  private static native long nWithShape(long numBits, int numHashFunctions, int strategy);

  private static native byte[] nToRedisBitmap(long handle);

  private static native long nFromRedisBitmap(
      byte[] bitmap, long numBits, int numHashFunctions, int strategy);
}
