/**
 * Internal, not API: may change in any release. The dedup of candidates against per-key filters
 * behind {@code PerKeyFilters.dedup}: {@link io.sparkbloom.spark.dedup.HashJoinDedup} (a left
 * outer hash join per partition, one {@code retainAbsent} call per candidate record), {@link
 * io.sparkbloom.spark.dedup.BroadcastDedup} (the filters collected and broadcast as their FORMAT
 * bytes, {@link io.sparkbloom.spark.dedup.BoundedCollect} keeping the driver under {@link
 * io.sparkbloom.spark.dedup.BroadcastLimit}), and {@link
 * io.sparkbloom.spark.dedup.BatchedRetainAbsent} (one filter over an iterator, in batches).
 */
package io.sparkbloom.spark.dedup;
