package io.sparkbloom.spark.build;

import org.apache.spark.SparkConf;
import org.apache.spark.sql.internal.SQLConf;

/**
 * The most distinct items a per-key sized build buffers for one group: the Spark conf {@value
 * #KEY}, default {@value #DEFAULT} (2<sup>20</sup>). Per-key sizing knows a group's filter size
 * only once all its distinct items are counted, so it holds them in the executor's heap ({@link
 * DistinctLongs}); a group past the limit fails its task with an {@link IllegalArgumentException}
 * naming the group (the key where the build knows it), the limit, this conf and what to use
 * instead, before the buffer grows past it. Without a limit such a group (a global aggregate over
 * a whole table, a key holding most rows) grows the buffer until the heap runs out, and an {@code
 * OutOfMemoryError} stops the executor, in local mode the application.
 *
 * <p>The default fits a small executor: a 512 MiB heap running two tasks. A buffer of n distinct
 * items holds at most 2n slots of 8 bytes (16 MiB at the default), so two such buffers take under
 * half of the 85 MiB Spark leaves to user objects in that heap ((512 - 300 reserved) * 0.4). At
 * its peak, while its array is sorted or grows (a second array of up to 2n slots) and while it
 * merges a partial buffer read from the shuffle (that buffer and its bytes besides), a buffer
 * takes under {@value #PEAK_BYTES_PER_ITEM} bytes per item, 48 MiB: two tasks at that peak hold
 * under a fifth of the heap. A group that large is far from what per-key sizing is
 * for (a user's hundreds of items; its filter of 2<sup>20</sup> items at p = 0.01 is 1.2 MB): fixed
 * sizing builds it without any buffer. Raise the limit for executors with the memory, about {@value
 * #PEAK_BYTES_PER_ITEM} bytes per item for each task they run at once.
 *
 * <p>Read on the driver: by the SQL aggregates from the session's conf when the call is built
 * ({@code --conf} at launch, or {@code SET} in a session), by the RDD builds from the {@code
 * SparkContext}'s conf when they are called; the value then travels with the aggregate or the
 * job, as the executors do not see the session's settings.
 */
public final class PerKeyBufferLimit {
  private PerKeyBufferLimit() {}

  /** The Spark conf. */
  public static final String KEY = "spark.sparkbloom.perKey.maxBufferedItems";

  /** The limit when {@value #KEY} is not set. */
  public static final int DEFAULT = 1 << 20;

  /** The largest limit: a buffer's 2n slots still fit one Java array. */
  public static final int MAX = DistinctLongs.MAX_ITEMS / 2;

  /**
   * Heap per buffered item at a buffer's peak, bytes: 2n slots held and up to 2n more allocated
   * while it grows or is sorted (32), plus, while merging, the partial buffer read from the
   * shuffle and its bytes (16).
   */
  public static final int PEAK_BYTES_PER_ITEM = 48;

  /**
   * The limit the current SQL session's {@value #KEY} sets, or {@value #DEFAULT}.
   *
   * @throws IllegalArgumentException naming the conf if its value is not a whole number in [1,
   *     {@link #MAX}]
   */
  public static int ofSession() {
    return parse(SQLConf.get().getConfString(KEY, null));
  }

  /**
   * The limit {@code conf}'s {@value #KEY} sets, or {@value #DEFAULT}.
   *
   * @throws IllegalArgumentException naming the conf if its value is not a whole number in [1,
   *     {@link #MAX}]
   */
  public static int of(SparkConf conf) {
    return parse(conf.get(KEY, null));
  }

  /** The limit {@code value} sets; {@value #DEFAULT} for null. */
  static int parse(String value) {
    if (value == null) {
      return DEFAULT;
    }
    long items;
    try {
      items = Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(KEY + ": \"" + value + "\" is not a whole number of items", e);
    }
    if (items < 1 || items > MAX) {
      throw new IllegalArgumentException(KEY + " must be in [1, " + MAX + "] items, got " + items);
    }
    return (int) items;
  }

  /**
   * The exception for a group over {@code limit}.
   *
   * @param owner the build, e.g. "sparkbloom_build_per_key(item, p)"
   * @param group the group, e.g. "a group" or "key \"u\""
   */
  public static IllegalArgumentException exceeded(String owner, String group, int limit) {
    return exceeded(owner, group, limit, "distinct items, the most a per-key sized build buffers",
        "until they are all counted, up to " + PEAK_BYTES_PER_ITEM + " bytes each",
        "Build such groups with a fixed size, which needs no buffer (SQL sparkbloom_build(item, n,"
            + " p), or Sizing.fixed(n, p))");
  }

  /**
   * The exception for a group over {@code limit} of {@code what} ("distinct items, the most ...
   * buffers"), which a buffer holds in the heap for {@code cost}; {@code remedy} says what to do
   * instead of raising the limit.
   */
  public static IllegalArgumentException exceeded(String owner, String group, int limit,
      String what, String cost, String remedy) {
    return new IllegalArgumentException(owner + ": " + group + " has more than " + limit + " "
        + what + " (" + KEY + " = " + limit + "): it holds a group's items in the executor's heap "
        + cost + ". " + remedy + ", or raise " + KEY + " for executors with the memory");
  }

  /** A key as a message names it: its string form, quoted for a string, cut at 100 chars. */
  public static String describeKey(Object key) {
    if (key == null) {
      return "key null";
    }
    String s = key.toString();
    if (s.length() > 100) {
      s = s.substring(0, 100) + "...";
    }
    return "key " + (key instanceof CharSequence ? "\"" + s + "\"" : s);
  }
}
