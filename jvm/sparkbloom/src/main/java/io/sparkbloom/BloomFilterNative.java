package io.sparkbloom;

/**
 * The native methods only {@link BloomFilter} has (those of both filter classes are {@link
 * NativeFilter}'s; the JNI exports are in {@code rust/src/jni/bloom_filter_native.rs}, {@code
 * bloom_filter_formats.rs} and {@code redis_layout.rs}, one Rust function per method). Loading
 * this class loads the library.
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

  static native long nCreateBestPractice(long expectedInsertions, double fpp);

  /** The bit count {@code nCreate} gives a MITZ_64 filter for these arguments, without making it. */
  static native long nBitSizeFor(long expectedInsertions, double fpp);

  /** The core's per-key shape for these arguments, packed as m << 8 | k. */
  static native long nPerKeyShape(long distinctItems, double fpp);

  static native long nFromWords(long[] words, int numHashFunctions, int strategy);

  /**
   * A direct buffer over the filter's words (owning nothing; see {@link BitsView} for when it
   * may be read), or null if they exceed a buffer's {@code int} capacity.
   */
  static native java.nio.ByteBuffer nWordsView(long handle);

  static native boolean nPutAllPacked(long handle, byte[] data, int[] ends);

  static native void nMightContainAllPacked(long handle, byte[] data, int[] ends, boolean[] out);

  static native boolean nPutAllUtf16(long handle, char[] chars, int[] ends);

  static native void nMightContainAllUtf16(long handle, char[] chars, int[] ends, boolean[] out);

  static native void nIntersect(long handle, long other);

  static native long nBitCount(long handle);

  static native long nApproximateElementCount(long handle);

  static native double nExpectedFpp(long handle);

  /** toBytes into the front of out: the length, or -(the length out needs) if it is shorter. */
  static native long nEncodeInto(long handle, byte[] out);

  /** fromBytes of bytes[0, length). */
  static native long nFromBytesPrefix(byte[] bytes, int length, long maxNumBits)
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

  static native void nOrWords(long handle, int wordOffset, long[] words, int count);

  static native byte[] nToRedisBitmap(long handle);

  static native long nFromRedisBitmap(
      byte[] bitmap, long numBits, int numHashFunctions, int strategy);

  /** The Redis helper's shape for these arguments, packed as m << 8 | k. */
  static native long nRedisHelperShape(long expectedInsertions, double fpp);

  /** The k GETBIT offsets of each key of keys[from, to), key after key. */
  static native long[] nRedisOffsets(
      long numBits, int numHashFunctions, int strategy, long[] keys, int from, int to);

  static native long[] nRedisOffsetsPacked(
      long numBits, int numHashFunctions, int strategy, byte[] data, int[] ends);

  static native long[] nRedisOffsetsUtf16(
      long numBits, int numHashFunctions, int strategy, char[] chars, int[] ends);
}
