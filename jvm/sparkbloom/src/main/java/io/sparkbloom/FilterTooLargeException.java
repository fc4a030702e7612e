package io.sparkbloom;

/**
 * Bytes that describe a filter larger than the reader accepts: above the decode limit (a
 * {@code maxNumBits} argument, or the system property {@value DecodeLimit#PROPERTY}), above what
 * a Java array can hold, or too large to allocate. A few bytes of sparse payload can declare a
 * filter of 2<sup>43</sup> bits (1 TiB), so a service reading bytes it does not trust sets a
 * limit. The message names the size and the limit.
 *
 * <p>A subclass of {@link CorruptFilterException}, so code that catches that one keeps refusing
 * such input: a checked exception, never an {@code Error} (Spark treats an {@code Error} as
 * fatal to the executor).
 */
public final class FilterTooLargeException extends CorruptFilterException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message names the size and the limit it exceeds. */
  public FilterTooLargeException(String message) {
    super(message);
  }
}
