package io.sparkbloom;

/**
 * A filter, or a result sized by one, larger than this process can ever hold: its native bit
 * array above the process's memory limit (the cgroup's {@code memory.max}, else physical
 * memory), or a Java array above the heap's maximum ({@code -Xmx}). Thrown by {@code create},
 * {@code withShape}, {@code copy} and the conversions, before anything is allocated; the message
 * names the size and the limit.
 *
 * <p>An {@link IllegalArgumentException}, never an {@code Error}: the size follows from the
 * caller's arguments, and Spark reports or retries an exception but treats an {@code Error} as
 * fatal to the executor. Only memory that runs out below the limit is an {@link
 * OutOfMemoryError}. Decoders refuse such input with {@link FilterTooLargeException} instead,
 * since the size there comes from bytes, not from an argument.
 */
public final class FilterExceedsMemoryException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message names the size and the limit it exceeds. */
  public FilterExceedsMemoryException(String message) {
    super(message);
  }
}
