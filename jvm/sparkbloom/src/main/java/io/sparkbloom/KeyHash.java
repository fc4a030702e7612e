package io.sparkbloom;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The hashes of {@code long} and byte-string keys that the strategies walk, in Java, without
 * allocation: bit for bit what the Rust core computes ({@code rust/src/hashing.rs}, {@code
 * spark_hashing.rs}), and so what Guava and Spark compute. {@link BitsView} answers single-key
 * queries with them. Guava's 128-bit hash of a byte string has two halves, so {@link BitsView}
 * runs its block loop itself with the steps here ({@link #mixK1}, {@link #mixK2}, {@link
 * #fmix64}, {@link #le64}).
 */
final class KeyHash {
  private KeyHash() {}

  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LE_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;

  /**
   * The first 64 bits of Guava's {@code Hashing.murmur3_128()} (seed 0) of {@code
   * Funnels.longFunnel()}'s 8 little-endian bytes: {@code HashCode.asLong()}, the low half.
   *
   * <p>Eight bytes are less than one 16-byte block, so Murmur3_x64_128 goes straight to the
   * tail: {@code k1} is the key and {@code k2} is 0, leaving {@code h1 = mixK1(key)}, {@code h2
   * = 0}. The finalization xors in the length ({@code a = h1 ^ 8}, {@code h2 = 8}), adds the
   * halves both ways ({@code h1 = a + 8}, {@code h2 = a + 16}), applies fmix64 to each and adds
   * them both ways again: low = fmix64(a + 8) + fmix64(a + 16), high = fmix64(a + 16) + low.
   */
  static long guavaLow(long key) {
    long a = mixK1(key) ^ 8;
    return fmix64(a + 8) + fmix64(a + 16);
  }

  /**
   * The second 64 bits of the same hash, from the key and the first half (see {@link
   * #guavaLow}, {@code low = guavaLow(key)}); the JIT shares the common terms when both are
   * inlined together.
   */
  static long guavaHigh(long key, long low) {
    return fmix64((mixK1(key) ^ 8) + 16) + low;
  }

  /** Murmur3_x64_128's mix of the first 8 bytes of a block (or of the tail). */
  static long mixK1(long k1) {
    return Long.rotateLeft(k1 * C1, 31) * C2;
  }

  /** Murmur3_x64_128's mix of the second 8 bytes of a block (or of the tail). */
  static long mixK2(long k2) {
    return Long.rotateLeft(k2 * C2, 33) * C1;
  }

  /**
   * Guava's Murmur3_x64_128 (seed 0) of {@code key}'s bytes, as {@code Funnels.byteArrayFunnel()}
   * feeds them: 16-byte blocks, a zero-padded tail, the finalization. Writes h1 to {@code
   * out[0]} and h2 to {@code out[1]}.
   */
  static void guava128(byte[] key, long[] out) {
    long h1 = 0;
    long h2 = 0;
    int length = key.length;
    int blocksEnd = length & ~15;
    for (int at = 0; at < blocksEnd; at += 16) {
      h1 ^= mixK1(le64(key, at));
      h1 = (Long.rotateLeft(h1, 27) + h2) * 5 + 0x52dce729;
      h2 ^= mixK2(le64(key, at + 8));
      h2 = (Long.rotateLeft(h2, 31) + h1) * 5 + 0x38495ab5;
    }
    int tail = length - blocksEnd;
    if (tail > 8) {
      h2 ^= mixK2(le64Padded(key, blocksEnd + 8, tail - 8));
    }
    if (tail > 0) {
      h1 ^= mixK1(le64Padded(key, blocksEnd, Math.min(tail, 8)));
    }
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
  }

  /** The 8 bytes of {@code bytes} from {@code at} as a little-endian long. */
  static long le64(byte[] bytes, int at) {
    return (long) LE_LONG.get(bytes, at);
  }

  /** The {@code count} (0 to 8) bytes from {@code at} as a little-endian long, zero-padded. */
  static long le64Padded(byte[] bytes, int at, int count) {
    long value = 0;
    for (int i = count - 1; i >= 0; i--) {
      value = value << 8 | (bytes[at + i] & 0xff);
    }
    return value;
  }

  /**
   * Spark's legacy {@code Murmur3_x86_32.hashUnsafeBytes(bytes, seed)}, which its Bloom filters
   * use: whole 4-byte little-endian words as in Murmur3, then one full mix round per trailing
   * byte, sign-extended (not standard Murmur3's packed tail). The seed is 0, then the first hash.
   */
  static int sparkHashBytes(byte[] bytes, int seed) {
    int h1 = seed;
    int aligned = bytes.length & ~3;
    for (int i = 0; i < aligned; i += 4) {
      h1 = mixH1(h1, mixK1x86((int) LE_INT.get(bytes, i)));
    }
    for (int i = aligned; i < bytes.length; i++) {
      h1 = mixH1(h1, mixK1x86(bytes[i]));
    }
    return fmix32(h1, bytes.length);
  }

  /** Murmur3's 64-bit finalizer (also the BLOCKED strategy's field re-mix). */
  static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    return k ^ (k >>> 33);
  }

  /**
   * Spark's {@code Murmur3_x86_32.hashLong(key, seed)}: the low then the high 32-bit half as
   * two Murmur3_x86_32 blocks, then fmix32 with length 8. The seed is 0 for the first hash of
   * Spark's sketch filters, then the first hash.
   */
  static int sparkHashLong(long key, int seed) {
    int h1 = mixH1(seed, mixK1x86((int) key));
    h1 = mixH1(h1, mixK1x86((int) (key >>> 32)));
    return fmix32(h1, 8);
  }

  private static int fmix32(int h1, int length) {
    h1 ^= length;
    h1 ^= h1 >>> 16;
    h1 *= 0x85ebca6b;
    h1 ^= h1 >>> 13;
    h1 *= 0xc2b2ae35;
    return h1 ^ (h1 >>> 16);
  }

  private static int mixK1x86(int k1) {
    return Integer.rotateLeft(k1 * 0xcc9e2d51, 15) * 0x1b873593;
  }

  private static int mixH1(int h1, int k1) {
    return Integer.rotateLeft(h1 ^ k1, 13) * 5 + 0xe6546b64;
  }
}
