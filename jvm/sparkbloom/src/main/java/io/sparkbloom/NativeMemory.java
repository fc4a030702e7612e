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
 *
 * <p>After requesting a collection, the allocating thread waits while the Cleaner is still
 * freeing (see {@link #awaitCleaner}): on a busy machine a thread that creates filters in a loop
 * can otherwise outrun the single Cleaner thread, and the garbage it has not freed yet keeps
 * piling up. {@code java.nio} blocks direct-buffer allocation for the same reason.
 */
final class NativeMemory {
  static final String TRIGGER_PROPERTY = "sparkbloom.native.gcTriggerBytes";

  private static final long TRIGGER_BYTES = Long.getLong(TRIGGER_PROPERTY, 256L << 20);
  private static final AtomicLong OUTSTANDING = new AtomicLong();
  /** The outstanding count at which the next collection is requested. */
  private static final AtomicLong NEXT_TRIGGER = new AtomicLong(TRIGGER_BYTES);
  /**
   * Waiting for the Cleaner ends after this many milliseconds without progress: live filters are
   * never freed, so a program that legitimately holds many pays only this per collection.
   */
  private static final int IDLE_LIMIT_MS = 20;
  /** And in any case after this many milliseconds, so no allocation stalls for long. */
  private static final int WAIT_LIMIT_MS = 2_000;

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
      awaitCleaner();
    }
  }

  /**
   * Sleeps in 1 ms steps while the outstanding count keeps falling, that is while the Cleaner is
   * freeing what the collection found, and returns once it has stopped falling for {@link
   * #IDLE_LIMIT_MS} (all garbage freed, or the rest is live) or after {@link #WAIT_LIMIT_MS}.
   */
  private static void awaitCleaner() {
    long last = OUTSTANDING.get();
    int idle = 0;
    for (int step = 0; step < WAIT_LIMIT_MS && idle < IDLE_LIMIT_MS; step++) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // keep the caller's interrupt; stop waiting
        return;
      }
      long now = OUTSTANDING.get();
      if (now < last) {
        last = now;
        idle = 0;
      } else {
        idle++;
      }
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
