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
 * sets, with its bits in native memory managed by a Rust core.
 *
 * <p><i>(Over 500 lines: it is the public API and its documentation only, over 50 public
 * methods each with its own Javadoc, every body a line or two. The native-handle lifecycle is
 * {@code NativeHandle}, the native methods {@code BloomFilterNative}, Guava interop {@link
 * GuavaInterop}, Spark's sketch format {@link SparkSketchInterop}, Redis bitmaps {@link
 * RedisBitmaps}, stream framing {@code FramedReader}, Java serialization {@code Ser}.)</i>
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
 * <h2>Threads and memory</h2>
 *
 * Puts, queries, {@code merge} and {@code intersect} may run from many threads at once: bits are
 * set with atomic ORs, so no put is lost and there are no false negatives. (A {@code long[]}
 * {@code putAll} by the thread that created the filter, while no other thread has ever used it,
 * sets its bits with plain writes instead, 10-30 % faster; another thread's first call waits for
 * such a batch to end, and from then on every put is atomic.) The bit array ({@link
 * #bitSize()} / 8 bytes) lives outside the Java heap; {@link #close()} frees it, and a filter
 * never closed is freed once unreachable. Closing a filter other threads use is safe (they then
 * fail with {@link IllegalStateException}) but pointless: don't close shared filters, drop them.
 * The package doc ("Threads and memory") gives the exact rules.
 *
 * <h2>Serialization</h2>
 *
 * {@link #toByteArray()} / {@link #writeTo(OutputStream)} write the versioned, checksummed
 * layout of {@code FORMAT.md}; Java serialization carries the same bytes in a small envelope,
 * and {@link BloomFilterKryoSerializer} does the same for Kryo. No native pointer is ever
 * serialized.
 */
@com.esotericsoftware.kryo.DefaultSerializer(BloomFilterKryoSerializer.class)
public final class BloomFilter extends NativeHandle implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Guava's default false-positive probability, used by {@link #create(long)}. */
  public static final double DEFAULT_FPP = 0.03;

  /** Bytes of the FORMAT.md header, which holds the length of the rest. */
  static final int HEADER_LENGTH = 24;

  /**
   * Answers single {@code long} keys in Java over the native words; null until the first
   * single-key query makes it ({@link #view(long)}), or for good (words beyond a buffer's
   * capacity) then answered by the JNI call. Made lazily because making it costs four native
   * calls and a direct buffer, which a filter only deserialized or batch-queried never needs
   * (it was a tenth of a Java-serialization round trip). Immutable (final fields), so threads
   * racing to make it each see a complete one. Read only after {@code handle()} and before
   * {@code reachabilityFence(this)}: {@link BitsView} says why that keeps the memory alive.
   */
  private transient BitsView view;

  /** Set once {@link BitsView#of} declined this filter: single keys take the JNI call. */
  private transient boolean noView;

  private BloomFilter(long handle) {
    super(handle, BloomFilterNative.nBitSize(handle) / 8, BloomFilterNative::nFree);
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

  /** The filter behind a handle just returned by a native factory. */
  static BloomFilter fromHandle(long handle) {
    return new BloomFilter(handle);
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
   * @throws FilterExceedsMemoryException if the bit array exceeds this process's memory limit
   * @throws OutOfMemoryError if memory runs out below that limit
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
    long n = insertionsToSize(expectedInsertions, strategy);
    return new BloomFilter(BloomFilterNative.nCreate(n, fpp, strategy.ordinal()));
  }

  /**
   * A filter sized by ClickHouse's best-practice table instead of Guava's formulas: the smallest
   * whole number of bits per key b, then the smallest k, whose theoretical false-positive
   * probability (1 − e<sup>−k/b</sup>)<sup>k</sup> is at most {@code fpp}; m = n·b rounded up to
   * whole 64-bit words, strategy {@link Strategy#MURMUR128_MITZ_64}. A few more bits than {@link
   * #create(long, double)} for fewer hash functions (k = 5 instead of 7 at 1 %, so puts and
   * queries touch fewer words); the shapes differ, so such a filter does not merge with one from
   * {@code create}. E.g. {@code createBestPractice(1000, 0.01)}: m = 10,048, k = 5.
   *
   * @param expectedInsertions the number of distinct keys the filter is sized for; {@code >= 1}
   * @param fpp the false-positive probability wanted at that many keys; in (0, 1), at least what
   *     64 bits per key reach (about 10<sup>−13</sup>)
   * @return an empty filter
   * @throws IllegalArgumentException naming the argument that is out of range
   * @throws FilterExceedsMemoryException if the bit array exceeds this process's memory limit
   * @throws OutOfMemoryError if memory runs out below that limit, naming the size
   */
  public static BloomFilter createBestPractice(long expectedInsertions, double fpp) {
    return new BloomFilter(BloomFilterNative.nCreateBestPractice(expectedInsertions, fpp));
  }

  /** A filter over a copy of {@code words} (bit b in word b / 64 at bit b % 64). */
  static BloomFilter fromWords(long[] words, int numHashFunctions, Strategy strategy) {
    return new BloomFilter(BloomFilterNative.nFromWords(words, numHashFunctions, strategy.ordinal()));
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
   * @throws FilterExceedsMemoryException if the bit array exceeds this process's memory limit
   * @throws OutOfMemoryError if memory runs out below that limit
   * @return an empty filter
   */
  public static BloomFilter withShape(long bitSize, int numHashFunctions, Strategy strategy) {
    Objects.requireNonNull(strategy, "strategy is null");
    return new BloomFilter(BloomFilterNative.nWithShape(bitSize, numHashFunctions, strategy.ordinal()));
  }

  /** ORs {@code words[0..count)} into this filter's words from {@code wordOffset} on. */
  void orWords(int wordOffset, long[] words, int count) {
    run(h -> BloomFilterNative.nOrWords(h, wordOffset, words, count));
  }

  /**
   * An independent copy of this filter (Guava's {@code copy()}).
   *
   * @throws IllegalStateException if this filter is closed
   * @throws FilterExceedsMemoryException if the copy's bit array exceeds this process's memory
   *     limit
   * @throws OutOfMemoryError if memory runs out below that limit, naming the size
   * @return a new filter with the same shape, strategy and bits
   */
  public BloomFilter copy() {
    return new BloomFilter(callLong(BloomFilterNative::nCopy));
  }

  // ---------------------------------------------------------------------------------------
  // Put and query. The long-key calls write NativeHandle's try/finally out: no lambda on the
  // hottest path.

  /**
   * Puts a {@code long} key (Guava's {@code Funnels.longFunnel()}).
   *
   * @return {@code true} if a bit changed, i.e. the key was certainly not in the filter before;
   *     as in Guava, two threads putting the same key at once may both get {@code true}
   * @param key the key
   */
  public boolean put(long key) {
    try {
      long handle = handle();
      if (beginUnsharedWrite()) {
        try {
          return BloomFilterNative.nPut(handle, key, true);
        } finally {
          endUnsharedWrite();
        }
      }
      return BloomFilterNative.nPut(handle, key, false);
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
    return write((h, unshared) -> BloomFilterNative.nPutBytes(h, key, unshared));
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
    return putAll(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /**
   * Whether {@code key} might have been put: {@code false} means certainly not; {@code true}
   * means probably (a false positive has probability about {@link #expectedFpp()}). Answered
   * in Java, without a native call or an allocation, by reading the native bits in place
   * (filters of up to 2<sup>31</sup> − 1 bytes; larger ones make one native call); the same
   * answer as {@link #mightContainAll(long[])}, and it sees every put that happens-before it.
   *
   * @param key the key
   * @return whether the key might have been put
   * @throws IllegalStateException if this filter is closed
   */
  public boolean mightContain(long key) {
    try {
      long handle = handle(); // first: throws once closed, and marks the filter shared
      BitsView v = view;
      if (v == null) {
        v = view(handle);
      }
      return v != null ? v.mightContain(key) : BloomFilterNative.nMightContain(handle, key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether the byte-string {@code key} might have been put. Answered in Java over the native
   * bits, as {@link #mightContain(long)}.
   *
   * @throws NullPointerException if {@code key} is null
   * @param key the key
   * @return whether the key might have been put
   */
  public boolean mightContain(byte[] key) {
    try {
      long handle = handle(); // first: throws once closed, and marks the filter shared
      BitsView v = view(handle);
      if (v == null) {
        return BloomFilterNative.nMightContainBytes(handle, key);
      }
      return v.mightContain(Objects.requireNonNull(key, "key is null"));
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * Whether the string {@code key} (as UTF-8) might have been put. Answered in Java over the
   * native bits, as {@link #mightContain(long)}.
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
    run(h -> BloomFilterNative.nMightContainAll(h, keys, out));
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
    return call(h -> BloomFilterNative.nRetainAbsent(h, keys));
  }

  /**
   * Puts the keys {@code keys[from]} to {@code keys[to - 1]} in one native call: {@link
   * #putAll(long[])} of a slice, without copying it out of a larger array first. The native side
   * reads only the slice.
   *
   * @param keys the array holding the keys
   * @param from the index of the first key, inclusive
   * @param to the index after the last key, exclusive
   * @return {@code true} if a bit changed
   * @throws NullPointerException if {@code keys} is null
   * @throws IllegalArgumentException if {@code from > to}
   * @throws IndexOutOfBoundsException if {@code from < 0} or {@code to > keys.length}
   */
  public boolean putAll(long[] keys, int from, int to) {
    checkSlice(keys, from, to);
    return write((h, unshared) -> BloomFilterNative.nPutAllRange(h, keys, from, to, unshared));
  }

  /**
   * {@code result[i] = mightContain(keys[from + i])} for {@code i < to - from}, in one native
   * call: {@link #mightContainAll(long[])} of a slice, without copying it.
   *
   * @param keys the array holding the keys
   * @param from the index of the first key, inclusive
   * @param to the index after the last key, exclusive
   * @return one answer per key of the slice, in order
   * @throws NullPointerException if {@code keys} is null
   * @throws IllegalArgumentException if {@code from > to}
   * @throws IndexOutOfBoundsException if {@code from < 0} or {@code to > keys.length}
   */
  public boolean[] mightContainAll(long[] keys, int from, int to) {
    checkSlice(keys, from, to);
    boolean[] out = new boolean[to - from];
    run(h -> BloomFilterNative.nMightContainAllRange(h, keys, from, to, out));
    return out;
  }

  /**
   * The keys of {@code keys[from]} to {@code keys[to - 1]} that are certainly not in this
   * filter, in their order: {@link #retainAbsent(long[])} of a slice, without copying it.
   *
   * @param keys the array holding the candidate keys
   * @param from the index of the first key, inclusive
   * @param to the index after the last key, exclusive
   * @return the keys of the slice that were certainly never put
   * @throws NullPointerException if {@code keys} is null
   * @throws IllegalArgumentException if {@code from > to}
   * @throws IndexOutOfBoundsException if {@code from < 0} or {@code to > keys.length}
   */
  public long[] retainAbsent(long[] keys, int from, int to) {
    checkSlice(keys, from, to);
    return call(h -> BloomFilterNative.nRetainAbsentRange(h, keys, from, to));
  }

  /** The checks of {@code Arrays.copyOfRange}, with messages naming the bounds. */
  private static void checkSlice(long[] keys, int from, int to) {
    Objects.requireNonNull(keys, "keys is null");
    if (from > to) {
      throw new IllegalArgumentException(
          "invalid slice of keys: from " + from + " > to " + to);
    }
    if (from < 0 || to > keys.length) {
      throw new IndexOutOfBoundsException(
          "invalid slice of keys: [" + from + ", " + to + ") is not within an array of length "
              + keys.length);
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
    run(other, BloomFilterNative::nMerge);
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
    run(other, BloomFilterNative::nIntersect);
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
    return call(other, BloomFilterNative::nIsCompatible);
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
    return callLong(BloomFilterNative::nBitSize);
  }

  /** The number of hash functions k, in 1..255.
   *
   * @return k
   */
  public int numHashFunctions() {
    return callInt(BloomFilterNative::nNumHashes);
  }

  /** How hashes become bit positions.
   *
   * @return the strategy
   */
  public Strategy strategy() {
    return Strategy.ofOrdinal(callInt(BloomFilterNative::nStrategy));
  }

  /** The number of bits set.
   *
   * @return the number of 1 bits
   */
  public long bitCount() {
    return callLong(BloomFilterNative::nBitCount);
  }

  /**
   * An estimate of the number of distinct keys put: {@code -m/k · ln(1 - bitCount/m)}, rounded
   * half up, as Guava's {@code approximateElementCount()}; {@link Long#MAX_VALUE} when every
   * bit is set.
   * @return the estimated number of distinct keys put
   */
  public long approximateElementCount() {
    return callLong(BloomFilterNative::nApproximateElementCount);
  }

  /**
   * The probability that {@link #mightContain} returns {@code true} for a key never put, from
   * the bits set now: {@code (bitCount/m)^k}, as Guava's {@code expectedFpp()}.
   * @return the current false-positive probability
   */
  public double expectedFpp() {
    return callDouble(BloomFilterNative::nExpectedFpp);
  }

  // ---------------------------------------------------------------------------------------
  // Bytes: FORMAT.md

  /**
   * The filter in the sparkbloom binary layout ({@code FORMAT.md}): a 24-byte header, the bits
   * (dense or sparse, whichever is smaller) and a CRC-32. Deterministic: equal filters give
   * equal bytes.
   *
   * @throws IllegalStateException if this filter is closed
   * @throws IllegalArgumentException if the bytes would exceed a Java array (a dense filter of
   *     more than about 1.7 &middot; 10<sup>10</sup> bits); the message names the size
   * @throws FilterExceedsMemoryException if the bytes exceed the Java heap's maximum
   * @throws OutOfMemoryError if memory runs out below that, naming the size
   * @return the FORMAT.md bytes
   */
  public byte[] toByteArray() {
    return call(BloomFilterNative::nToBytes);
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
    return fromByteArray(bytes, DecodeLimit.defaultMaxNumBits());
  }

  /**
   * Like {@link #fromByteArray(byte[])}, refusing a filter of more than {@code maxNumBits} bits
   * before allocating it: a service decoding bytes it does not trust sets this, since 37 bytes
   * of sparse payload can declare a filter of 2<sup>43</sup> bits (1 TiB). The one-argument form
   * takes the limit from the system property {@code sparkbloom.decode.maxNumBits} (default:
   * none below the format's 2<sup>43</sup>).
   *
   * @param bytes the FORMAT.md bytes of one filter
   * @param maxNumBits the largest {@link #bitSize()} accepted; {@code >= 0}
   * @return the filter
   * @throws FilterTooLargeException if the filter has more than {@code maxNumBits} bits or its
   *     bit array cannot be allocated; the message names the size
   * @throws CorruptFilterException if the bytes are not a valid filter, naming the field
   * @throws IllegalArgumentException if {@code maxNumBits} is negative
   * @throws NullPointerException if {@code bytes} is null
   */
  public static BloomFilter fromByteArray(byte[] bytes, long maxNumBits)
      throws CorruptFilterException {
    return new BloomFilter(
        BloomFilterNative.nFromBytes(bytes, DecodeLimit.check(maxNumBits, "maxNumBits")));
  }

  /**
   * Writes {@link #toByteArray()}'s bytes to the front of {@code out} in one native call (the
   * serial proxy's path, {@link Ser}): their count, or minus the length {@code out} must have
   * (the dense form's, which the encoder writes first) if it is shorter.
   */
  long encodeInto(byte[] out) {
    long h = handle();
    try {
      return BloomFilterNative.nEncodeInto(h, out);
    } finally {
      java.lang.ref.Reference.reachabilityFence(this);
    }
  }

  /** {@link #fromByteArray(byte[])} of the first {@code length} bytes of {@code bytes}. */
  static BloomFilter fromByteArrayPrefix(byte[] bytes, int length) throws CorruptFilterException {
    return new BloomFilter(
        BloomFilterNative.nFromBytesPrefix(bytes, length, DecodeLimit.defaultMaxNumBits()));
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
   * Memory grows only as the bytes arrive, so a forged header cannot make it allocate more
   * than the stream delivers. The decode limit is the system property {@code
   * sparkbloom.decode.maxNumBits} (see {@link #fromByteArray(byte[], long)}).
   *
   * @throws CorruptFilterException if the bytes are not a valid filter or the stream ends
   *     early
   * @throws FilterTooLargeException if the header declares a filter above the decode limit or
   *     beyond a Java array (checked before the payload is read)
   * @throws IOException if {@code in} throws
   * @param in the stream to read from
   * @return the filter
   */
  public static BloomFilter readFrom(InputStream in) throws IOException {
    return readFrom(in, DecodeLimit.defaultMaxNumBits());
  }

  /**
   * Like {@link #readFrom(InputStream)}, refusing a filter of more than {@code maxNumBits} bits
   * as soon as its header is read.
   *
   * @param in the stream to read from
   * @param maxNumBits the largest {@link #bitSize()} accepted; {@code >= 0}
   * @return the filter
   * @throws FilterTooLargeException if the filter has more than {@code maxNumBits} bits
   * @throws CorruptFilterException if the bytes are not a valid filter or the stream ends early
   * @throws IOException if {@code in} throws
   */
  public static BloomFilter readFrom(InputStream in, long maxNumBits) throws IOException {
    return FramedReader.readFilter(
        in, maxNumBits, HEADER_LENGTH, "payload", BloomFilterNative::nTotalLength,
        BloomFilter::fromByteArray);
  }

  // ---------------------------------------------------------------------------------------
  // Redis bitmaps, Spark's sketch filter, Guava: one-line delegates to RedisBitmaps,
  // SparkSketchInterop and GuavaInterop, where each is documented in full.

  /** The bits as a Redis bitmap string: {@link RedisBitmaps#toRedisBitmap}. */
  public byte[] toRedisBitmap() {
    return RedisBitmaps.toRedisBitmap(this);
  }

  /**
   * The filter of this shape whose Redis bitmap is {@code bitmap}: {@link
   * RedisBitmaps#fromRedisBitmap}.
   */
  public static BloomFilter fromRedisBitmap(
      byte[] bitmap, long bitSize, int numHashFunctions, Strategy strategy) {
    return RedisBitmaps.fromRedisBitmap(bitmap, bitSize, numHashFunctions, strategy);
  }

  /**
   * Reads Spark's sketch {@code writeTo} stream: {@link SparkSketchInterop#readSpark(InputStream,
   * long)}, default limit.
   */
  public static BloomFilter readSpark(InputStream in) throws IOException {
    return SparkSketchInterop.readSpark(in, DecodeLimit.defaultMaxNumBits());
  }

  /** Writes Spark's sketch {@code writeTo} stream: {@link SparkSketchInterop#writeSpark}. */
  public void writeSpark(OutputStream out) throws IOException {
    SparkSketchInterop.writeSpark(this, out);
  }

  /** Converts a live Spark sketch filter: {@link SparkSketchInterop#fromSpark}. */
  public static BloomFilter fromSpark(Object sparkSketchBloomFilter) {
    return SparkSketchInterop.fromSpark(sparkSketchBloomFilter);
  }

  /** Writes Guava's {@code writeTo} stream: {@link GuavaInterop#writeGuava}. */
  public void writeGuava(OutputStream out) throws IOException {
    GuavaInterop.writeGuava(this, out);
  }

  /** The bytes of Guava's {@code writeTo}: {@link GuavaInterop#toGuavaByteArray}. */
  public byte[] toGuavaByteArray() {
    return GuavaInterop.toGuavaByteArray(this);
  }

  /**
   * Decodes Guava's {@code writeTo} bytes: {@link GuavaInterop#readGuava(byte[], long)}, default
   * limit.
   */
  public static BloomFilter fromGuavaByteArray(byte[] bytes) throws CorruptFilterException {
    return GuavaInterop.readGuava(bytes, DecodeLimit.defaultMaxNumBits());
  }

  /** Decodes Guava's {@code writeTo} bytes: {@link GuavaInterop#readGuava(byte[], long)}. */
  public static BloomFilter fromGuavaByteArray(byte[] bytes, long maxNumBits)
      throws CorruptFilterException {
    return GuavaInterop.readGuava(bytes, maxNumBits);
  }

  /**
   * Reads Guava's {@code writeTo} stream: {@link GuavaInterop#readGuava(InputStream, long)},
   * default limit.
   */
  public static BloomFilter readGuava(InputStream in) throws IOException {
    return GuavaInterop.readGuava(in, DecodeLimit.defaultMaxNumBits());
  }

  /** Reads Guava's {@code writeTo} stream: {@link GuavaInterop#readGuava(InputStream, long)}. */
  public static BloomFilter readGuava(InputStream in, long maxNumBits) throws IOException {
    return GuavaInterop.readGuava(in, maxNumBits);
  }

  /**
   * Converts a live Guava filter (Guava 14 to 33, shaded or not): {@link GuavaInterop#fromGuava}.
   */
  public static BloomFilter fromGuava(Object guavaBloomFilter) {
    return GuavaInterop.fromGuava(guavaBloomFilter);
  }

  // ---------------------------------------------------------------------------------------
  // String and byte-string batches: one native call each, keys hashed as the single-key calls.

  /**
   * Puts every byte-string key in one native call, each hashed as {@link #put(byte[])}.
   *
   * @param keys the keys; no element may be null
   * @return {@code true} if a bit changed
   * @throws NullPointerException if {@code keys} or an element is null
   * @throws IllegalArgumentException if the keys together exceed a Java array
   */
  public boolean putAll(byte[][] keys) {
    PackedKeys packed = PackedKeys.of(keys);
    return write(
        (h, unshared) -> BloomFilterNative.nPutAllPacked(h, packed.data, packed.ends, unshared));
  }

  /**
   * Puts every string key, each hashed as {@link #put(String)} (its UTF-8 bytes), in one native
   * call.
   *
   * @param keys the keys; no element may be null
   * @return {@code true} if a bit changed
   * @throws NullPointerException if {@code keys} or an element is null
   */
  public boolean putAll(String[] keys) {
    PackedChars packed = PackedChars.of(keys);
    return write(
        (h, unshared) -> BloomFilterNative.nPutAllUtf16(h, packed.chars, packed.ends, unshared));
  }

  /**
   * {@link #mightContain(byte[])} of every key, in order, in one native call.
   *
   * @param keys the keys; no element may be null
   * @return the answers, one per key
   * @throws NullPointerException if {@code keys} or an element is null
   */
  public boolean[] mightContainAll(byte[][] keys) {
    return mightContainPacked(PackedKeys.of(keys));
  }

  private boolean[] mightContainPacked(PackedKeys packed) {
    boolean[] out = new boolean[packed.ends.length];
    run(h -> BloomFilterNative.nMightContainAllPacked(h, packed.data, packed.ends, out));
    return out;
  }

  /**
   * {@link #mightContain(String)} of every key, in order, in one native call.
   *
   * @param keys the keys; no element may be null
   * @return the answers, one per key
   * @throws NullPointerException if {@code keys} or an element is null
   */
  public boolean[] mightContainAll(String[] keys) {
    PackedChars packed = PackedChars.of(keys);
    boolean[] out = new boolean[packed.ends.length];
    run(h -> BloomFilterNative.nMightContainAllUtf16(h, packed.chars, packed.ends, out));
    return out;
  }

  /**
   * The keys certainly not in the filter, in their order (one native call).
   *
   * @param keys the keys; no element may be null
   * @return the absent keys (the same array objects)
   * @throws NullPointerException if {@code keys} is null
   */
  public byte[][] retainAbsent(byte[][] keys) {
    return absent(keys, mightContainAll(keys)).toArray(new byte[0][]);
  }

  /**
   * The keys certainly not in the filter, in their order (one native call).
   *
   * @param keys the keys; no element may be null
   * @return the absent keys
   * @throws NullPointerException if {@code keys} or an element is null
   */
  public String[] retainAbsent(String[] keys) {
    return absent(keys, mightContainAll(keys)).toArray(new String[0]);
  }

  private static <K> java.util.List<K> absent(K[] keys, boolean[] present) {
    java.util.List<K> out = new java.util.ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      if (!present[i]) {
        out.add(keys[i]);
      }
    }
    return out;
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
    super.close();
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
    return contentEquals(o, BloomFilterNative::nEquals);
  }

  /**
   * A hash of the shape and bits, consistent with {@link #equals}; identity once closed.
   *
   * @return the hash
   */
  @Override
  public int hashCode() {
    return contentHash(BloomFilterNative::nHashCode);
  }

  /**
   * E.g. {@code BloomFilter{m=143808, k=10, strategy=MURMUR128_MITZ_64, fill=6.71%}}.
   *
   * @return a one-line summary
   */
  @Override
  public String toString() {
    return describe(
        h ->
            format(
                "m=%d, k=%d, strategy=%s, fill=%.2f%%",
                BloomFilterNative.nBitSize(h),
                BloomFilterNative.nNumHashes(h),
                Strategy.ofOrdinal(BloomFilterNative.nStrategy(h)),
                100.0 * BloomFilterNative.nBitCount(h) / BloomFilterNative.nBitSize(h)));
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
    return new Ser(this);
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
}
