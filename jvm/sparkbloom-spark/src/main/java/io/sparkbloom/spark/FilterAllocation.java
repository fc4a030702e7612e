package io.sparkbloom.spark;

import java.util.function.Supplier;

/**
 * Creates a filter whose size comes from an argument, naming the sizing when the core refuses it.
 * The core refuses a bit array beyond this process's memory limit with {@code
 * FilterExceedsMemoryException}, an {@link IllegalArgumentException}, so a task fails and the
 * application carries on (Spark treats any {@code Error} in a task as fatal); a real {@code
 * OutOfMemoryError} below that limit is left as it is.
 */
final class FilterAllocation {
  private FilterAllocation() {}

  /**
   * {@code factory.get()}.
   *
   * @param what the sizing, for the message, e.g. "Sizing.fixed(100000000000, 0.01)"
   * @throws IllegalArgumentException naming {@code what} if the core rejects the sizing, among
   *     others for a filter beyond the process's memory limit
   */
  static <F> F create(Supplier<F> factory, String what) {
    try {
      return factory.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    }
  }
}
