package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import io.sparkbloom.spark.sql.BuildAggregate;
import io.sparkbloom.spark.sql.BuildArrayExpression;
import io.sparkbloom.spark.sql.CoreJarCheck;
import io.sparkbloom.spark.sql.FilterFunctions;
import io.sparkbloom.spark.sql.MightContainExpression;
import io.sparkbloom.spark.sql.RetainAbsentExpression;
import io.sparkbloom.spark.sql.RetainAbsentUdf;
import io.sparkbloom.spark.sql.SqlArgumentCheck;
import io.sparkbloom.spark.sql.SqlFunction;
import io.sparkbloom.spark.sql.SqlItems;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * DataFrame and SQL functions: build a filter per group into a binary column (the FORMAT.md
 * bytes, so it can be stored in Parquet and read back by any sparkbloom reader), and keep the
 * candidates a filter has not seen.
 *
 * <pre>{@code
 * // Java / Scala DataFrame API
 * Dataset<Row> filters = history.groupBy("user")
 *     .agg(BloomFunctions.build(col("item"), 10_000, 0.001).as("filter"));
 * Dataset<Row> fresh = candidates.join(filters, "user", "left")
 *     .select(col("user"), BloomFunctions.retainAbsent(col("filter"), col("items")).as("items"));
 *
 * // SQL, and PySpark through SQL, after BloomFunctions.register(spark)
 * //   (PySpark: spark._jvm.io.sparkbloom.spark.BloomFunctions.register(spark._jsparkSession))
 * SELECT user, sparkbloom_build(item, 10000, 0.001) AS filter FROM history GROUP BY user
 * SELECT user, sparkbloom_build_per_key(item, 0.001) AS filter FROM history GROUP BY user
 * SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) FROM candidates c LEFT JOIN filters f USING (user)
 *
 * // string item ids: buildStrings / retainAbsentStrings, sparkbloom_build_string /
 * // sparkbloom_retain_absent_string; mightContain / sparkbloom_might_contain take either
 * }</pre>
 *
 * <p>Null handling: null items are ignored by the aggregates; a null filter keeps every candidate
 * (a user with no history has seen nothing); null candidates give null; null elements inside the
 * candidate array are dropped. The aggregates buffer items in a {@code long[]} ({@link
 * FilterBuilder}) or a {@code String[]} ({@link StringFilterBuilder}) and insert them with one
 * native call per batch.
 *
 * <p>Item types: the functions accept {@code tinyint}, {@code smallint}, {@code int} and
 * {@code bigint} (hashed as the {@code long} of the value) and, where stated, {@code string}. The
 * functions registered by {@link #register} refuse any other type when the query is analyzed,
 * before any job, with an {@link IllegalArgumentException} naming the function and the SQL type
 * ({@code SqlArgumentCheck}; a {@code double} column is not cast to {@code bigint} behind the
 * caller's back); the query functions check each value as well ({@code SqlItems}). The Column
 * aggregates ({@link #build(Column, long, double)}) take what Spark casts to {@code bigint}: pass
 * them integer columns. Constant sizing arguments ({@code n}, {@code p}) are checked at analysis
 * too ({@code AnalysisException} naming the call and the argument), so a p outside (0, 1) or a
 * filter too large for the process fails on the driver. String items must have the default
 * collation (UTF8_BINARY); the filter arguments are read under {@code
 * spark.sparkbloom.sql.maxNumBits} ({@code SqlDecodeLimit}).
 */
public final class BloomFunctions {
  private BloomFunctions() {}

  /** SQL {@code sparkbloom_build(item BIGINT | INT, n BIGINT, p DOUBLE) -> BINARY} (aggregate). */
  public static final String BUILD = BuildAggregate.FIXED;
  /**
   * SQL {@code sparkbloom_retain_absent(filter BINARY, candidates ARRAY<BIGINT> | ARRAY<INT>) ->
   * ARRAY<BIGINT>}.
   */
  public static final String RETAIN_ABSENT = RetainAbsentExpression.NAME;
  /**
   * SQL {@code sparkbloom_build_per_key(item BIGINT | INT, p DOUBLE) -> BINARY} (aggregate): each
   * group's filter sized for its own distinct item count at p ({@link Sizing#perKeyCount}).
   */
  public static final String BUILD_PER_KEY = BuildAggregate.PER_KEY;
  /** SQL {@code sparkbloom_might_contain(filter BINARY, item BIGINT | INT | STRING) -> BOOLEAN}. */
  public static final String MIGHT_CONTAIN = MightContainExpression.NAME;
  /** SQL {@code sparkbloom_build_string(item STRING, n BIGINT, p DOUBLE) -> BINARY} (aggregate). */
  public static final String BUILD_STRING = BuildAggregate.FIXED_STRING;
  /**
   * SQL {@code sparkbloom_retain_absent_string(filter BINARY, candidates ARRAY<STRING>) ->
   * ARRAY<STRING>}.
   */
  public static final String RETAIN_ABSENT_STRING = RetainAbsentExpression.STRING_NAME;
  /**
   * SQL {@code sparkbloom_build_array(items ARRAY<BIGINT | INT | STRING>, p DOUBLE) -> BINARY} and
   * {@code sparkbloom_build_array(items, n BIGINT, p DOUBLE)} (scalar): one filter per row from
   * the row's array, sized per key as {@value #BUILD_PER_KEY} sizes a group, or for n items.
   */
  public static final String BUILD_ARRAY = BuildArrayExpression.NAME;

  // ---- registration (SQL, PySpark) -----------------------------------------------------------

  /**
   * Registers {@value #BUILD}, {@value #BUILD_PER_KEY}, {@value #RETAIN_ABSENT}, {@value
   * #MIGHT_CONTAIN}, {@value #BUILD_STRING}, {@value #RETAIN_ABSENT_STRING} and {@value
   * #BUILD_ARRAY} as temporary functions of {@code spark}'s session, and the extension's two
   * filter-level functions, {@code sparkbloom_merge} and {@code sparkbloom_count}. From PySpark:
   * {@code spark._jvm.io.sparkbloom.spark.BloomFunctions.register(spark._jsparkSession)}, or
   * {@code sparkbloom.register(spark)} with the Python package. Each is built as the typed
   * Catalyst expression the session extension injects ({@code BuildAggregate}, {@code
   * RetainAbsentExpression}, {@code MightContainExpression}, {@code BuildArrayExpression}), not
   * as the UDF that the matching getter here ({@link #buildSqlUdaf} and the others) returns.
   *
   * @throws IllegalStateException if the core jar is not on the classpath (checked here rather
   *     than at the first query)
   */
  public static void register(SparkSession spark) {
    CoreJarCheck.requireCoreJar();
    String integralNote = " (for string items call " + BUILD_STRING + "; cast whole-number values"
        + " of another type to bigint explicitly)";
    SqlArgumentCheck.register(spark, BUILD, buildSqlUdaf(),
        new SqlArgumentCheck.Rule(0, false, SqlArgumentCheck.Items.INTEGRAL, 1, 2, integralNote),
        3, args -> new BuildAggregate(BUILD, args));
    SqlArgumentCheck.register(spark, BUILD_PER_KEY, buildPerKeySqlUdaf(),
        new SqlArgumentCheck.Rule(0, false, SqlArgumentCheck.Items.INTEGRAL, -1, 1, integralNote),
        2, args -> new BuildAggregate(BUILD_PER_KEY, args));
    SqlArgumentCheck.register(spark, RETAIN_ABSENT, retainAbsentUdf(),
        new SqlArgumentCheck.Rule(1, true, SqlArgumentCheck.Items.INTEGRAL, -1, -1,
            " (for array<string> candidates call " + RETAIN_ABSENT_STRING + ")"),
        2, args -> new RetainAbsentExpression(args.get(0), args.get(1)));
    SqlArgumentCheck.register(spark, MIGHT_CONTAIN, mightContainUdf(),
        new SqlArgumentCheck.Rule(1, false, SqlArgumentCheck.Items.INTEGRAL_OR_STRING, -1, -1, ""),
        2, args -> new MightContainExpression(args.get(0), args.get(1)));
    SqlArgumentCheck.register(spark, BUILD_STRING, buildStringsSqlUdaf(),
        new SqlArgumentCheck.Rule(0, false, SqlArgumentCheck.Items.STRING, 1, 2,
            " (for integer items call " + BUILD + ")"),
        3, args -> new BuildAggregate(BUILD_STRING, args));
    SqlArgumentCheck.register(spark, RETAIN_ABSENT_STRING, retainAbsentStringsUdf(),
        new SqlArgumentCheck.Rule(1, true, SqlArgumentCheck.Items.STRING, -1, -1,
            " (for integer candidates call " + RETAIN_ABSENT + ")"),
        2, args -> new RetainAbsentExpression(args.get(0), args.get(1), true));
    SqlArgumentCheck.register(spark, BuildArrayExpression.function());
    for (SqlFunction function : FilterFunctions.functions()) {
      SqlArgumentCheck.register(spark, function);
    }
  }

  /**
   * Registers a one-argument aggregate {@code name(item BIGINT) -> BINARY} with fixed sizing, e.g.
   * {@code registerBuild(spark, "user_filter", 10000, 0.001)} for {@code SELECT user_filter(item)}.
   */
  public static void registerBuild(SparkSession spark, String name, long expectedInsertions, double fpp) {
    CoreJarCheck.requireCoreJar();
    SqlArgumentCheck.register(spark, name, buildUdaf(expectedInsertions, fpp),
        new SqlArgumentCheck.Rule(0, false, SqlArgumentCheck.Items.INTEGRAL, -1, -1, ""));
  }

  // ---- Column API ----------------------------------------------------------------------------

  /**
   * Aggregate: the FORMAT bytes of a filter holding the group's (non-null) items, cast to bigint:
   * the typed aggregate of SQL's {@value #BUILD}.
   *
   * @throws IllegalArgumentException if the filter for (n, fpp) cannot be made (named as SQL
   *     names it)
   */
  public static Column build(Column item, long expectedInsertions, double fpp) {
    Sizing.fixed(expectedInsertions, fpp); // the arguments' checks, here rather than at the first row
    return BuildAggregate.column(BUILD, item.cast(DataTypes.LongType),
        functions.lit(expectedInsertions), functions.lit(fpp));
  }

  /**
   * Aggregate sized by {@code sizing}: with {@link Sizing#perKeyCount} each group's filter is
   * sized for its own distinct item count (the group's items are gathered first, 8 bytes each).
   */
  public static Column build(Column item, Sizing sizing) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return build(item, sizing.expectedInsertions(0), sizing.fpp());
    }
    if (sizing.headroom() != 1.0) { // SQL's aggregate has no headroom: the UDAF keeps it
      return buildUdaf(sizing).apply(item);
    }
    return BuildAggregate.column(BUILD_PER_KEY, item.cast(DataTypes.LongType), functions.lit(sizing.fpp()));
  }

  /** The aggregate behind {@link #build(Column, Sizing)}. */
  public static UserDefinedFunction buildUdaf(Sizing sizing) {
    java.util.Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return buildUdaf(sizing.expectedInsertions(0), sizing.fpp());
    }
    return functions.udaf(new SizedBuildAggregator.WithSizing(sizing), Encoders.LONG())
        .withName(BUILD_PER_KEY);
  }

  /** The two-argument SQL aggregate {@code (item, p)} registered as {@value #BUILD_PER_KEY}. */
  public static UserDefinedFunction buildPerKeySqlUdaf() {
    return functions.udaf(new SizedBuildAggregator.Sql(), Encoders.tuple(Encoders.LONG(), Encoders.DOUBLE()))
        .withName(BUILD_PER_KEY);
  }

  /**
   * The candidates (array of bigint or int) that the filter (binary) has definitely not seen,
   * order kept: the typed expression of SQL's {@value #RETAIN_ABSENT}.
   */
  public static Column retainAbsent(Column filter, Column candidates) {
    return RetainAbsentExpression.column(filter, candidates, false);
  }

  /**
   * Whether the filter (binary) might contain the item ({@code int}, {@code bigint} or {@code
   * string}): false means definitely not. The typed expression of SQL's {@value #MIGHT_CONTAIN}.
   */
  public static Column mightContain(Column filter, Column item) {
    return MightContainExpression.column(filter, item);
  }

  /**
   * One filter per row from the row's array of items (bigint, int or string), sized for its
   * distinct items at {@code fpp} as {@value #BUILD_PER_KEY} sizes a group: SQL's {@value
   * #BUILD_ARRAY}{@code (items, p)}.
   */
  public static Column buildArray(Column items, double fpp) {
    return BuildArrayExpression.column(items, functions.lit(fpp));
  }

  /** As {@link #buildArray(Column, double)}, every filter sized for {@code expectedInsertions} items. */
  public static Column buildArray(Column items, long expectedInsertions, double fpp) {
    return BuildArrayExpression.column(items, functions.lit(expectedInsertions), functions.lit(fpp));
  }

  /** The aggregate behind {@link #build}, e.g. for {@code spark.udf().register}. */
  public static UserDefinedFunction buildUdaf(long expectedInsertions, double fpp) {
    return functions.udaf(new BuildAggregator(expectedInsertions, fpp), Encoders.LONG())
        .withName(BUILD);
  }

  /** The three-argument SQL aggregate {@code (item, n, p)} registered as {@value #BUILD}. */
  public static UserDefinedFunction buildSqlUdaf() {
    return functions.udaf(new SqlBuildAggregator(),
        Encoders.tuple(Encoders.LONG(), Encoders.LONG(), Encoders.DOUBLE()))
        .withName(BUILD);
  }

  public static UserDefinedFunction retainAbsentUdf() {
    return functions.udf(new RetainAbsent(), DataTypes.createArrayType(DataTypes.LongType, false))
        .withName(RETAIN_ABSENT);
  }

  public static UserDefinedFunction mightContainUdf() {
    return functions.udf(new MightContain(), DataTypes.BooleanType).withName(MIGHT_CONTAIN);
  }

  // ---- string items (implementations in StringBloomFunctions) -------------------------------

  /**
   * Aggregate: the FORMAT bytes of a filter holding the group's (non-null) string items, each
   * hashed as {@link BloomFilter#put(String)} (its UTF-8 bytes, as Guava's {@code
   * Funnels.stringFunnel(UTF_8)}); query it with {@link #mightContain} on strings or {@link
   * #retainAbsentStrings}.
   */
  public static Column buildStrings(Column item, long expectedInsertions, double fpp) {
    Sizing.fixed(expectedInsertions, fpp); // the arguments' checks, here rather than at the first row
    return BuildAggregate.column(BUILD_STRING, item.cast(DataTypes.StringType),
        functions.lit(expectedInsertions), functions.lit(fpp));
  }

  /**
   * The candidates (array of string) that the filter (binary) has definitely not seen, order
   * kept: the typed expression of SQL's {@value #RETAIN_ABSENT_STRING}.
   */
  public static Column retainAbsentStrings(Column filter, Column candidates) {
    return RetainAbsentExpression.column(filter, candidates, true);
  }

  /** The aggregate behind {@link #buildStrings}. */
  public static UserDefinedFunction buildStringsUdaf(long expectedInsertions, double fpp) {
    return functions.udaf(new StringBloomFunctions.BuildAggregator(expectedInsertions, fpp),
        Encoders.STRING()).withName(BUILD_STRING);
  }

  /** The three-argument SQL aggregate {@code (item, n, p)} registered as {@value #BUILD_STRING}. */
  public static UserDefinedFunction buildStringsSqlUdaf() {
    return functions.udaf(new StringBloomFunctions.SqlBuildAggregator(),
        Encoders.tuple(Encoders.STRING(), Encoders.LONG(), Encoders.DOUBLE()))
        .withName(BUILD_STRING);
  }

  public static UserDefinedFunction retainAbsentStringsUdf() {
    return functions.udf(new StringBloomFunctions.RetainAbsent(),
        DataTypes.createArrayType(DataTypes.StringType, false)).withName(RETAIN_ABSENT_STRING);
  }

  // ---- implementations -----------------------------------------------------------------------

  /**
   * {@code Aggregator<item, FilterBuilder, FORMAT bytes>} with fixed sizing: a {@link
   * FilterBuilder} buffer (batches items, one native call per 4096) merged by OR, Java-serialized
   * between stages.
   */
  public static final class BuildAggregator extends BuilderAggregator.Fixed<Long, FilterBuilder> {
    private static final long serialVersionUID = 1L;

    public BuildAggregator(long expectedInsertions, double fpp) {
      super(BuilderAggregator.LONGS, expectedInsertions, fpp);
    }
  }

  /**
   * {@code Aggregator<(item, n, p), FilterBuilder, FORMAT bytes>}: the SQL form, sizing read
   * from the rows (it must be the same for every row of a group, normally two literals).
   */
  public static final class SqlBuildAggregator extends BuilderAggregator.Sql<Long, FilterBuilder> {
    private static final long serialVersionUID = 1L;

    public SqlBuildAggregator() {
      super(BuilderAggregator.LONGS, BUILD);
    }
  }

  /**
   * {@code (filter BINARY, candidates ARRAY<BIGINT>) -> ARRAY<BIGINT>}: the candidates the filter
   * has definitely not seen, in one native call per row. Public with a no-arg constructor, so
   * PySpark can also register it directly:
   * {@code spark.udf.registerJavaFunction("sparkbloom_retain_absent",
   * "io.sparkbloom.spark.BloomFunctions$RetainAbsent", ArrayType(LongType()))}.
   */
  public static final class RetainAbsent extends RetainAbsentUdf<long[]>
      // named here too: PySpark's registerJavaFunction looks for the UDF interface on this class
      implements UDF2<byte[], scala.collection.Seq<Object>, long[]> {
    private static final long serialVersionUID = 1L;

    /**
     * @throws IllegalArgumentException naming the element type unless the candidates are
     *     {@code array<int>} or {@code array<bigint>} (for {@code array<string>}, {@value
     *     #RETAIN_ABSENT_STRING})
     */
    @Override
    protected long[] keys(Object[] elements, int n) {
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        if (elements[i] instanceof String) {
          throw SqlItems.unsupported(elements[i], RETAIN_ABSENT, "candidates' elements",
              "int or bigint (for array<string> candidates call " + RETAIN_ABSENT_STRING + ")");
        }
        keys[i] = SqlItems.integral(elements[i], RETAIN_ABSENT, "candidates' elements");
      }
      return keys;
    }
  }

  /**
   * {@code (filter BINARY, item INT | BIGINT | STRING) -> BOOLEAN}; null filter: false (nothing
   * seen); null item: null. Non-null filter bytes are always read, whatever the item. Integers
   * are hashed as {@link BloomFilter#mightContain(long)}, strings as {@link
   * BloomFilter#mightContain(String)}; ask with the type the filter was built from.
   */
  public static final class MightContain implements UDF2<byte[], Object, Boolean> {
    private static final long serialVersionUID = 1L;

    /** @throws IllegalArgumentException naming the item's SQL type if it is none of the three */
    @Override
    public Boolean call(byte[] filterBytes, Object item) throws CorruptFilterException {
      String key = item instanceof String ? (String) item : null;
      if (item != null && key == null && !SqlItems.isIntegral(item)) {
        throw SqlItems.unsupported(item, MIGHT_CONTAIN, "item", "int, bigint or string");
      }
      if (filterBytes == null) {
        return item == null ? null : false;
      }
      // non-null bytes are read (and refused if they are not a filter) whatever the item
      try (BloomFilter f = BloomFilter.fromByteArray(filterBytes)) {
        if (item == null) {
          return null;
        }
        return key != null ? f.mightContain(key) : f.mightContain(((Number) item).longValue());
      }
    }
  }
}
