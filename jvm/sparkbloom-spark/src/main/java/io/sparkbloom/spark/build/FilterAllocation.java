package io.sparkbloom.spark.build;

import io.sparkbloom.BloomFilter;
import java.util.function.Supplier;

/**
 * Creates a filter whose size comes from an argument, naming the sizing when the core refuses it.
 * The core refuses a bit array beyond this process's memory limit with {@code
 * FilterExceedsMemoryException}, an {@link IllegalArgumentException}, so a task fails and the
 * application carries on (Spark treats any {@code Error} in a task as fatal); a real {@code
 * OutOfMemoryError} below that limit is left as it is.
 */
public final class FilterAllocation {
  private FilterAllocation() {}

  /**
   * Checks (n, p) by the core's own rules, before any task runs: creates the filter that
   * {@link BloomFilter#create(long, double)} would and frees it at once. Its bit array is zeroed
   * memory that the allocator maps lazily and nothing touches, so even a large filter costs no
   * RAM here.
   *
   * @throws IllegalArgumentException naming the argument that the core rejects, or the sizing
   *     whose filter is larger than this process can allocate
   */
  public static void check(long expectedInsertions, double fpp) {
    bloomFilter(expectedInsertions, fpp).close();
  }

  /** {@link BloomFilter#create(long, double)}, a refused sizing named in the exception. */
  public static BloomFilter bloomFilter(long expectedInsertions, double fpp) {
    return create(() -> BloomFilter.create(expectedInsertions, fpp),
        "expectedInsertions " + expectedInsertions + " at fpp " + fpp);
  }

  /**
   * {@code factory.get()}.
   *
   * @param what the sizing, for the message, e.g. "Sizing.fixed(100000000000, 0.01)"
   * @throws IllegalArgumentException naming {@code what} if the core rejects the sizing, among
   *     others for a filter beyond the process's memory limit
   */
  public static <F> F create(Supplier<F> factory, String what) {
    try {
      return factory.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
    }
  }
}
