package io.sparkbloom.spark.sql;

import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.BloomFunctions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The SQL functions decode filter bytes from tables under {@value SqlDecodeLimit#KEY}: a valid
 * 37-byte filter declaring 2<sup>37</sup> bits (16 GiB) is refused before anything is allocated,
 * naming the function, the bits and the setting; the setting is read when a call is built, with
 * the extension and after {@code BloomFunctions.register}.
 */
class DecodeLimitTest extends WithBothRegistrations {
  private static final long HUGE = 1L << 37;

  DecodeLimitTest() {
    super(2);
  }

  /** FORMAT.md v1 bytes of an empty filter of {@code numBits} bits, sparse: 37 bytes. */
  private static byte[] emptySparseFilter(long numBits) {
    ByteBuffer b = ByteBuffer.allocate(37).order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {'S', 'B', 'L', 'M', 1, 1, 1, 7}); // v1, MURMUR128_MITZ_64, sparse, k = 7
    b.putLong(numBits).putLong(9); // payload: the set-bit count X, u64, and the Rice parameter
    b.putLong(0).put((byte) 0); // X = 0: no codes follow
    CRC32 crc = new CRC32();
    crc.update(b.array(), 0, 33);
    b.putInt((int) crc.getValue());
    return b.array();
  }

  private static String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder("X'");
    for (byte x : bytes) {
      out.append(String.format("%02X", x));
    }
    return out.append('\'').toString();
  }

  private static String failure(Runnable query) {
    Exception e = assertThrows(Exception.class, query::run);
    for (Throwable c = e; c != null; c = c.getCause()) {
      assertFalse(c instanceof Error, "an Error in the chain: " + c);
    }
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof IllegalArgumentException) {
        return c.getMessage();
      }
    }
    throw new AssertionError("no IllegalArgumentException in " + e, e);
  }

  @Test
  void theCraftedBytesAreAValidFilter() throws Exception {
    try (BloomFilter f = BloomFilter.fromByteArray(emptySparseFilter(640))) {
      assertEquals(640, f.bitSize());
      assertEquals(0, f.bitCount());
    }
  }

  @EachRegistration
  void aFilterOverTheDefaultLimitIsRefusedByEveryFunction(String which) {
    SparkSession spark = session(which);
    String f = hex(emptySparseFilter(HUGE));
    for (String call : List.of("sparkbloom_might_contain(" + f + ", 1)",
        "sparkbloom_might_contain(" + f + ", 'a')",
        "sparkbloom_might_contain(" + f + ", CAST(NULL AS BIGINT))",
        "sparkbloom_retain_absent(" + f + ", array(1L))",
        "sparkbloom_retain_absent_string(" + f + ", array('a'))",
        "sparkbloom_count(" + f + ")",
        "sparkbloom_merge(" + f + ")")) {
      String message = failure(() -> spark.sql("SELECT " + call).collect());
      String function = call.substring(0, call.indexOf('('));
      assertEquals(function + ": the filter declares " + HUGE + " bits, more than "
          + SqlDecodeLimit.KEY + " = " + SqlDecodeLimit.DEFAULT + " allows (raise the setting to"
          + " read larger filters)", message);
    }
  }

  @Test
  void theSettingIsReadWhenACallIsBuilt() throws Exception {
    byte[] filter = (byte[]) extension.sql("SELECT sparkbloom_build(id, 1000, 0.01) FROM range(10)")
        .first().get(0);
    long bits;
    try (BloomFilter f = BloomFilter.fromByteArray(filter)) {
      bits = f.bitSize();
    }
    String query = "SELECT sparkbloom_might_contain(" + hex(filter) + ", 7), sparkbloom_count("
        + hex(filter) + ")";
    for (SparkSession spark : List.of(extension, registered)) {
      spark.conf().set(SqlDecodeLimit.KEY, Long.toString(bits - 1));
      try {
        String message = failure(() -> spark.sql(query).collect());
        assertTrue(message.contains(bits + " bits, more than " + SqlDecodeLimit.KEY + " = "
            + (bits - 1)), message);
        // a DataFrame helper's column takes the setting of the active session when it is made
        SparkSession.setActiveSession(spark);
        org.apache.spark.sql.Column early = BloomFunctions.mightContain(lit(filter), lit(7L));
        spark.conf().set(SqlDecodeLimit.KEY, Long.toString(bits));
        Row r = spark.sql(query).first();
        assertTrue(r.getBoolean(0));
        assertEquals(10, r.getLong(1), 1);
        assertTrue(failure(() -> spark.range(1).select(early).collect()).contains(SqlDecodeLimit.KEY));
        spark.conf().set(SqlDecodeLimit.KEY, "lots");
        String bad = failure(() -> spark.sql(query).collect());
        assertTrue(bad.startsWith(SqlDecodeLimit.KEY + ": \"lots\""), bad);
      } finally {
        spark.conf().unset(SqlDecodeLimit.KEY);
        SparkSession.setActiveSession(extension);
      }
    }
    assertNotNull(extension.sql(query).first());
  }
}
