/**
 * Internal, not API: may change in any release. RDD plumbing shared by the build, storage and
 * dedup code: {@link io.sparkbloom.spark.rdd.ScalaRdds} views a Scala pair RDD as a {@code
 * JavaPairRDD} (the Scala overloads of {@code PerKeyFilters}), {@link
 * io.sparkbloom.spark.rdd.KnownPartitionerRDD} declares the partitioner of records already placed
 * by it, so a join with it moves only the other side; {@link
 * io.sparkbloom.spark.rdd.MappedIterator} streams a partition's records through a function.
 */
package io.sparkbloom.spark.rdd;
