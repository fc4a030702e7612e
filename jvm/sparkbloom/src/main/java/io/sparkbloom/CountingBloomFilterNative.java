package io.sparkbloom;

/**
 * The native methods behind {@link CountingBloomFilter}, and nothing else (the JNI exports are in
 * {@code rust/src/jni/counting_bloom_filter_native.rs}, one Rust function per method). Loading
 * this class loads the library. Handles are owned by {@link NativeHandle}.
 */
final class CountingBloomFilterNative {
  static {
    NativeLibrary.ensureLoaded();
  }

  private CountingBloomFilterNative() {}

  static native long nCreate(long expectedInsertions, double fpp, int strategy);

  static native long nWithShape(long numBits, int numHashFunctions, int strategy);

  static native void nFree(long handle);

  static native long nCopy(long handle);

  static native boolean nAdd(long handle, long key);

  static native boolean nAddBytes(long handle, byte[] key);

  static native boolean nAddAll(long handle, long[] keys);

  static native boolean nRemove(long handle, long key);

  static native boolean nRemoveBytes(long handle, byte[] key);

  static native long nRemoveAll(long handle, long[] keys);

  static native boolean nMightContain(long handle, long key);

  static native boolean nMightContainBytes(long handle, byte[] key);

  static native void nMightContainAll(long handle, long[] keys, boolean[] out);

  static native long[] nRetainAbsent(long handle, long[] keys);

  static native int nCount(long handle, long key);

  static native int nCountBytes(long handle, byte[] key);

  static native void nMerge(long handle, long other);

  static native void nSubtract(long handle, long other);

  static native boolean nIsCompatible(long handle, long other);

  static native boolean nEquals(long handle, long other);

  static native int nHashCode(long handle);

  /** A {@link BloomFilterNative} handle: the plain filter of the nonzero counters. */
  static native long nToBloomFilter(long handle);

  static native long nBitSize(long handle);

  static native int nNumHashes(long handle);

  static native int nStrategy(long handle);

  static native long nSaturatedCounters(long handle);

  static native long nNonzeroCounters(long handle);

  static native byte[] nToBytes(long handle);

  static native long nFromBytes(byte[] bytes, long maxNumBits) throws CorruptFilterException;

  static native long nTotalLength(byte[] header, long maxNumBits) throws CorruptFilterException;
}
