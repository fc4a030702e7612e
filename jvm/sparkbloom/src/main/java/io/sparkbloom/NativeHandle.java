package io.sparkbloom;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongPredicate;
import java.util.function.LongToDoubleFunction;
import java.util.function.LongToIntFunction;
import java.util.function.LongUnaryOperator;

/**
 * Owns one native object for a Java class (a filter): the handle, freeing it exactly once, and
 * the rules that keep a native call from ever touching freed memory.
 *
 * <ul>
 *   <li>{@link #close()} frees at once when only the creating thread ever used the object;
 *       otherwise a call from another thread may still be running, so it only marks the object
 *       closed and the {@link Cleaner} frees it once no thread can reach it.
 *   <li>A native call gets the handle through {@link #handle()} (0 once closed throws {@link
 *       IllegalStateException}) and keeps this object reachable until the call returns ({@code
 *       Reference.reachabilityFence}), so the Cleaner cannot free the memory under it. The
 *       {@code call}/{@code test}/{@code run} helpers do both.
 *   <li>The native bytes are counted in {@link NativeMemory}, which asks for a collection when
 *       unclosed objects pile up.
 * </ul>
 */
abstract class NativeHandle implements AutoCloseable {
  /** Frees the native memory of objects that become unreachable without {@code close()}. */
  private static final Cleaner CLEANER = Cleaner.create();

  /** The native object's address; 0 once closed. Never serialized. */
  private transient volatile long handle;

  /**
   * Frees the native memory, once, on close() or when this object becomes unreachable. The
   * object holds this small action, not the {@code Cleaner.Cleanable}: a Cleanable is linked to
   * every other registered one, and Spark's {@code SizeEstimator} (caching, shuffle maps) walks
   * every field it can reach, so one filter would have "weighed" all live filters.
   */
  private final transient Free free;

  /**
   * The id of the thread that created this object (a number, not the {@code Thread}: Spark's
   * {@code SizeEstimator} would weigh everything a Thread reaches). Thread ids are never reused.
   */
  private final transient long creatorThreadId = Thread.currentThread().getId();

  /**
   * Set (once, for good) when a thread other than the creator uses this object: from then on
   * {@code close()} cannot know whether a native call is in flight, so it leaves the memory to
   * the Cleaner. Volatile, paired with {@code handle}: a thread writes this then reads {@code
   * handle}; {@code close()} writes {@code handle} then reads this; so either the caller sees
   * the object closed, or {@code close()} sees it shared (Dekker's pattern, sound under the Java
   * memory model's total order of volatile accesses).
   */
  private transient volatile boolean shared;

  /**
   * Set while the creator writes through a native call without atomic instructions ({@link
   * #beginUnsharedWrite}). A thread other than the creator waits for it to clear before each of
   * its native calls, after marking this object {@link #shared}: the creator writes this then
   * reads {@code shared}, the other thread writes {@code shared} then reads this, so either the
   * creator sees the object shared and writes atomically, or the other thread waits for the plain
   * write to end (Dekker's pattern again). Later writes by the creator see {@code shared}.
   */
  private transient volatile boolean unsharedWrite;

  /**
   * Takes ownership of {@code handle}, which {@code freeNative} frees; {@code nativeBytes} is
   * what it holds, for {@link NativeMemory}.
   */
  NativeHandle(long handle, long nativeBytes, LongConsumer freeNative) {
    this.handle = handle;
    this.free = new Free(handle, nativeBytes, freeNative);
    CLEANER.register(this, free);
    NativeMemory.allocated(nativeBytes);
  }

