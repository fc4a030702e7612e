/**
 * sparkbloom on Apache Spark: one Bloom filter per key (per user, say), stored compactly, and
 * the dedup of new candidates against it. Java code, usable from Java, Scala and (through SQL)
 * PySpark; Spark 4.x / Scala 2.13, Spark is {@code provided}.
 *
 * <h2>RDDs: {@link io.sparkbloom.spark.PerKeyFilters}</h2>
 *
 * <pre>{@code
 * JavaPairRDD<String, BloomFilter> filters =
 *     PerKeyFilters.buildPerKey(history, PerKeyOptions.of(Sizing.fixed(10_000, 0.001)).withPartitions(200));
 * PerKeyFilters.saveAsObjectFile(filters, path);
 * JavaPairRDD<String, long[]> fresh = PerKeyFilters.dedup(PerKeyFilters.objectFile(jsc, path), candidates);
 * }</pre>
 *
 * <ul>
 *   <li>Items reach the native filter in batches ({@link io.sparkbloom.spark.FilterBuilder}
 *       buffers 4096 in a {@code long[]} per {@code putAll}); candidates are queried with one
 *       {@code retainAbsent} call per record. No JNI call per item.
 *   <li>No false negatives: an item put into a key's filter is always dropped from that key's
 *       candidates. An unseen item is dropped with probability about the filter's fpp.
 *   <li>A key with candidates but no filter keeps all its candidates.
 *   <li>String item ids: the {@code ...Strings} helpers ({@code buildPerKeyStrings},
 *       {@code dedupStrings}, ...) hash each string as its UTF-8 bytes, as Guava's
 *       {@code Funnels.stringFunnel(UTF_8)} does, in batches of 4096 per native call.
 *   <li>Filters hash-partitioned at build time are saved with their partitioning and read back
 *       with their partitioner, so the dedup join shuffles only the candidates.
 * </ul>
 *
 * <h2>DataFrames and SQL: {@link io.sparkbloom.spark.BloomFunctions}</h2>
 *
 * An aggregate that builds a filter per group into a {@code BINARY} column (the FORMAT.md
 * bytes: store it in Parquet, read it from Java or Rust), {@code retainAbsent} and
 * {@code mightContain}; {@code BloomFunctions.register(spark)} makes them SQL functions
 * {@code sparkbloom_build(item, n, p)}, {@code sparkbloom_retain_absent(filter, items)},
 * {@code sparkbloom_might_contain(filter, item)} (integer or string item), and for string items
 * {@code sparkbloom_build_string(item, n, p)}, {@code sparkbloom_retain_absent_string(filter,
 * items)}; {@code sparkbloom_build_array(items, p)} builds one filter per row from an array of
 * items, with no {@code GROUP BY}.
 *
 * <h2>Serialization</h2>
 *
 * Filters are correct under Java serialization (always used by {@code saveAsObjectFile}), Kryo,
 * and Kryo without {@link io.sparkbloom.spark.SparkBloomKryoRegistrator}; every form carries the
 * FORMAT.md bytes, never a native pointer. A broadcast filter is shared by the tasks of an
 * executor: query it concurrently, never {@code close()} it.
 *
 * <h2>The example job</h2>
 *
 * {@code io.sparkbloom.spark.example.PerUserDedupJob}, in the separate {@code examples/jvm}
 * module ({@code scripts/run-example.sh}), runs the classic per-user Guava pipeline and the sparkbloom one side by side on the same data and
 * reports time per stage, bytes on disk, false negatives and the observed false-positive rate.
 */
package io.sparkbloom.spark;
