package io.sparkbloom;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;

/**
 * Owns one native object's life: its handle (address), and freeing it exactly once, never under
 * a running native call. The concurrency rules, stated once:
 *
 * <ol>
 *   <li>Every native call reads the handle through {@link #handle()} and keeps its owner
 *       reachable until the call returns ({@code Reference.reachabilityFence}), so the {@link
 *       Cleaner} cannot free the memory under it.
 *   <li>{@link #close()} frees at once only if no thread but the creator ever used the object;
 *       otherwise a call may be in flight, and the Cleaner frees the memory once the object is
 *       unreachable. A thread other than the creator marks the object {@code shared} before it
 *       reads the handle; {@code close()} zeroes the handle before it reads {@code shared}. Both
 *       volatile: either the caller sees 0 (and throws), or {@code close()} sees it shared
 *       (Dekker's pattern under the Java memory model's total order of volatile accesses).
 * </ol>
 *
 * The native side writes with atomic instructions only, so any number of threads may call into
 * the object at once. Thread ids, not {@code Thread} objects, are kept (ids are never reused, and
 * Spark's {@code SizeEstimator} would weigh all a Thread reaches), and the object holds its small
 * {@link Free} action, not the {@code Cleaner.Cleanable}, which links every registered object.
 */
abstract class NativeHandle implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  private transient volatile long handle;
  private final transient Free free;
  private final transient long creatorThreadId = Thread.currentThread().getId();
  private transient volatile boolean shared;

  /** Owns {@code handle} (of {@code nativeBytes}), which {@code freeNative} frees. */
  NativeHandle(long handle, long nativeBytes, LongConsumer freeNative) {
    this.handle = handle;
    this.free = new Free(handle, nativeBytes, freeNative);
    CLEANER.register(this, free);
    NativeMemory.allocated(nativeBytes);
  }

  /** Frees once, by close() or the Cleaner; must not reference the owner. */
  private static final class Free extends AtomicBoolean implements Runnable {
    private static final long serialVersionUID = 1L;
    private final long handle;
    private final long bytes;
    private final transient LongConsumer freeNative;

    Free(long handle, long bytes, LongConsumer freeNative) {
      this.handle = handle;
      this.bytes = bytes;
      this.freeNative = freeNative;
    }

    @Override
    public void run() {
      if (compareAndSet(false, true)) {
        freeNative.accept(handle);
        NativeMemory.freed(bytes);
      }
    }
  }

  /**
   * Closes this object: later calls throw {@link IllegalStateException}; a second close does
   * nothing. Frees the native memory now if only the creating thread ever used it, else leaves it
   * to the Cleaner.
   */
  @Override
  public void close() {
    if (handle != 0) {
      handle = 0;
      if (!shared && Thread.currentThread().getId() == creatorThreadId) {
        free.run();
      }
    }
  }

  /**
   * Whether {@link #close()} was called.
   *
   * @return {@code true} once closed
   */
  public boolean isClosed() {
    return handle == 0;
  }

  /** The handle for a native call (rules 1 and 2); throws if closed. */
  final long handle() {
    if (Thread.currentThread().getId() != creatorThreadId && !shared) {
      shared = true;
    }
    long h = handle;
    if (h == 0) {
      throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }
    return h;
  }
}
