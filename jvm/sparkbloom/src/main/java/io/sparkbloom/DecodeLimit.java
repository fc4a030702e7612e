package io.sparkbloom;

/**
 * The largest filter the decoders accept by default, in bits: the system property {@value
 * #PROPERTY}, else 2<sup>43</sup> (the largest filter there is). Read at every decode, so it can
 * be set at any time (e.g. {@code -Dsparkbloom.decode.maxNumBits=1000000000} on Spark executors
 * that deserialize filters from untrusted sources: Java serialization and Kryo take no
 * argument).
 */
final class DecodeLimit {
  /** The system property holding the default limit. */
  static final String PROPERTY = "sparkbloom.decode.maxNumBits";

  /** The largest bit count of any filter (FORMAT.md). */
  static final long MAX_NUM_BITS = 1L << 43;

  private DecodeLimit() {}

  /**
   * The limit in force: the property, when set, else {@link #MAX_NUM_BITS}.
   *
   * @throws IllegalArgumentException if the property is not a non-negative integer
   */
  static long defaultMaxNumBits() {
    String value = System.getProperty(PROPERTY);
    if (value == null) {
      return MAX_NUM_BITS;
    }
    return check(parse(value.trim()), "system property " + PROPERTY);
  }

  /** {@code maxNumBits} if it is not negative, else an exception naming {@code what}. */
  static long check(long maxNumBits, String what) {
    if (maxNumBits < 0) {
      throw new IllegalArgumentException(what + ": " + maxNumBits + " is negative");
    }
    return maxNumBits;
  }

  private static long parse(String value) {
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "system property " + PROPERTY + ": \"" + value + "\" is not a whole number of bits", e);
    }
  }
}
