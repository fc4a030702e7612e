package io.sparkbloom.spark;

import java.util.function.Supplier;

/**
 * Creates a filter whose size comes from an argument, turning the core's refusal to allocate it
 * into an {@link IllegalArgumentException} that names the sizing. Spark treats any {@code Error}
 * thrown in a task, or found in its cause chain, as fatal to the executor (in local mode, to the
 * whole application), so the {@code OutOfMemoryError} the core throws for a bit array beyond this
 * process's memory limit must not leave a task: only its message is kept, never the error itself
 * as a cause.
 */
final class FilterAllocation {
  private FilterAllocation() {}

  /**
   * {@code factory.get()}.
   *
   * @param what the sizing, for the message, e.g. "Sizing.fixed(100000000000, 0.01)"
   * @throws IllegalArgumentException naming {@code what} if the core rejects the sizing or the
   *     filter cannot be allocated
   */
  static <F> F create(Supplier<F> factory, String what) {
    try {
      return factory.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    } catch (OutOfMemoryError e) {
      throw new IllegalArgumentException(what + ": the filter is too large for this process: "
          + e.getMessage());
    }
  }
}
