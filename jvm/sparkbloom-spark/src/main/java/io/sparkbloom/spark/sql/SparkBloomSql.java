package io.sparkbloom.spark.sql;

import static io.sparkbloom.spark.sql.ArgumentType.BINARY;
import static io.sparkbloom.spark.sql.ArgumentType.INTEGRAL;
import static io.sparkbloom.spark.sql.ArgumentType.INTEGRAL_ARRAY;
import static io.sparkbloom.spark.sql.ArgumentType.INTEGRAL_OR_STRING;
import static io.sparkbloom.spark.sql.ArgumentType.NUMERIC;
import static io.sparkbloom.spark.sql.ArgumentType.SIZE;
import static io.sparkbloom.spark.sql.ArgumentType.STRING;
import static io.sparkbloom.spark.sql.ArgumentType.STRING_ARRAY;

import io.sparkbloom.spark.BloomFunctions;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.expressions.UserDefinedFunction;

/**
 * Every sparkbloom SQL function, as {@link io.sparkbloom.spark.SparkBloomExtensions} injects them
 * into each session: the seven of {@link BloomFunctions} and the two filter-level functions of
 * {@link FilterFunctions}, {@value #MERGE} and {@value #COUNT} (also usable from the DataFrame API
 * through {@link #merge} and {@link #approximateCount}).
 */
public final class SparkBloomSql {
  private SparkBloomSql() {}

  /** SQL {@code sparkbloom_merge(filter BINARY) -> BINARY} (aggregate): the OR of same-shaped filters. */
  public static final String MERGE = MergeAggregator.NAME;
  /** SQL {@code sparkbloom_count(filter BINARY) -> BIGINT}: the approximate distinct items put. */
  public static final String COUNT = ApproximateCount.NAME;

  private static final String FILTER_BYTES = FilterFunctions.FILTER_BYTES;

  /** The functions in the order they are injected. */
  public static List<SqlFunction> functions() {
    List<SqlFunction> all = new ArrayList<>(List.of(
        new SqlFunction(BloomFunctions.BUILD,
            "_FUNC_(item, n, p) - Aggregate: the FORMAT.md bytes of a Bloom filter sized for n"
                + " items at false-positive probability p, holding the group's integer items.",
            BuildAggregate.class, BloomFunctions::buildSqlUdaf,
            args -> new BuildAggregate(BuildAggregate.FIXED, args), INTEGRAL, SIZE, NUMERIC),
        new SqlFunction(BloomFunctions.BUILD_PER_KEY,
            "_FUNC_(item, p) - Aggregate: the bytes of a Bloom filter sized for the group's own"
                + " distinct item count at false-positive probability p.",
            BuildAggregate.class, BloomFunctions::buildPerKeySqlUdaf,
            args -> new BuildAggregate(BuildAggregate.PER_KEY, args), INTEGRAL, NUMERIC),
        new SqlFunction(BloomFunctions.RETAIN_ABSENT,
            "_FUNC_(filter, candidates) - The integer candidates the filter has definitely not"
                + " seen, order kept; a null filter keeps them all. " + FILTER_BYTES,
            RetainAbsentExpression.class, BloomFunctions::retainAbsentUdf,
            args -> new RetainAbsentExpression(args.get(0), args.get(1)), BINARY, INTEGRAL_ARRAY),
        new SqlFunction(BloomFunctions.MIGHT_CONTAIN,
            "_FUNC_(filter, item) - Whether the filter might contain the integer or string item"
                + " (false: definitely not); a null filter gives false, a null item null. "
                + FILTER_BYTES,
            MightContainExpression.class, BloomFunctions::mightContainUdf,
            args -> new MightContainExpression(args.get(0), args.get(1)), BINARY, INTEGRAL_OR_STRING),
        new SqlFunction(BloomFunctions.BUILD_STRING,
            "_FUNC_(item, n, p) - Aggregate: the bytes of a Bloom filter sized for n items at"
                + " false-positive probability p, holding the group's string items (UTF-8, as Guava).",
            BuildAggregate.class, BloomFunctions::buildStringsSqlUdaf,
            args -> new BuildAggregate(BuildAggregate.FIXED_STRING, args), STRING, SIZE, NUMERIC),
        new SqlFunction(BloomFunctions.RETAIN_ABSENT_STRING,
            "_FUNC_(filter, candidates) - The string candidates the filter has definitely not"
                + " seen, order kept; a null filter keeps them all. " + FILTER_BYTES,
            RetainAbsentExpression.class, BloomFunctions::retainAbsentStringsUdf,
            args -> new RetainAbsentExpression(args.get(0), args.get(1), true), BINARY, STRING_ARRAY),
        BuildArrayExpression.function()));
    all.addAll(FilterFunctions.functions());
    return all;
  }

  /** Aggregate: the union of the group's same-shaped filters ({@value #MERGE}). */
  public static Column merge(Column filter) {
    return mergeUdaf().apply(filter);
  }

  /** The approximate number of distinct items put into the filter ({@value #COUNT}). */
  public static Column approximateCount(Column filter) {
    return countUdf().apply(filter);
  }

  public static UserDefinedFunction mergeUdaf() {
    return MergeAggregator.udaf();
  }

  public static UserDefinedFunction countUdf() {
    return ApproximateCount.udf();
  }
}
