package io.sparkbloom.spark.sql;

import static io.sparkbloom.spark.sql.ArgumentType.BINARY;

import java.util.List;

/**
 * The two filter-level SQL functions, {@code sparkbloom_merge} and {@code sparkbloom_count}: what
 * both registrations (the session extension through {@link SparkBloomSql}, and {@code
 * BloomFunctions.register}) build, each call under the session's decode limit at that time.
 */
public final class FilterFunctions {
  private FilterFunctions() {}

  /** The rule for the filter argument, as the functions' descriptions state it. */
  static final String FILTER_BYTES = "Non-null filter bytes are always read, whatever the"
      + " other argument: bytes that are not a sparkbloom filter (empty ones too), or a filter of"
      + " more bits than " + SqlDecodeLimit.KEY + " allows (default 2^35), fail the query.";

  /** {@code sparkbloom_merge} and {@code sparkbloom_count}. */
  public static List<SqlFunction> functions() {
    return List.of(
        new SqlFunction(MergeAggregator.NAME,
            "_FUNC_(filter) - Aggregate: the union (bitwise OR) of the group's filters, which must"
                + " have the same shape (built with the same n and p); nulls skipped. "
                + FILTER_BYTES,
            MergeAggregator.class, MergeAggregator::udaf, BINARY),
        new SqlFunction(ApproximateCount.NAME,
            "_FUNC_(filter) - The filter's estimate of the distinct items put into it; null for"
                + " a null filter. " + FILTER_BYTES,
            ApproximateCount.class, ApproximateCount::udf, BINARY));
  }
}
