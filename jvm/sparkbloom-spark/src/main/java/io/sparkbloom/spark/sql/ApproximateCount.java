package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code (filter BINARY) -> BIGINT} behind {@value #NAME}: the filter's estimate of
 * the distinct items put ({@link BloomFilter#approximateElementCount()}, Guava's estimate from
 * the bits set), {@code Long.MAX_VALUE} once every bit is set; null for a null filter. Bytes that
 * are not a filter, or a filter larger than {@value SqlDecodeLimit#KEY} allows (the limit when the
 * call was built), fail the query naming the function.
 */
public final class ApproximateCount implements UDF1<byte[], Long> {
  /** SQL {@code sparkbloom_count(filter BINARY) -> BIGINT}. */
  public static final String NAME = "sparkbloom_count";
  private static final long serialVersionUID = 1L;

  /** The largest filter decoded, in bits ({@link SqlDecodeLimit}). */
  private final long maxNumBits;

  ApproximateCount(long maxNumBits) {
    this.maxNumBits = maxNumBits;
  }

  /**
   * The UDF {@value #NAME}, as the extension and {@code BloomFunctions.register} register it,
   * under the current session's decode limit.
   */
  static UserDefinedFunction udf() {
    return functions.udf(new ApproximateCount(SqlDecodeLimit.current()), DataTypes.LongType).withName(NAME);
  }

  /** @throws IllegalArgumentException if the bytes are not a filter or over the limit, naming why */
  @Override
  public Long call(byte[] filterBytes) {
    if (filterBytes == null) {
      return null;
    }
    try (BloomFilter f = CatalystFilters.read(filterBytes, NAME, maxNumBits)) {
      return f.approximateElementCount();
    }
  }
}
