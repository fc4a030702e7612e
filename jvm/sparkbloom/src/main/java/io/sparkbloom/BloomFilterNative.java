package io.sparkbloom;

/**
 * The native methods behind {@link BloomFilter}, and the table of those {@link NativeFilter}
 * calls for both filter classes (the JNI exports are in {@code
 * rust/src/jni/bloom_filter_native.rs}, one Rust function per method). Loading this class loads
 * the library.
 *
 * <p>A filter crosses JNI as a handle, the address of a Rust {@code BloomFilter}; {@link
 * NativeHandle} owns it. A handle of 0 (closed) throws {@link IllegalStateException}; every other
 * failure arrives as the exception the Rust side names (see {@code rust/src/jni/errors.rs}).
 */
final class BloomFilterNative {
  static {
    NativeLibrary.ensureLoaded();
  }

  private BloomFilterNative() {}

  /** The natives {@link NativeFilter} calls for a {@link BloomFilter}. */
  static final NativeFilter.Natives NATIVES =
      new NativeFilter.Natives(
          BloomFilterNative::nBitSize,
          BloomFilterNative::nNumHashes,
          BloomFilterNative::nStrategy,
          BloomFilterNative::nToBytes,
          BloomFilterNative::nEquals,
          BloomFilterNative::nHashCode,
          h ->
              NativeFilter.format(
                  "m=%d, k=%d, strategy=%s, fill=%.2f%%",
                  nBitSize(h),
                  nNumHashes(h),
                  Strategy.ofOrdinal(nStrategy(h)),
                  100.0 * nBitCount(h) / nBitSize(h)));

  static native long nCreate(long expectedInsertions, double fpp, int strategy);

  static native long nCreateBestPractice(long expectedInsertions, double fpp);

  /** The bit count {@code nCreate} gives a MITZ_64 filter for these arguments, without making it. */
  static native long nBitSizeFor(long expectedInsertions, double fpp);

  /** The core's per-key shape for these arguments, packed as m << 8 | k. */
  static native long nPerKeyShape(long distinctItems, double fpp);

  static native long nFromWords(long[] words, int numHashFunctions, int strategy);

  static native void nFree(long handle);

  static native long nCopy(long handle);

  static native boolean nPut(long handle, long key);

  static native boolean nMightContain(long handle, long key);

  /**
   * A direct buffer over the filter's words (owning nothing; see {@link BitsView} for when it
   * may be read), or null if they exceed a buffer's {@code int} capacity.
   */
  static native java.nio.ByteBuffer nWordsView(long handle);

  static native boolean nPutBytes(long handle, byte[] key);

  static native boolean nMightContainBytes(long handle, byte[] key);

  static native boolean nPutAll(long handle, long[] keys);

  static native void nMightContainAll(long handle, long[] keys, boolean[] out);

  static native long[] nRetainAbsent(long handle, long[] keys);

  static native boolean nPutAllRange(long handle, long[] keys, int from, int to);

  static native void nMightContainAllRange(
      long handle, long[] keys, int from, int to, boolean[] out);

  static native long[] nRetainAbsentRange(long handle, long[] keys, int from, int to);

  static native boolean nPutAllPacked(long handle, byte[] data, int[] ends);

  static native void nMightContainAllPacked(long handle, byte[] data, int[] ends, boolean[] out);

  static native boolean nPutAllUtf16(long handle, char[] chars, int[] ends);

  static native void nMightContainAllUtf16(long handle, char[] chars, int[] ends, boolean[] out);

  static native void nMerge(long handle, long other);

  static native void nIntersect(long handle, long other);

  static native boolean nIsCompatible(long handle, long other);

  static native boolean nEquals(long handle, long other);

  static native int nHashCode(long handle);

  static native long nBitSize(long handle);

  static native int nNumHashes(long handle);

  static native int nStrategy(long handle);

  static native long nBitCount(long handle);

  static native long nApproximateElementCount(long handle);

  static native double nExpectedFpp(long handle);

  static native byte[] nToBytes(long handle);

  static native long nFromBytes(byte[] bytes, long maxNumBits)
      throws CorruptFilterException;

  /** toBytes into the front of out: the length, or -(the length out needs) if it is shorter. */
  static native long nEncodeInto(long handle, byte[] out);

  /** fromBytes of bytes[0, length). */
  static native long nFromBytesPrefix(byte[] bytes, int length, long maxNumBits)
      throws CorruptFilterException;

  static native long nTotalLength(byte[] header, long maxNumBits)
      throws CorruptFilterException;

  static native byte[] nToGuava(long handle);

  static native long nFromGuava(byte[] bytes, long maxNumBits)
      throws CorruptFilterException;

  static native long nGuavaTotalLength(byte[] header, long maxNumBits)
      throws CorruptFilterException;

  static native byte[] nToSpark(long handle);

  static native long nFromSpark(byte[] bytes, long maxNumBits)
      throws CorruptFilterException;

  static native long nSparkTotalLength(byte[] header, long maxNumBits)
      throws CorruptFilterException;

  static native long nWithShape(long numBits, int numHashFunctions, int strategy);

  static native void nOrWords(long handle, int wordOffset, long[] words, int count);

  static native byte[] nToRedisBitmap(long handle);

  static native long nFromRedisBitmap(
      byte[] bitmap, long numBits, int numHashFunctions, int strategy);

  /** Test hook: a Rust panic with a runtime message; must arrive as a RuntimeException. */
  static native long nPanicForTest(long value);
}
