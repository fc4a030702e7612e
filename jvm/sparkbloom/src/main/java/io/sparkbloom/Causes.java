package io.sparkbloom;

/**
 * The cause an exception of this library may chain: none that holds an {@link Error}. Spark
 * searches a task failure's cause chain for fatal errors ({@code OutOfMemoryError} among them)
 * and stops the executor, in local mode the application, for one found there; an exception that
 * reports a failed call names such an Error in its message instead.
 */
final class Causes {
  private Causes() {}

  /** {@code t} if no throwable of its cause chain is an {@link Error}, else null. */
  static Throwable withoutErrors(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof Error) {
        return null;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return t;
  }
}
