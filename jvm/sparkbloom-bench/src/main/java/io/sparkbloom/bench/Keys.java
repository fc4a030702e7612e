package io.sparkbloom.bench;

import java.util.Arrays;

/**
 * The benchmarks' keys: seeded SplitMix64 streams, the same seeds and the same string keys as
 * the criterion benchmarks ({@code rust/benches/filter.rs}), built once per trial, outside any
 * timing.
 */
final class Keys {
  /** Largest pool of query keys: far more cache lines than L3 holds at 10^7 keys. */
  static final int MAX_POOL = 1 << 20;

  private Keys() {}

  /** SplitMix64, as {@code sparkbloom::testutil::splitmix64}. */
  static final class SplitMix64 {
    private long state;

    SplitMix64(long seed) {
      this.state = seed;
    }

    long next() {
      state += 0x9e3779b97f4a7c15L;
      long z = state;
      z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
      z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
      return z ^ (z >>> 31);
    }
  }

  /** The stream seeds, per purpose, xor-ed with n as in the Rust benchmarks. */
  static final long PRESENT = 1, MISSES = 2, SHUFFLE = 3, STR_PRESENT = 4, STR_MISSES = 5;

  static SplitMix64 stream(long purpose, long n) {
    return new SplitMix64(purpose ^ n);
  }

  static long[] longs(long purpose, long n, int count) {
    SplitMix64 s = stream(purpose, n);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = s.next();
    }
    return out;
  }

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** Two keys as 32 lowercase hex digits: Rust's {@code format!("{:016x}{:016x}", a, b)}. */
  static String keyString(SplitMix64 s) {
    char[] c = new char[32];
    long a = s.next();
    long b = s.next();
    for (int i = 0; i < 16; i++) {
      c[i] = HEX[(int) (a >>> (60 - 4 * i)) & 15];
      c[16 + i] = HEX[(int) (b >>> (60 - 4 * i)) & 15];
    }
    return new String(c);
  }

  static String[] strings(long purpose, long n, int count) {
    SplitMix64 s = stream(purpose, n);
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      out[i] = keyString(s);
    }
    return out;
  }

  /** Query pool size for a filter of n keys. */
  static int pool(long n) {
    return (int) Math.min(n, MAX_POOL);
  }

  /** {@code count} of the n keys of {@code all}, spread evenly over them. */
  static long[] sample(long[] all, int count) {
    int stride = all.length / count;
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = all[i * stride];
    }
    return out;
  }

  /** hits and misses interleaved in a seeded random order (Fisher-Yates): the 50/50 mix. */
  static long[] mix(long[] hits, long[] misses, long n) {
    long[] mix = Arrays.copyOf(hits, hits.length + misses.length);
    System.arraycopy(misses, 0, mix, hits.length, misses.length);
    SplitMix64 s = stream(SHUFFLE, n);
    for (int i = mix.length - 1; i > 0; i--) {
      int j = (int) Long.remainderUnsigned(s.next(), i + 1L);
      long t = mix[i];
      mix[i] = mix[j];
      mix[j] = t;
    }
    return mix;
  }

  /** Cuts {@code pool} into as many whole batches of {@code batch} keys as it holds. */
  static long[][] batches(long[] pool, int batch) {
    long[][] out = new long[pool.length / batch][];
    for (int i = 0; i < out.length; i++) {
      out[i] = Arrays.copyOfRange(pool, i * batch, (i + 1) * batch);
    }
    return out;
  }
}