  /**
   * The cleaning action, run by {@code close()} or by the Cleaner, whichever comes first; the
   * second run does nothing. A static class holding only the handle: it must not reference the
   * owner, or the owner would never become phantom reachable.
   */
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
   * Closes this object: later calls on it throw {@link IllegalStateException}; a second {@code
   * close()} does nothing. The native memory is freed now if only the creating thread ever used
   * the object and closes it; otherwise the Cleaner frees it once the object is unreachable.
   */
  @Override
  public void close() {
    if (handle != 0) {
      handle = 0;
      if (!shared && Thread.currentThread().getId() == creatorThreadId) {
        free.run(); // frees at most once, even if two threads close at once or the Cleaner runs
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

  /** The handle for a native call; throws if closed. */
  final long handle() {
    long h = peekHandle();
    if (h == 0) {
      throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }
    return h;
  }

  /**
   * The handle, 0 once closed; first marks this object shared if this thread is not its creator
   * (see {@link #shared}). Every read of the handle for a native call goes through here.
   */
  final long peekHandle() {
    if (Thread.currentThread().getId() != creatorThreadId) {
      if (!shared) {
        shared = true;
      }
      while (unsharedWrite) {
        Thread.onSpinWait(); // one batch of the creator's, at most: it sees shared from now on
      }
    }
    return handle;
  }

  /**
   * Whether the calling thread may now write the native memory without atomic instructions: it
   * created this object and no other thread has used it, so no other native call can run on
   * it until {@link #endUnsharedWrite()} (other threads wait in {@link #peekHandle()}). A plain
   * read-modify-write of a word costs a fraction of a locked one, and a filter built by one
   * thread (a Spark task's per-user filters) never needs the lock. On {@code true} the caller
   * must call {@code endUnsharedWrite()} in a {@code finally}.
   */
  final boolean beginUnsharedWrite() {
    if (shared || Thread.currentThread().getId() != creatorThreadId) {
      return false;
    }
    unsharedWrite = true;
    if (shared) { // another thread arrived meanwhile: it may be in a native call already
      unsharedWrite = false;
      return false;
    }
    return true;
  }

  /** Whether a thread other than the creator has used this object (for tests). */
  final boolean isShared() {
    return shared;
  }

  /** Ends what {@link #beginUnsharedWrite()} began. */
  final void endUnsharedWrite() {
    unsharedWrite = false;
  }

  // Native calls with the handle, keeping this object reachable until they return. The hot
  // single-key calls of subclasses write the same try/finally out by hand: a capturing lambda
  // there costs an allocation per key unless the JIT removes it.

  final <R> R call(LongFunction<R> nativeCall) {
    try {
      return nativeCall.apply(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final boolean test(LongPredicate nativeCall) {
    try {
      return nativeCall.test(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A writing native call, told whether it may set bits without atomic instructions. */
  @FunctionalInterface
  interface Write {
    boolean call(long handle, boolean unshared);
  }

  /**
   * Makes {@code write} with {@code unshared} true when {@link #beginUnsharedWrite()} allows it
   * (then ends it), else false.
   */
  final boolean write(Write write) {
    try {
      long handle = handle();
      if (beginUnsharedWrite()) {
        try {
          return write.call(handle, true);
        } finally {
          endUnsharedWrite();
        }
      }
      return write.call(handle, false);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final long callLong(LongUnaryOperator nativeCall) {
    try {
      return nativeCall.applyAsLong(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final int callInt(LongToIntFunction nativeCall) {
    try {
      return nativeCall.applyAsInt(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final double callDouble(LongToDoubleFunction nativeCall) {
    try {
      return nativeCall.applyAsDouble(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  final void run(LongConsumer nativeCall) {
    try {
      nativeCall.accept(handle());
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /**
   * A native call on the handles of this object and {@code other} (not null), both kept
   * reachable.
   */
  final <R> R call(NativeHandle other, PairCall<R> nativeCall) {
    Objects.requireNonNull(other, "other is null");
    try {
      return nativeCall.apply(handle(), other.handle());
    } finally {
      Reference.reachabilityFence(this);
      Reference.reachabilityFence(other);
    }
  }

  /** A native call on two handles that returns nothing (merge, intersect, subtract). */
  final void run(NativeHandle other, PairRun nativeCall) {
    call(
        other,
        (h, o) -> {
          nativeCall.apply(h, o);
          return null;
        });
  }

  /**
   * A single-key native call with a {@code long} key. The native method is passed as a
   * non-capturing method reference and the key as an argument, so no lambda is allocated per key.
   */
  final boolean testKey(LongKeyCall nativeCall, long key) {
    try {
      return nativeCall.apply(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** As {@link #testKey}, for a native call that returns an {@code int}. */
  final int callIntKey(LongKeyIntCall nativeCall, long key) {
    try {
      return nativeCall.apply(handle(), key);
    } finally {
      Reference.reachabilityFence(this);
    }
  }

  /** A native call with the handle and a {@code long} key. */
  interface LongKeyCall {
    boolean apply(long handle, long key);
  }

  /** A native call with the handle and a {@code long} key, returning an {@code int}. */
  interface LongKeyIntCall {
    int apply(long handle, long key);
  }

  /** A native call on two handles. */
  interface PairCall<R> {
    R apply(long handle, long other);
  }

  /** A native call on two handles that returns nothing. */
  interface PairRun {
    void apply(long handle, long other);
  }

  // What both filter types do the same way around their natives.

  /**
   * {@code expectedInsertions} as the native sizing takes it: negative is refused, 0 counts as 1
   * (as in Guava); {@code strategy} must not be null.
   */
  static long insertionsToSize(long expectedInsertions, Strategy strategy) {
    if (expectedInsertions < 0) {
      throw new IllegalArgumentException(
          "invalid argument expectedInsertions: " + expectedInsertions + " is negative");
    }
    Objects.requireNonNull(strategy, "strategy is null");
    return expectedInsertions == 0 ? 1 : expectedInsertions;
  }

  /** A string key as its UTF-8 bytes (Guava's {@code Funnels.stringFunnel(UTF_8)}). */
  static byte[] utf8(String key) {
    Objects.requireNonNull(key, "key is null");
    return key.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * {@code equals} of a native-backed value: the same class, both open, and {@code
   * nativeEquals} says the contents are equal. A closed object equals only itself.
   */
  final boolean contentEquals(Object o, PairCall<Boolean> nativeEquals) {
    if (this == o) {
      return true;
    }
    if (o == null || o.getClass() != getClass()) {
      return false;
    }
    NativeHandle other = (NativeHandle) o;
    if (isClosed() || other.isClosed()) {
      return false;
    }
    try {
      return call(other, nativeEquals);
    } catch (IllegalStateException closedMeanwhile) {
      return false;
    }
  }

  /** {@code hashCode} consistent with {@link #contentEquals}; identity once closed. */
  final int contentHash(LongToIntFunction nativeHashCode) {
    try {
      return callInt(nativeHashCode);
    } catch (IllegalStateException closed) {
      return System.identityHashCode(this);
    }
  }

  /**
   * {@code toString}: the class's simple name, then {@code {fields}} formatted ({@link
   * Locale#ROOT}) from the natives, or {@code {closed}}.
   */
  final String describe(LongFunction<String> fields) {
    String name = getClass().getSimpleName();
    try {
      return name + "{" + call(fields) + "}";
    } catch (IllegalStateException closed) {
      return name + "{closed}";
    }
  }

  static String format(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
