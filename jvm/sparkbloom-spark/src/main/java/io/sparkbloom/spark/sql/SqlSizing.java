package io.sparkbloom.spark.sql;

import io.sparkbloom.spark.Sizing;
import java.util.function.Supplier;
import org.apache.spark.sql.types.Decimal;

/**
 * The sizing arguments of the SQL build functions, n and p, checked by the rules the filter is
 * made by, with errors that start with the SQL call ({@code "sparkbloom_build(item, n, p)"}) and
 * name the argument: the same checks and messages whether the values are constants checked when
 * the query is analyzed ({@link SqlFunction#build}) or values a row brings at run time.
 */
final class SqlSizing {
  private SqlSizing() {}

  /**
   * Per-key sizing at {@code p}.
   *
   * @throws IllegalArgumentException naming {@code call} and p unless p is in (0, 1)
   */
  static Sizing perKey(String call, double p) {
    return Sizing.perKeyCount(checkP(call, p));
  }

  /**
   * Fixed sizing for n items at p, checked by the core's rules (a filter larger than this
   * process can allocate is refused).
   *
   * @throws IllegalArgumentException naming {@code call} and the argument refused
   */
  static Sizing fixed(String call, long n, double p) {
    return fixed(call, n, p, () -> Sizing.fixed(n, p));
  }

  /**
   * What {@code make} makes for n items at p (a builder that checks them by the core's rules),
   * p checked first.
   *
   * @throws IllegalArgumentException naming {@code call} and the argument refused
   */
  static <T> T fixed(String call, long n, double p, Supplier<T> make) {
    checkP(call, p);
    try {
      return make.get();
    } catch (IllegalArgumentException e) {
      // p is in (0, 1): what the core refuses is n, or the filter that n gives at this p
      throw new IllegalArgumentException(call + ": n = " + n + " at p = " + p + " is refused ("
          + reason(e) + ")", e);
    }
  }

  /** The error of a row whose sizing differs from its group's, {@code first} and {@code then} named. */
  static IllegalArgumentException differs(String call, String first, String then) {
    return new IllegalArgumentException(call + ": " + sizingArguments(call) + " must be the same"
        + " for every row of a group: got (" + first + ") and then (" + then + ")");
  }

  /** The error of a null sizing argument. */
  static IllegalArgumentException isNull(String call) {
    return new IllegalArgumentException(call + ": " + sizingArguments(call) + " must not be null");
  }

  /** The sizing arguments {@code call} takes: "n and p" for fixed sizing, "p" for per-key. */
  private static String sizingArguments(String call) {
    return call.endsWith("n, p)") ? "n and p" : "p";
  }

  /**
   * {@code p} if it is in (0, 1), the range of both sizings.
   *
   * @throws IllegalArgumentException naming {@code call} and p if not
   */
  static double checkP(String call, double p) {
    if (!(p > 0 && p < 1)) {
      throw new IllegalArgumentException(call + ": p must be in (0, 1), got " + p);
    }
    return p;
  }

  /** The core's own reason, without the sizing prefix {@code FilterAllocation} adds to it. */
  private static String reason(IllegalArgumentException e) {
    Throwable cause = e.getCause();
    return cause instanceof IllegalArgumentException && cause.getMessage() != null
        ? cause.getMessage() : e.getMessage();
  }

  /** A sizing argument's value as Spark evaluates it (a {@link Decimal} or a boxed number), as p. */
  static double toDouble(Object value) {
    return value instanceof Decimal ? ((Decimal) value).toDouble() : ((Number) value).doubleValue();
  }

  /** As {@link #toDouble}, as n. */
  static long toLong(Object value) {
    return value instanceof Decimal ? ((Decimal) value).toLong() : ((Number) value).longValue();
  }
}
