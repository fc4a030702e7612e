/**
 * The SQL side of {@code BloomFunctions} and {@code SparkBloomExtensions}. Internal, not API
 * (may change in any release), except {@link io.sparkbloom.spark.sql.SparkBloomSql}'s function
 * names and its DataFrame forms of {@code sparkbloom_merge} and {@code sparkbloom_count}.
 *
 * <p>The functions' catalogue ({@link io.sparkbloom.spark.sql.SparkBloomSql}: each function declared
 * once, injected by the session extension and registered by {@code BloomFunctions.register}), the
 * analysis-time checks of a call and its registration ({@link io.sparkbloom.spark.sql.SqlFunction},
 * with the argument types of {@link io.sparkbloom.spark.sql.ArgumentType}), the core-jar check at
 * registration ({@link io.sparkbloom.spark.sql.CoreJarCheck}), the item values of a Java UDF
 * ({@link io.sparkbloom.spark.sql.SqlItems}), and the two functions that work on whole filters,
 * {@code sparkbloom_merge} ({@link io.sparkbloom.spark.sql.MergeAggregator}) and {@code
 * sparkbloom_count} ({@link io.sparkbloom.spark.sql.ApproximateCount}). The build, query and
 * retain-absent functions run as typed Catalyst expressions ({@link
 * io.sparkbloom.spark.sql.BuildAggregate}, {@link io.sparkbloom.spark.sql.RetainAbsentExpression},
 * {@link io.sparkbloom.spark.sql.MightContainExpression}, {@link
 * io.sparkbloom.spark.sql.BuildArrayExpression}) that read Spark's internal rows and arrays in
 * place, integers as {@code long}s ({@link io.sparkbloom.spark.sql.CatalystLongs}). Their sizing
 * arguments are checked, and named in errors, by {@link io.sparkbloom.spark.sql.SqlSizing}; string
 * arguments of a collation other than UTF8_BINARY are refused ({@link
 * io.sparkbloom.spark.sql.Collations}); filter bytes are read under the limit {@link
 * io.sparkbloom.spark.sql.SqlDecodeLimit} sets. Compiled from the same sources for Spark 4 /
 * Scala 2.13 and Spark 3.5 / Scala 2.12.
 */
package io.sparkbloom.spark.sql;
