package io.sparkbloom;

import java.util.Objects;

/**
 * A batch of string keys packed for one native call as their UTF-16 chars: every key's chars one
 * after another in {@link #chars} ({@code String.getChars}, a vectorized copy, no per-key array),
 * each key's end offset in {@link #ends}. The native side ({@code rust/src/jni/utf16_keys.rs})
 * encodes each key to UTF-8 exactly as {@code String.getBytes(UTF_8)} does (an unpaired surrogate
 * becomes {@code '?'}), so keys hash as {@code put(String)} hashes them; this saves the per-key
 * {@code byte[]} and second copy that packing UTF-8 bytes on the Java side costs.
 *
 * <p>The char buffer is reused per thread up to {@link #REUSED_CHARS} chars (a batch's array is
 * copied by the native call before it returns, so nothing keeps it); larger batches allocate.
 */
final class PackedChars {
  /** Largest per-thread buffer kept between batches (2 MiB of chars). */
  static final int REUSED_CHARS = 1 << 20;
  private static final ThreadLocal<char[]> BUFFER = ThreadLocal.withInitial(() -> new char[0]);

  final char[] chars;
  final int[] ends;

  private PackedChars(char[] chars, int[] ends) {
    this.chars = chars;
    this.ends = ends;
  }

  /**
   * @throws NullPointerException if {@code keys} or an element is null
   * @throws IllegalArgumentException if the keys together hold more chars than a Java array
   */
  static PackedChars of(String[] keys) {
    Objects.requireNonNull(keys, "keys is null");
    int[] ends = new int[keys.length];
    // One pass over the strings (each String and its array are read once, while in cache):
    // the buffer grows if the keys outrun it, which the per-thread buffer makes rare.
    char[] chars = BUFFER.get();
    int at = 0;
    for (int i = 0; i < keys.length; i++) {
      String key = keys[i];
      if (key == null) {
        throw new NullPointerException("keys[" + i + "] is null");
      }
      int length = key.length();
      if (length > chars.length - at) {
        chars = grown(chars, at, (long) at + length, i);
      }
      key.getChars(0, length, chars, at);
      at += length;
      ends[i] = at;
    }
    return new PackedChars(chars, ends);
  }

  /**
   * A buffer of at least {@code needed} chars holding the first {@code used} of {@code chars}:
   * kept as this thread's buffer when at most {@link #REUSED_CHARS}.
   */
  private static char[] grown(char[] chars, int used, long needed, int key) {
    if (needed > FramedReader.MAX_ARRAY_LENGTH) {
      throw new IllegalArgumentException(
          "keys: the first " + (key + 1) + " keys hold more than " + FramedReader.MAX_ARRAY_LENGTH
              + " chars; pass them in smaller batches");
    }
    long doubled = Math.max(needed, Math.max(1024L, 2L * chars.length));
    char[] larger = new char[(int) Math.min(doubled, FramedReader.MAX_ARRAY_LENGTH)];
    System.arraycopy(chars, 0, larger, 0, used);
    if (larger.length <= REUSED_CHARS) {
      BUFFER.set(larger);
    }
    return larger;
  }
}
