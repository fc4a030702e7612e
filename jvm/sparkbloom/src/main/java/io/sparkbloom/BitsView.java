package io.sparkbloom;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Single-key queries ({@code long} and byte-string keys) answered in Java over a read-only view of a filter's native
 * words, with no JNI call per key: the JNI transition was most of a single-key query's cost.
 * The strategy walks are those of {@code rust/src/strategy.rs} (and {@code filter/blocked.rs}),
 * the hashes those of {@link KeyHash}; tests hold both to the native path and to Guava.
 *
 * <h2>Why reading the native memory is safe</h2>
 *
 * <ul>
 *   <li><b>The memory stays in place.</b> The words are one Rust boxed slice, allocated when the
 *       filter is created and freed only with it; no operation replaces, grows or moves it
 *       (merge, intersect and clear change words in place; decoders and copies make new
 *       filters, with new handles and new views). So the address the buffer was made from
 *       holds the words for as long as the native filter lives.
 *   <li><b>The filter lives while a read runs.</b> Only {@link BloomFilter} holds a view, in a
 *       private field, and reads it only inside a method that first gets {@code handle()}
 *       (which throws {@link IllegalStateException} once closed) and keeps the filter
 *       reachable until it returns ({@code Reference.reachabilityFence}), exactly as for a
 *       native call. {@code NativeHandle.close()} frees at once only when the creating thread
 *       alone ever used the filter, and that thread cannot be inside a read while it closes;
 *       any other thread's {@code handle()} marks the filter shared first, after which only the
 *       Cleaner frees, and the fence keeps the Cleaner away until the read is over.
 *   <li><b>No false negatives beside concurrent puts.</b> Java only reads; Rust's writers take
 *       turns (a lock per call) and store whole words, never a stale one.
 *       Each query first reads the volatile handle, an acquire, so its word reads are neither
 *       hoisted above it nor served from an earlier call; a put that happens-before the query
 *       (any Java synchronization between the two threads) is therefore seen. Each word is one
 *       aligned 8-byte load, which x86-64 and AArch64 perform as one access; and even a load
 *       split into bytes would see each byte before or after an OR that only adds bits, so
 *       it could never lose a bit set before.
 *   <li><b>The buffer owns nothing.</b> JNI's {@code NewDirectByteBuffer} makes a buffer with no
 *       Cleaner of its own: collecting it frees nothing, and only {@code NativeHandle} frees
 *       the words. Java only reads it (a read-only or {@code long} view of it would be one
 *       more object per filter, kept as long as the filter).
 *   <li><b>Bounds.</b> Every index a walk computes is below m, so its word is below ceil(m /
 *       64), the buffer's capacity in longs; the buffer checks each index anyway. Filters whose
 *       words exceed a buffer's {@code int} capacity (2<sup>31</sup> − 1 bytes) get no view
 *       and keep the JNI path.
 * </ul>
 *
 * Only absolute {@code getLong(int)} reads are used: they touch no buffer state, so one view
 * serves many threads.
 */
final class BitsView {
  private static final int MITZ_32 = Strategy.MURMUR128_MITZ_32.ordinal();
  private static final int MITZ_64 = Strategy.MURMUR128_MITZ_64.ordinal();
  private static final int SPARK_V1 = Strategy.SPARK_SKETCH_V1.ordinal();
  private static final int SPARK_V2 = Strategy.SPARK_SKETCH_V2.ordinal();

  /**
   * {@code -Dsparkbloom.singleKeyView=false} keeps single-key queries on the JNI calls: to
   * compare the two ({@code SingleKeyBench}'s {@code *_u64_jni}), or as a way out should a JVM refuse direct
   * buffers over native memory.
   */
  private static final boolean ENABLED =
      !"false".equalsIgnoreCase(System.getProperty("sparkbloom.singleKeyView"));

  /** Bits in a BLOCKED block (one 64-byte cache line) and 9-bit fields per 64-bit word. */
  private static final int BLOCK_BITS = 512;
  private static final int FIELDS_PER_WORD = 7;

  /**
   * The filter's words in native order, bit b in the word at byte 8 · (b / 64), at bit b % 64;
   * read with absolute gets only.
   */
  private final ByteBuffer words;

  private final long numBits;
  private final int numHashes;
  private final int strategy;
  /** 2<sup>63</sup> mod m: what MITZ_64's dropped top bit subtracts from an index. */
  private final long wrap;

  private BitsView(ByteBuffer words, long numBits, int numHashes, int strategy) {
    this.words = words;
    this.numBits = numBits;
    this.numHashes = numHashes;
    this.strategy = strategy;
    this.wrap = Long.remainderUnsigned(Long.MIN_VALUE, numBits);
  }

  /**
   * The view of the filter behind {@code handle}, just created and not yet shared, or null
   * when its words do not fit a direct buffer (or the view is turned off).
   */
  static BitsView of(long handle) {
    if (!ENABLED) {
      return null;
    }
    ByteBuffer bytes = BloomFilterNative.nWordsView(handle);
    if (bytes == null) {
      return null;
    }
    return new BitsView(
        bytes.order(ByteOrder.nativeOrder()),
        NativeFilter.nBitSize(NativeFilter.PLAIN, handle),
        NativeFilter.nNumHashes(NativeFilter.PLAIN, handle),
        NativeFilter.nStrategy(NativeFilter.PLAIN, handle));
  }

