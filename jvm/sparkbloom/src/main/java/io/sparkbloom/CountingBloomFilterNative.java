package io.sparkbloom;

/**
 * The native methods only {@link CountingBloomFilter} has (those of both filter classes are
 * {@link NativeFilter}'s; the JNI exports are in {@code
 * rust/src/jni/counting_bloom_filter_native.rs}, one Rust function per method). Loading this
 * class loads the library. Handles are owned by {@link NativeHandle}.
 */
final class CountingBloomFilterNative {
  static {
    NativeLibrary.ensureLoaded();
  }

  private CountingBloomFilterNative() {}

  static native boolean nRemove(long handle, long key);

  static native boolean nRemoveBytes(long handle, byte[] key);

  static native long nRemoveAll(long handle, long[] keys, int from, int to);

  static native int nCount(long handle, long key);

  static native int nCountBytes(long handle, byte[] key);

  static native void nSubtract(long handle, long other);

  /** A {@link NativeFilter#PLAIN} handle: the plain filter of the nonzero counters. */
  static native long nToBloomFilter(long handle);

  static native long nSaturatedCounters(long handle);

  static native long nNonzeroCounters(long handle);
}
