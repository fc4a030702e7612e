package io.sparkbloom;

/**
 * One reusable {@code byte[]} per thread for the serial proxy {@link Ser}: a filter is encoded
 * into it and written to the stream from it, and read into it and decoded from it, so a round
 * trip through Java serialization allocates no array as large as the filter (allocating and
 * zeroing those arrays was most of what the proxy cost beyond the JDK's own work).
 *
 * <p>{@link #take} hands the buffer out and {@link #give} returns it, so a nested use on the same
 * thread (an {@code OutputStream} that itself serializes a filter) gets a fresh array instead of
 * one in use. Only buffers up to {@link #MAX_KEPT} bytes are kept: a thread holds at most 1 MiB.
 */
final class SerialBuffer {
  /** The largest buffer a thread keeps between uses. */
  static final int MAX_KEPT = 1 << 20;

  /** The first buffer's size: a (10^4, 10^-3) filter's dense bytes fit. */
  private static final int INITIAL = 32 << 10;

  private static final ThreadLocal<byte[][]> KEPT = ThreadLocal.withInitial(() -> new byte[1][]);

  private SerialBuffer() {}

  /** A buffer of at least {@code minLength} bytes, owned by the caller until {@link #give}. */
  static byte[] take(int minLength) {
    byte[][] slot = KEPT.get();
    byte[] kept = slot[0];
    if (kept != null && kept.length >= minLength) {
      slot[0] = null;
      return kept;
    }
    return new byte[Math.max(minLength, INITIAL)];
  }

  /** Hands {@code buffer} back for the next use on this thread, unless it is too large. */
  static void give(byte[] buffer) {
    if (buffer.length > MAX_KEPT) {
      return;
    }
    byte[][] slot = KEPT.get();
    if (slot[0] == null || slot[0].length < buffer.length) {
      slot[0] = buffer;
    }
  }
}
