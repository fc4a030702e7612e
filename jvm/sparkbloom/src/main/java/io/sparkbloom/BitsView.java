package io.sparkbloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;

/**
 * Single-key {@code long} puts and queries done in Java over a view of a filter's native words,
 * with no JNI call per key: the JNI transition was most of a single-key call's cost.
 * The strategy walks are those of {@code rust/src/strategy.rs} (and {@code filter/blocked.rs}),
 * the hashes those of {@link LongKeyHash}; tests hold both to the native path and to Guava.
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
 *   <li><b>No false negatives beside concurrent puts.</b> Both sides only ever add bits with
 *       atomic read-modify-writes: Rust with atomic ORs (intersect with compare-and-swap),
 *       Java with {@code getAndBitwiseOr} (volatile, so at least Rust's release); nobody stores
 *       a stale word. A Java put first reads the word with acquire and skips the write when its
 *       bit is set already: that read synchronizes with the write that set the bit, so the
 *       bit is set for everything that happens after this put, as if it had written it. Each
 *       query first reads the volatile handle, an acquire, so its plain word reads are neither
 *       hoisted above it nor served from an earlier call; a put that happens-before the query
 *       (any Java synchronization between the two threads) is therefore seen. Each word is one
 *       aligned 8-byte load, which x86-64 and AArch64 perform as one access; and even a load
 *       split into bytes would see each byte before or after an OR that only adds bits, so
 *       it could never lose a bit set before.
 *   <li><b>Nothing cached in Rust goes stale.</b> The Rust filter keeps no count or summary of
 *       its bits (bit counts are computed from the words on demand), so bits set from Java
 *       are all there is to a put. The words are written plainly only by decoders, before the
 *       handle (and so the view) exists.
   <li><b>Bounds.</b> Every index a walk computes is below m, so its word is below ceil(m /
 *       64), the buffer's capacity in longs; the buffer checks each index anyway. Filters whose
 *       words exceed a buffer's {@code int} capacity (2<sup>31</sup> − 1 bytes) get no view
 *       and keep the JNI path.
 * </ul>
 *
 * Only absolute accesses are used (the buffer's {@code get(int)}, the {@link VarHandle}): they
 * touch no buffer state, so one view serves many threads. The words are 8-byte aligned (Rust
 * allocates them as 64-bit words), as the VarHandle's atomic modes require.
 */
final class BitsView {
  private static final int MITZ_32 = Strategy.MURMUR128_MITZ_32.ordinal();
  private static final int MITZ_64 = Strategy.MURMUR128_MITZ_64.ordinal();
  private static final int SPARK_V1 = Strategy.SPARK_SKETCH_V1.ordinal();
  private static final int SPARK_V2 = Strategy.SPARK_SKETCH_V2.ordinal();

  /** Bits in a BLOCKED block (one 64-byte cache line) and 9-bit fields per 64-bit word. */
  private static final int BLOCK_BITS = 512;
  private static final int FIELDS_PER_WORD = 7;

  /** Atomic access to a long at a byte index of {@link #bytes}, in native byte order. */
  private static final VarHandle WORD =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  /** The filter's words, bit b in word b / 64 at bit b % 64; read with absolute gets only. */
  private final LongBuffer words;

  /** The same words as bytes, for {@link #WORD}. */
  private final ByteBuffer bytes;

  private final long numBits;
  private final int numHashes;
  private final int strategy;
  /** 2<sup>63</sup> mod m: what MITZ_64's dropped top bit subtracts from an index. */
  private final long wrap;

  private BitsView(ByteBuffer bytes, long numBits, int numHashes, int strategy) {
    this.bytes = bytes.order(ByteOrder.nativeOrder());
    this.words = this.bytes.asLongBuffer();
    this.numBits = numBits;
    this.numHashes = numHashes;
    this.strategy = strategy;
    this.wrap = Long.remainderUnsigned(Long.MIN_VALUE, numBits);
  }

  /**
   * The view of the filter behind {@code handle}, just created and not yet shared, or null
   * when its words do not fit a direct buffer.
   */
  static BitsView of(long handle) {
    ByteBuffer bytes = BloomFilterNative.nWordsView(handle);
    if (bytes == null) {
      return null;
    }
    return new BitsView(
        bytes,
        BloomFilterNative.nBitSize(handle),
        BloomFilterNative.nNumHashes(handle),
        BloomFilterNative.nStrategy(handle));
  }

  /**
   * Whether {@code key} might have been put, exactly as the native {@code might_contain}. The
   * caller must hold the filter open and reachable (see the class doc).
   */
  boolean mightContain(long key) {
    return walk(key, false);
  }

  /**
   * Puts {@code key}, setting exactly the bits the native {@code put} sets; returns whether a
   * bit changed. The caller must hold the filter open and reachable (see the class doc).
   */
  boolean put(long key) {
    return walk(key, true);
  }

