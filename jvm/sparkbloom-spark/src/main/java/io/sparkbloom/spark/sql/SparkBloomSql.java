package io.sparkbloom.spark.sql;

import static io.sparkbloom.spark.sql.ArgumentType.BINARY;
import static io.sparkbloom.spark.sql.ArgumentType.INTEGRAL;
import static io.sparkbloom.spark.sql.ArgumentType.INTEGRAL_ARRAY;
import static io.sparkbloom.spark.sql.ArgumentType.INTEGRAL_OR_STRING;
import static io.sparkbloom.spark.sql.ArgumentType.ITEM_ARRAY;
import static io.sparkbloom.spark.sql.ArgumentType.NUMERIC;
import static io.sparkbloom.spark.sql.ArgumentType.SIZE;
import static io.sparkbloom.spark.sql.ArgumentType.STRING;
import static io.sparkbloom.spark.sql.ArgumentType.STRING_ARRAY;

import io.sparkbloom.spark.Sizing;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.types.DataTypes;

/**
 * The catalogue of sparkbloom's SQL functions: each declared once, with its description, its
 * arguments' types and what a call builds ({@link SqlFunction}). {@link
 * io.sparkbloom.spark.SparkBloomExtensions} injects this list into every session and {@code
 * BloomFunctions.register} registers it as temporary functions ({@link #register}): the build,
 * query and retain-absent functions of {@code BloomFunctions}, typed Catalyst expressions, and the
 * two filter-level functions {@value #MERGE} and {@value #COUNT} (also usable from the DataFrame
 * API through {@link #merge} and {@link #approximateCount}).
 */
public final class SparkBloomSql {
  private SparkBloomSql() {}

  /** SQL {@code sparkbloom_merge(filter BINARY) -> BINARY} (aggregate): the OR of same-shaped filters. */
  public static final String MERGE = MergeAggregator.NAME;
  /** SQL {@code sparkbloom_count(filter BINARY) -> BIGINT}: the approximate distinct items put. */
  public static final String COUNT = ApproximateCount.NAME;

  /** The rule for the filter argument, as the functions' descriptions state it. */
  private static final String FILTER_BYTES = "Non-null filter bytes are always read, whatever the"
      + " other argument: bytes that are not a sparkbloom filter (empty ones too), or a filter of"
      + " more bits than " + SqlDecodeLimit.KEY + " allows (default 2^35), fail the query.";
  private static final String FOR_STRINGS = " (for string items call " + BuildAggregate.FIXED_STRING + ")";

