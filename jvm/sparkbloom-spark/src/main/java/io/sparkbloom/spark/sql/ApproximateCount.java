package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * {@code (filter BINARY) -> BIGINT} behind {@value #NAME}: the filter's estimate of
 * the distinct items put ({@link BloomFilter#approximateElementCount()}, Guava's estimate from
 * the bits set), {@code Long.MAX_VALUE} once every bit is set; null for a null filter.
 */
public final class ApproximateCount implements UDF1<byte[], Long> {
  /** SQL {@code sparkbloom_count(filter BINARY) -> BIGINT}. */
  public static final String NAME = "sparkbloom_count";
  private static final long serialVersionUID = 1L;

  /** The UDF {@value #NAME}, as the extension and {@code BloomFunctions.register} register it. */
  public static UserDefinedFunction udf() {
    return functions.udf(new ApproximateCount(), DataTypes.LongType).withName(NAME);
  }

  /** @throws IllegalArgumentException if the bytes are not a filter, naming the bad field */
  @Override
  public Long call(byte[] filterBytes) {
    if (filterBytes == null) {
      return null;
    }
    try (BloomFilter f = BloomFilter.fromByteArray(filterBytes)) {
      return f.approximateElementCount();
    } catch (CorruptFilterException e) {
      throw new IllegalArgumentException(NAME + ": not a sparkbloom filter ("
          + e.getMessage() + ")", e);
    }
  }
}
