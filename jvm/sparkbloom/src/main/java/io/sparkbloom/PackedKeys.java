package io.sparkbloom;

import java.util.Objects;

/**
 * A batch of byte-string keys packed for one native call: every key's bytes one after another in
 * {@link #data}, and each key's end offset in {@link #ends} ({@code rust/src/jni/packed_keys.rs}).
 * One crossing and two array copies per batch, where an object array would cost JNI calls per key.
 * ({@code String[]} batches cross as UTF-16 chars instead: {@link PackedChars}.)
 *
 * <p>As there, the data buffer is reused per thread up to {@link PackedChars#REUSED_CHARS} bytes
 * (the native call copies the keys' bytes, and only those, before it returns); larger batches
 * allocate.
 */
final class PackedKeys {
  private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[0]);

  final byte[] data;
  final int[] ends;

  private PackedKeys(byte[] data, int[] ends) {
    this.data = data;
    this.ends = ends;
  }

  static PackedKeys of(byte[][] keys) {
    return of(Objects.requireNonNull(keys, "keys is null"), 0, keys.length);
  }

  /** The batch of {@code keys[from..to)}. */
  static PackedKeys of(byte[][] keys, int from, int to) {
    KeyArgs.checkSlice(keys, from, to);
    int[] ends = new int[to - from];
    long total = 0;
    for (int i = from; i < to; i++) {
      total += KeyArgs.element(keys, i).length;
      ends[i - from] = KeyArgs.packedEnd(total, i - from, "bytes");
    }
    byte[] data = buffer((int) total);
    int at = 0;
    for (int i = from; i < to; i++) {
      System.arraycopy(keys[i], 0, data, at, keys[i].length);
      at += keys[i].length;
    }
    return new PackedKeys(data, ends);
  }

  /** A byte array of at least {@code length} bytes: this thread's buffer when small enough. */
  private static byte[] buffer(int length) {
    if (length > PackedChars.REUSED_CHARS) {
      return new byte[length];
    }
    byte[] reused = BUFFER.get();
    if (reused.length < length) {
      reused = new byte[Math.max(length, Math.min(PackedChars.REUSED_CHARS, reused.length * 2))];
      BUFFER.set(reused);
    }
    return reused;
  }
}