  /** The functions in the order they are injected. */
  public static List<SqlFunction> functions() {
    return List.of(
        new SqlFunction(BuildAggregate.FIXED,
            "_FUNC_(item, n, p) - Aggregate: the FORMAT.md bytes of a Bloom filter sized for n"
                + " items at false-positive probability p, holding the group's integer items.",
            BuildAggregate.class, FOR_STRINGS, args -> new BuildAggregate(BuildAggregate.FIXED, args),
            INTEGRAL, SIZE, NUMERIC),
        new SqlFunction(BuildAggregate.PER_KEY,
            "_FUNC_(item, p) - Aggregate: the bytes of a Bloom filter sized for the group's own"
                + " distinct item count at false-positive probability p.",
            BuildAggregate.class, FOR_STRINGS, args -> new BuildAggregate(BuildAggregate.PER_KEY, args),
            INTEGRAL, NUMERIC),
        new SqlFunction(RetainAbsentExpression.NAME,
            "_FUNC_(filter, candidates) - The integer candidates the filter has definitely not"
                + " seen, order kept; a null filter keeps them all. " + FILTER_BYTES,
            RetainAbsentExpression.class,
            " (for array<string> candidates call " + RetainAbsentExpression.STRING_NAME + ")",
            args -> new RetainAbsentExpression(args.get(0), args.get(1), false), BINARY, INTEGRAL_ARRAY),
        new SqlFunction(MightContainExpression.NAME,
            "_FUNC_(filter, item) - Whether the filter might contain the integer or string item"
                + " (false: definitely not); a null filter gives false, a null item null. "
                + FILTER_BYTES,
            MightContainExpression.class, "",
            args -> new MightContainExpression(args.get(0), args.get(1)), BINARY, INTEGRAL_OR_STRING),
        new SqlFunction(BuildAggregate.FIXED_STRING,
            "_FUNC_(item, n, p) - Aggregate: the bytes of a Bloom filter sized for n items at"
                + " false-positive probability p, holding the group's string items (UTF-8, as Guava).",
            BuildAggregate.class, " (for integer items call " + BuildAggregate.FIXED + ")",
            args -> new BuildAggregate(BuildAggregate.FIXED_STRING, args), STRING, SIZE, NUMERIC),
        new SqlFunction(RetainAbsentExpression.STRING_NAME,
            "_FUNC_(filter, candidates) - The string candidates the filter has definitely not"
                + " seen, order kept; a null filter keeps them all. " + FILTER_BYTES,
            RetainAbsentExpression.class,
            " (for integer candidates call " + RetainAbsentExpression.NAME + ")",
            args -> new RetainAbsentExpression(args.get(0), args.get(1), true), BINARY, STRING_ARRAY),
        new SqlFunction(BuildArrayExpression.NAME,
            "_FUNC_(items, p) - The FORMAT.md bytes of one Bloom filter holding the row's array of"
                + " integer or string items, sized for its distinct items at false-positive"
                + " probability p (the bytes " + BuildAggregate.PER_KEY + " gives a group of the"
                + " same items); _FUNC_(items, n, p) sizes it for n items. Null elements skipped; a"
                + " null array gives null.",
            BuildArrayExpression.class, "", BuildArrayExpression::new,
            List.of(List.of(ITEM_ARRAY, NUMERIC), List.of(ITEM_ARRAY, SIZE, NUMERIC))),
        new SqlFunction(MERGE,
            "_FUNC_(filter) - Aggregate: the union (bitwise OR) of the group's filters, which must"
                + " have the same shape (built with the same n and p); nulls skipped. "
                + FILTER_BYTES,
            MergeAggregator.class, "", SqlFunction.udf(MergeAggregator::udaf), BINARY),
        new SqlFunction(COUNT,
            "_FUNC_(filter) - The filter's estimate of the distinct items put into it; null for"
                + " a null filter. " + FILTER_BYTES,
            ApproximateCount.class, "", SqlFunction.udf(ApproximateCount::udf), BINARY));
  }

  /**
   * Registers every function of {@link #functions()} as a temporary function of {@code spark}'s
   * session ({@link SqlFunction#register}).
   */
  public static void register(SparkSession spark) {
    for (SqlFunction function : functions()) {
      function.register(spark);
    }
  }

  /**
   * {@code name(item)}: {@value BuildAggregate#FIXED}{@code (item, n, p)} with n and p given here.
   *
   * @throws IllegalArgumentException if the filter for (n, fpp) cannot be made
   */
  public static SqlFunction fixedBuild(String name, long expectedInsertions, double fpp) {
    Sizing.fixed(expectedInsertions, fpp); // the sizing's checks, here rather than at the first row
    Literal n = Literal.create(expectedInsertions, DataTypes.LongType);
    Literal p = Literal.create(fpp, DataTypes.DoubleType);
    return new SqlFunction(name,
        "_FUNC_(item) - Aggregate: the FORMAT.md bytes of a Bloom filter sized for "
            + expectedInsertions + " items at false-positive probability " + fpp + ", holding the"
            + " group's integer items (" + BuildAggregate.FIXED + "(item, " + expectedInsertions
            + ", " + fpp + ")).",
        BuildAggregate.class, "",
        args -> new BuildAggregate(BuildAggregate.FIXED, List.of(args.get(0), n, p)), INTEGRAL);
  }

  /** Aggregate: the union of the group's same-shaped filters ({@value #MERGE}). */
  public static Column merge(Column filter) {
    return MergeAggregator.udaf().apply(filter);
  }

  /** The approximate number of distinct items put into the filter ({@value #COUNT}). */
  public static Column approximateCount(Column filter) {
    return ApproximateCount.udf().apply(filter);
  }
}
