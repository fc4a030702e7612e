/**
 * The sparkbloom SQL functions as a session extension injects them ({@link
 * io.sparkbloom.spark.SparkBloomExtensions}): their catalogue ({@link
 * io.sparkbloom.spark.sql.SparkBloomSql}), the analysis-time checks of a call ({@link
 * io.sparkbloom.spark.sql.SqlFunction}), and the two functions that work on whole filters,
 * {@code sparkbloom_merge} ({@link io.sparkbloom.spark.sql.MergeAggregator}) and {@code
 * sparkbloom_count} ({@link io.sparkbloom.spark.sql.ApproximateCount}). Compiled from the same
 * sources for Spark 4 / Scala 2.13 and Spark 3.5 / Scala 2.12.
 */
package io.sparkbloom.spark.sql;
