package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import io.sparkbloom.spark.sql.BuildAggregate;
import io.sparkbloom.spark.sql.BuildArrayExpression;
import io.sparkbloom.spark.sql.CoreJarCheck;
import io.sparkbloom.spark.sql.MightContainExpression;
import io.sparkbloom.spark.sql.RetainAbsentExpression;
import io.sparkbloom.spark.sql.SparkBloomSql;
import io.sparkbloom.spark.sql.SqlItems;
import java.util.Arrays;
import java.util.Objects;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF2;
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
 * <p>Every function, from SQL and from the Column API alike, is a typed Catalyst expression
 * ({@code BuildAggregate}, {@code RetainAbsentExpression}, {@code MightContainExpression}, {@code
 * BuildArrayExpression}); the SQL functions are declared once, in {@link SparkBloomSql}, which
 * {@link #register} and {@link SparkBloomExtensions} both use.
 *
 * <p>Item types: the functions accept {@code tinyint}, {@code smallint}, {@code int} and
 * {@code bigint} (hashed as the {@code long} of the value) and, where stated, {@code string}. In
 * SQL any other type fails when the query is analyzed, before any job, with Spark's {@code
 * DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE} naming the function, the argument and the types it
 * takes (a {@code double} column is not cast to {@code bigint} behind the caller's back); a wrong
 * argument count with {@code WRONG_NUM_ARGS}. The Column aggregates ({@link #build(Column, long,
 * double)}) take what Spark casts to {@code bigint}: pass them integer columns; the query helpers
 * refuse another type when a row is read. Constant sizing arguments ({@code n}, {@code p}) are
 * checked at analysis too ({@code AnalysisException} naming the call and the argument), so a p
 * outside (0, 1) or a filter too large for the process fails on the driver. String items must
 * have the default collation (UTF8_BINARY); the filter arguments are read under {@code
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
   * filter-level functions, {@code sparkbloom_merge} and {@code sparkbloom_count}: the functions
   * of {@link SparkBloomSql}, the ones the session extension injects. From PySpark: {@code
   * spark._jvm.io.sparkbloom.spark.BloomFunctions.register(spark._jsparkSession)}, or {@code
   * sparkbloom.register(spark)} with the Python package.
   *
   * @throws IllegalStateException if the core jar is not on the classpath (checked here rather
   *     than at the first query)
   */
  public static void register(SparkSession spark) {
    CoreJarCheck.requireCoreJar();
    SparkBloomSql.register(spark);
  }

  /**
   * Registers a one-argument aggregate {@code name(item BIGINT) -> BINARY} with fixed sizing, e.g.
   * {@code registerBuild(spark, "user_filter", 10000, 0.001)} for {@code SELECT user_filter(item)}:
   * {@value #BUILD}{@code (item, n, p)} with n and p given here.
   *
   * @throws IllegalArgumentException if the filter for (n, fpp) cannot be made
   */
  public static void registerBuild(SparkSession spark, String name, long expectedInsertions, double fpp) {
    CoreJarCheck.requireCoreJar();
    SparkBloomSql.fixedBuild(name, expectedInsertions, fpp).register(spark);
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
    return fixedBuild(BUILD, item.cast(DataTypes.LongType), expectedInsertions, fpp);
  }

  /** {@code name(item, n, p)}, the arguments checked here rather than at the first row. */
  private static Column fixedBuild(String name, Column item, long expectedInsertions, double fpp) {
    Sizing.fixed(expectedInsertions, fpp);
    return BuildAggregate.column(name, item, functions.lit(expectedInsertions), functions.lit(fpp));
  }

  /**
   * Aggregate sized by {@code sizing}: with {@link Sizing#perKeyCount} each group's filter is
   * sized for its own distinct item count (the group's items are gathered first, 8 bytes each),
   * times its headroom; SQL's {@value #BUILD_PER_KEY} without headroom.
   */
  public static Column build(Column item, Sizing sizing) {
    Objects.requireNonNull(sizing, "sizing");
    if (!sizing.isPerKeyCount()) {
      return build(item, sizing.expectedInsertions(0), sizing.fpp());
    }
    return BuildAggregate.perKey(item.cast(DataTypes.LongType), sizing);
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

  /**
   * Aggregate: the FORMAT bytes of a filter holding the group's (non-null) string items, each
   * hashed as {@link BloomFilter#put(String)} (its UTF-8 bytes, as Guava's {@code
   * Funnels.stringFunnel(UTF_8)}); query it with {@link #mightContain} on strings or {@link
   * #retainAbsentStrings}. The typed aggregate of SQL's {@value #BUILD_STRING}.
   */
  public static Column buildStrings(Column item, long expectedInsertions, double fpp) {
    return fixedBuild(BUILD_STRING, item.cast(DataTypes.StringType), expectedInsertions, fpp);
  }

  /**
   * The candidates (array of string) that the filter (binary) has definitely not seen, order
   * kept: the typed expression of SQL's {@value #RETAIN_ABSENT_STRING}.
   */
  public static Column retainAbsentStrings(Column filter, Column candidates) {
    return RetainAbsentExpression.column(filter, candidates, true);
  }

  /**
   * {@code (filter BINARY, candidates ARRAY<BIGINT | INT>) -> ARRAY<BIGINT>} as a Java UDF, for
   * PySpark's {@code spark.udf.registerJavaFunction("keep_unseen",
   * "io.sparkbloom.spark.BloomFunctions$RetainAbsent", ArrayType(LongType()))}: the candidates the
   * filter has definitely not seen, in order, in one native call per row; null candidates give
   * null, null elements are dropped, a null filter keeps every candidate. {@value #RETAIN_ABSENT}
   * gives the same answers without boxing each candidate.
   */
  public static final class RetainAbsent implements UDF2<byte[], scala.collection.Seq<Object>, long[]> {
    private static final long serialVersionUID = 1L;

    /**
     * @throws IllegalArgumentException naming the element type unless the candidates are
     *     {@code array<int>} or {@code array<bigint>}
     */
    @Override
    public long[] call(byte[] filterBytes, scala.collection.Seq<Object> candidates)
        throws CorruptFilterException {
      try (BloomFilter f = filterBytes == null ? null : BloomFilter.fromByteArray(filterBytes)) {
        if (candidates == null) {
          return null;
        }
        long[] keys = new long[candidates.size()];
        int n = 0;
        for (scala.collection.Iterator<Object> it = candidates.iterator(); it.hasNext(); ) {
          Object v = it.next();
          if (v != null) {
            keys[n++] = SqlItems.integral(v, RETAIN_ABSENT, "candidates' elements");
          }
        }
        keys = Arrays.copyOf(keys, n);
        return f == null || n == 0 ? keys : f.retainAbsent(keys);
      }
    }
  }
}
