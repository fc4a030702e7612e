/**
 * Internal, not API: may change in any release. What building a filter needs below the builders
 * of {@code io.sparkbloom.spark}: {@link io.sparkbloom.spark.build.ItemArrays} is what every batch
 * path does with {@code long[]} and {@code String[]} items, so one generic body serves both
 * without boxing; {@link io.sparkbloom.spark.build.FilterAllocation} creates a
 * filter whose size comes from an argument and names that sizing when the core refuses it;
 * {@link io.sparkbloom.spark.build.DistinctCount} counts a key's distinct items for per-key
 * sizing, and {@link io.sparkbloom.spark.build.DistinctLongs} buffers them, duplicates dropped as
 * they come, so per-key builds take memory for the distinct items, not the rows, and at most
 * {@link io.sparkbloom.spark.build.PerKeyBufferLimit}'s per group; {@link
 * io.sparkbloom.spark.build.NullItems} is the one null policy of items (skipped when building,
 * dropped from candidates).
 *
 * <p>The builders themselves ({@code FilterBuilder}, {@code StringFilterBuilder}, their base
 * {@code BufferedFilterBuilder}, {@code LongArrayBuilder}) stay in {@code
 * io.sparkbloom.spark}: they are aggregation buffers that Java serialization and Kryo write with
 * their class names, into shuffles and into the state a streaming query checkpoints, so their
 * names are part of their serialized form. {@code DistinctLongs}, written the same way by the
 * RDD per-key builds, has had its name here from the start.
 */
package io.sparkbloom.spark.build;
