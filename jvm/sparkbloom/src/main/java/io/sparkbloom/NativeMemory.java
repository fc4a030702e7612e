package io.sparkbloom;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the native bytes held by filters not yet freed, and asks for a garbage collection when
 * that count has grown by {@value #TRIGGER_PROPERTY} bytes (default 256 MiB) since the last
 * request, the way {@code java.nio} does for direct buffers.
 *
 * <p>Why: the garbage collector sees only the ~100 heap bytes of a {@link BloomFilter}, not its
 * native bit array, so a program that drops many filters without closing them could pile up
 * gigabytes of native garbage between two collections. Filters that are closed never trigger
 * a collection, since closing lowers the count. {@code -Dsparkbloom.native.gcTriggerBytes=0}
 * turns this off.
 */
final class NativeMemory {
  static final String TRIGGER_PROPERTY = "sparkbloom.native.gcTriggerBytes";

  private static final long TRIGGER_BYTES = Long.getLong(TRIGGER_PROPERTY, 256L << 20);
  private static final AtomicLong OUTSTANDING = new AtomicLong();
  /** The outstanding count at which the next collection is requested. */
  private static final AtomicLong NEXT_TRIGGER = new AtomicLong(TRIGGER_BYTES);

  private NativeMemory() {}

  /** Native bytes held by live (or unreachable but not yet freed) filters. */
  static long outstandingBytes() {
    return OUTSTANDING.get();
  }

  static void allocated(long bytes) {
    long now = OUTSTANDING.addAndGet(bytes);
    if (TRIGGER_BYTES <= 0) {
      return;
    }
    long trigger = NEXT_TRIGGER.get();
    if (now >= trigger && NEXT_TRIGGER.compareAndSet(trigger, now + TRIGGER_BYTES)) {
      System.gc(); // the Cleaner then frees what became unreachable
    }
  }

  static void freed(long bytes) {
    long now = OUTSTANDING.addAndGet(-bytes);
    if (TRIGGER_BYTES <= 0) {
      return;
    }
    // Freed memory moves the next trigger down again, so it stays TRIGGER_BYTES above the low
    // water mark rather than above the peak.
    long lowered = now + TRIGGER_BYTES;
    long trigger = NEXT_TRIGGER.get();
    while (lowered < trigger && !NEXT_TRIGGER.compareAndSet(trigger, lowered)) {
      trigger = NEXT_TRIGGER.get();
    }
  }
}
