package io.sparkbloom;

import java.util.Arrays;
import java.util.Objects;

/**
 * A batch of string keys packed for one native call as their UTF-16 chars: every key's chars one
 * after another in {@link #chars} ({@code String.getChars}, a vectorized copy, no per-key array),
 * each key's end offset in {@link #ends}. The native side ({@code rust/src/jni/utf16_keys.rs})
 * encodes each key to UTF-8 exactly as {@code String.getBytes(UTF_8)} does (an unpaired surrogate
 * becomes {@code '?'}), so keys hash as {@code put(String)} hashes them; this saves the per-key
 * {@code byte[]} and second copy that packing UTF-8 bytes on the Java side costs.
 *
 * <p>Two passes over the strings, lengths then chars: the first pass's loads are independent, so
 * the strings arrive in cache together, where a single pass would wait on each key's copy. {@code
 * getChars} rather than the lossy {@code getBytes(int, int, byte[], int)}, which cannot tell
 * ASCII from other chars. The passes run over chunks of {@link #CHUNK} keys, so the chars pass
 * finds the chunk's strings still in the nearest cache where the lengths pass brought them.
 *
 * <p>The char buffer is reused per thread up to {@link #REUSED_CHARS} chars (a batch's array is
 * copied by the native call before it returns, so nothing keeps it); it grows by doubling as the
 * chunks need, and a larger batch's array is not kept.
 */
final class PackedChars {
  /** Largest per-thread buffer kept between batches (2 MiB of chars). */
  static final int REUSED_CHARS = 1 << 20;
  /** Keys per chunk: the strings a lengths pass touches (about 24 KiB) stay in L1 for the chars. */
  static final int CHUNK = 128;

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
    return of(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /** The batch of {@code keys[from..to)}. */
  static PackedChars of(String[] keys, int from, int to) {
    KeyArgs.checkSlice(keys, from, to);
    int[] ends = new int[to - from];
    char[] chars = BUFFER.get();
    long total = 0;
    for (int start = from; start < to; start += CHUNK) {
      int end = Math.min(to, start + CHUNK);
      int at = (int) total;
      for (int i = start; i < end; i++) {
        total += KeyArgs.element(keys, i).length();
        ends[i - from] = KeyArgs.packedEnd(total, i - from, "chars");
      }
      chars = room(chars, (int) total);
      for (int i = start; i < end; i++) {
        String key = keys[i];
        key.getChars(0, key.length(), chars, at);
        at = ends[i - from];
      }
    }
    if (chars.length <= REUSED_CHARS) {
      BUFFER.set(chars);
    }
    return new PackedChars(chars, ends);
  }

  /**
   * {@code chars} if it holds {@code length} chars, else a copy of it at least twice as long (at
   * most the largest Java array) holding at least {@code length}.
   */
  private static char[] room(char[] chars, int length) {
    if (length <= chars.length) {
      return chars;
    }
    long doubled = Math.min(FramedReader.MAX_ARRAY_LENGTH, 2L * chars.length);
    return Arrays.copyOf(chars, (int) Math.max(length, doubled));
  }
}
