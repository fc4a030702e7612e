package io.sparkbloom.redis;

/**
 * MurmurHash3_x64_128 with seed 0: Guava's {@code Hashing.murmur3_128()}, for computing bit
 * offsets on the client without Guava (Spark shades its own). Returns only what the strategies
 * read: h1 ({@code HashCode.asLong()}) and h2.
 */
final class Murmur3 {
  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;

  private Murmur3() {}

  /** The hash of a {@code long} as Guava's {@code longFunnel()} feeds it: 8 little-endian bytes. */
  static void hashLong(long value, long[] out) {
    long h1 = mixK1(value);
    finish(h1, 0, 8, out);
  }

  /** The hash of raw bytes (Guava's {@code byteArrayFunnel()}; UTF-8 for strings). */
  static void hashBytes(byte[] data, long[] out) {
    long h1 = 0;
    long h2 = 0;
    int len = data.length;
    int blocks = len / 16;
    for (int b = 0; b < blocks; b++) {
      long k1 = littleEndian(data, b * 16, 8);
      long k2 = littleEndian(data, b * 16 + 8, 8);
      h1 ^= mixK1(k1);
      h1 = Long.rotateLeft(h1, 27) + h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2(k2);
      h2 = Long.rotateLeft(h2, 31) + h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = len - blocks * 16;
    if (tail > 8) {
      h2 ^= mixK2(littleEndian(data, blocks * 16 + 8, tail - 8));
    }
    if (tail > 0) {
      h1 ^= mixK1(littleEndian(data, blocks * 16, Math.min(tail, 8)));
    }
    finish(h1, h2, len, out);
  }

  private static void finish(long h1, long h2, long len, long[] out) {
    h1 ^= len;
    h2 ^= len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
  }

  private static long littleEndian(byte[] data, int at, int n) {
    long v = 0;
    for (int i = n - 1; i >= 0; i--) {
      v = (v << 8) | (data[at + i] & 0xffL);
    }
    return v;
  }

  private static long mixK1(long k1) {
    return Long.rotateLeft(k1 * C1, 31) * C2;
  }

  private static long mixK2(long k2) {
    return Long.rotateLeft(k2 * C2, 33) * C1;
  }

  private static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }
}
