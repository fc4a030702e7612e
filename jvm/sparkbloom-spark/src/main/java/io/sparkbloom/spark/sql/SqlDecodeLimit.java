package io.sparkbloom.spark.sql;

import org.apache.spark.sql.internal.SQLConf;

/**
 * The largest filter the SQL functions decode, in bits: the Spark SQL setting {@value #KEY}
 * ({@code --conf} at launch, or {@code SET} in a session), default {@value #DEFAULT} (2<sup>35</sup>
 * bits, 4 GiB of native memory).
 *
 * <p>Filter bytes come from tables, and a valid sparse filter of 37 bytes can declare 2<sup>43</sup>
 * bits (1 TiB), which decoding allocates (lazily) before the first query; several tasks may decode
 * such a value at once. The default is far above any per-key filter (10<sup>8</sup> items at p =
 * 10<sup>−6</sup> take 2.9·10<sup>9</sup> bits, 359 MB) and still one filter that an executor can
 * hold; raise it to read larger ones. A filter above the limit fails the query with an error
 * naming the function, the bits it declares and this setting.
 *
 * <p>Read when a call is built (on the driver, as the query is analyzed, or when a DataFrame
 * helper makes its column) and carried in the expression, as the executors do not see the
 * session's settings.
 */
public final class SqlDecodeLimit {
  private SqlDecodeLimit() {}

  /** The Spark SQL setting. */
  public static final String KEY = "spark.sparkbloom.sql.maxNumBits";

  /** The limit when {@value #KEY} is not set: 2<sup>35</sup> bits. */
  public static final long DEFAULT = 1L << 35;

  /**
   * The limit that the current session's {@value #KEY} sets, or {@value #DEFAULT}.
   *
   * @throws IllegalArgumentException naming the setting if it is not a whole number {@code >= 0}
   */
  public static long current() {
    String value = SQLConf.get().getConfString(KEY, null);
    if (value == null) {
      return DEFAULT;
    }
    long bits;
    try {
      bits = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(KEY + ": \"" + value + "\" is not a whole number of bits", e);
    }
    if (bits < 0) {
      throw new IllegalArgumentException(KEY + ": " + bits + " is negative");
    }
    return bits;
  }
}