  /**
   * Whether {@code key} might have been put, exactly as the native {@code might_contain}. The
   * caller must hold the filter open and reachable (see the class doc).
   */
  boolean mightContain(long key) {
    if (strategy == MITZ_64) {
      long low = KeyHash.guavaLow(key);
      return mitz64(low, KeyHash.guavaHigh(key, low));
    }
    if (strategy == MITZ_32) {
      return mitz32(KeyHash.guavaLow(key));
    }
    if (strategy == SPARK_V1 || strategy == SPARK_V2) {
      int h1 = KeyHash.sparkHashLong(key, 0);
      int h2 = KeyHash.sparkHashLong(key, h1);
      return strategy == SPARK_V1 ? sparkV1(h1, h2) : sparkV2(h1, h2);
    }
    long low = KeyHash.guavaLow(key);
    return blocked(low, KeyHash.guavaHigh(key, low));
  }

  /**
   * Whether the byte-string {@code key} (not null) might have been put, exactly as the native
   * {@code might_contain_bytes}: Guava's Murmur3_x64_128 of the bytes ({@code
   * Funnels.byteArrayFunnel()}), or Spark's {@code hashUnsafeBytes} pair. Same caller rules as
   * {@link #mightContain(long)}.
   */
  boolean mightContain(byte[] key) {
    if (strategy == SPARK_V1 || strategy == SPARK_V2) {
      int h1 = KeyHash.sparkHashBytes(key, 0);
      int h2 = KeyHash.sparkHashBytes(key, h1);
      return strategy == SPARK_V1 ? sparkV1(h1, h2) : sparkV2(h1, h2);
    }
    long[] hash = new long[2]; // scalar-replaced by the JIT: no allocation once inlined
    KeyHash.guava128(key, hash);
    long h1 = hash[0];
    long h2 = hash[1];
    if (strategy == MITZ_64) {
      return mitz64(h1, h2);
    }
    if (strategy == MITZ_32) {
      return mitz32(h1);
    }
    return blocked(h1, h2);
  }

  private boolean bit(long index) {
    // The byte offset fits an int: the buffer's capacity does. A long shift takes index % 64.
    return (words.getLong((int) (index >>> 6) << 3) >>> index & 1) != 0;
  }

  /**
   * Guava 17+: index i is {@code ((h1 + i·h2) & Long.MAX_VALUE) % m}. As in the Rust walk, two
   * divisions per key instead of k: keep {@code a = (h1 + i·h2) mod 2^63} and its index, add
   * {@code h2 mod m} each step, and subtract 2<sup>63</sup> mod m when {@code a} passes
   * 2<sup>63</sup> (the mask drops that bit).
   */
  private boolean mitz64(long h1, long h2) {
    long m = numBits;
    long a = h1 & Long.MAX_VALUE;
    long d = h2 & Long.MAX_VALUE;
    long index = a % m;
    long step = d % m;
    long stepWrapped = step >= wrap ? step - wrap : step - wrap + m;
    for (int i = 1; ; i++) {
      if (!bit(index)) {
        return false;
      }
      if (i == numHashes) {
        return true;
      }
      a += d; // both below 2^63: the sum fits 64 bits unsigned, negative when it passes 2^63
      index += a < 0 ? stepWrapped : step;
      a &= Long.MAX_VALUE;
      if (index >= m) {
        index -= m;
      }
    }
  }

  /**
   * Guava 14 to 16: {@code c = (int) h1 + i·(int) (h1 >>> 32)}, {@code ~c} if negative; Spark's
   * V1 combination of the 64 bits' two halves.
   */
  private boolean mitz32(long hash64) {
    return sparkV1((int) hash64, (int) (hash64 >>> 32));
  }

  /** Spark's {@code BloomFilterImpl}: {@code c = h1 + i·h2} (int), {@code ~c} if negative. */
  private boolean sparkV1(int h1, int h2) {
    for (int i = 1; i <= numHashes; i++) {
      int combined = h1 + i * h2;
      if (!bit((combined < 0 ? ~combined : combined) % numBits)) {
        return false;
      }
    }
    return true;
  }

  /** Spark's {@code BloomFilterImplV2}: {@code c = h1·(2^31 − 1)} (long), k times {@code c += h2}. */
  private boolean sparkV2(int h1, int h2) {
    long combined = (long) h1 * Integer.MAX_VALUE;
    for (int i = 0; i < numHashes; i++) {
      combined += h2;
      if (!bit((combined < 0 ? ~combined : combined) % numBits)) {
        return false;
      }
    }
    return true;
  }

  /**
   * BLOCKED: the block is the high 64 bits of {@code h1 · blocks} (unsigned), the positions
   * the 9-bit fields of {@code h2}, then of {@code fmix64(h2)}, ... (7 per word).
   */
  private boolean blocked(long h1, long h2) {
    long blocks = numBits / BLOCK_BITS;
    // Unsigned high product from the signed one; blocks is positive, so only h1's sign counts.
    long base = (Math.multiplyHigh(h1, blocks) + ((h1 >> 63) & blocks)) * BLOCK_BITS;
    long seed = h2;
    long fields = seed;
    int left = FIELDS_PER_WORD;
    for (int i = 0; i < numHashes; i++) {
      if (left == 0) {
        seed = KeyHash.fmix64(seed);
        fields = seed;
        left = FIELDS_PER_WORD;
      }
      if (!bit(base + (fields & (BLOCK_BITS - 1)))) {
        return false;
      }
      fields >>>= 9;
      left--;
    }
    return true;
  }
}