  /**
   * The strategy's walk over the k indexes of {@code key}: with {@code put}, sets each bit and
   * returns whether one changed; without, returns whether all are set (stopping at the first
   * clear one). Each caller passes a constant, so the JIT compiles one loop per use.
   */
  private boolean walk(long key, boolean put) {
    if (strategy == MITZ_64) {
      long low = LongKeyHash.guavaLow(key);
      return mitz64(low, LongKeyHash.guavaHigh(key, low), put);
    }
    if (strategy == MITZ_32) {
      long hash64 = LongKeyHash.guavaLow(key);
      return int32Walk((int) hash64, (int) (hash64 >>> 32), put);
    }
    if (strategy == SPARK_V1 || strategy == SPARK_V2) {
      int h1 = LongKeyHash.sparkHashLong(key, 0);
      int h2 = LongKeyHash.sparkHashLong(key, h1);
      return strategy == SPARK_V1 ? int32Walk(h1, h2, put) : sparkV2(h1, h2, put);
    }
    long low = LongKeyHash.guavaLow(key);
    return blocked(low, LongKeyHash.guavaHigh(key, low), put);
  }

  private boolean bit(long index) {
    return (words.get((int) (index >>> 6)) >>> index & 1) != 0; // a long shift takes index % 64
  }

  /**
   * Sets bit {@code index}; returns whether it was clear. An acquire read first: when the bit
   * is set already there is nothing to write (see the class doc for why that is enough).
   */
  private boolean set(long index) {
    int at = (int) (index >>> 6) << 3; // below 2^31: the buffer holds at most 2^31 − 1 bytes
    long mask = 1L << index;
    if (((long) WORD.getAcquire(bytes, at) & mask) != 0) {
      return false;
    }
    return ((long) WORD.getAndBitwiseOr(bytes, at, mask) & mask) == 0;
  }

  /**
   * Guava 17+: index i is {@code ((h1 + i·h2) & Long.MAX_VALUE) % m}. As in the Rust walk, two
   * divisions per key instead of k: keep {@code a = (h1 + i·h2) mod 2^63} and its index, add
   * {@code h2 mod m} each step, and subtract 2<sup>63</sup> mod m when {@code a} passes
   * 2<sup>63</sup> (the mask drops that bit).
   */
  private boolean mitz64(long h1, long h2, boolean put) {
    long m = numBits;
    long a = h1 & Long.MAX_VALUE;
    long d = h2 & Long.MAX_VALUE;
    long index = a % m;
    long step = d % m;
    long stepWrapped = step >= wrap ? step - wrap : step - wrap + m;
    boolean changed = false;
    for (int i = 1; ; i++) {
      if (put) {
        changed |= set(index);
      } else if (!bit(index)) {
        return false;
      }
      if (i == numHashes) {
        return put ? changed : true;
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
   * Guava 14 to 16 (MITZ_32: {@code h1 = (int) hash64}, {@code h2 = (int) (hash64 >>> 32)}) and
   * Spark's {@code BloomFilterImpl} (V1, Spark's hash pair) alike: {@code c = h1 + i·h2} (int)
   * for i in 1..k, {@code ~c} if negative, {@code % m}.
   */
  private boolean int32Walk(int h1, int h2, boolean put) {
    boolean changed = false;
    for (int i = 1; i <= numHashes; i++) {
      int combined = h1 + i * h2;
      long index = (combined < 0 ? ~combined : combined) % numBits;
      if (put) {
        changed |= set(index);
      } else if (!bit(index)) {
        return false;
      }
    }
    return put ? changed : true;
  }

  /** Spark's {@code BloomFilterImplV2}: {@code c = h1·(2^31 − 1)} (long), k times {@code c += h2}. */
  private boolean sparkV2(int h1, int h2, boolean put) {
    long combined = (long) h1 * Integer.MAX_VALUE;
    boolean changed = false;
    for (int i = 0; i < numHashes; i++) {
      combined += h2;
      long index = (combined < 0 ? ~combined : combined) % numBits;
      if (put) {
        changed |= set(index);
      } else if (!bit(index)) {
        return false;
      }
    }
    return put ? changed : true;
  }

  /**
   * BLOCKED: the block is the high 64 bits of {@code h1 · blocks} (unsigned), the positions
   * the 9-bit fields of {@code h2}, then of {@code fmix64(h2)}, ... (7 per word).
   */
  private boolean blocked(long h1, long h2, boolean put) {
    long blocks = numBits / BLOCK_BITS;
    // Unsigned high product from the signed one; blocks is positive, so only h1's sign counts.
    long base = (Math.multiplyHigh(h1, blocks) + ((h1 >> 63) & blocks)) * BLOCK_BITS;
    long seed = h2;
    long fields = seed;
    int left = FIELDS_PER_WORD;
    boolean changed = false;
    for (int i = 0; i < numHashes; i++) {
      if (left == 0) {
        seed = LongKeyHash.fmix64(seed);
        fields = seed;
        left = FIELDS_PER_WORD;
      }
      long index = base + (fields & (BLOCK_BITS - 1));
      if (put) {
        changed |= set(index);
      } else if (!bit(index)) {
        return false;
      }
      fields >>>= 9;
      left--;
    }
    return put ? changed : true;
  }
}
