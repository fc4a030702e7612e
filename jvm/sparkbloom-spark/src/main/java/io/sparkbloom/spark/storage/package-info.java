/**
 * Internal, not API: may change in any release. Per-key filters on disk in {@code
 * saveAsObjectFile}'s layout: {@link io.sparkbloom.spark.storage.ObjectFileWriter} writes the
 * SequenceFiles, {@link io.sparkbloom.spark.storage.PartitioningMarker} records their hash
 * partitioning beside them, {@link io.sparkbloom.spark.storage.PartFilesInputFormat} and {@link
 * io.sparkbloom.spark.storage.SequenceFilesInputFormat} read them back (one split per part file,
 * listed by {@link io.sparkbloom.spark.storage.SavedFiles} without reading permissions), {@link
 * io.sparkbloom.spark.storage.ObjectFileRecords} turns a record into its {@code (key, filter)}
 * pairs, or into each filter's FORMAT bytes ({@link io.sparkbloom.spark.storage.SavedFilterBytes})
 * for a broadcast. The records hold only the core's classes ({@code scala.Tuple2} and the
 * filter's serial proxy {@code io.sparkbloom.Ser}), never a class of this module. {@link
 * io.sparkbloom.spark.storage.FilterTable} keeps them as the Parquet table {@code (user, filter
 * BINARY)} that the SQL functions build and query instead.
 */
package io.sparkbloom.spark.storage;
