// Per-user dedup with sparkbloom from Scala: RDD helpers, then the DataFrame functions.
// The Scala twin of the Java code in PerUserDedupJob / AbstractPipelineTest / BloomFunctionsTest;
// compiled and run against Spark 4.1.3 / Scala 2.13 by ScalaExampleTest, and by the sbt build in
// tests/consumers/sbt against Spark 3.5.9 / Scala 2.12 and Spark 4.1.3 / Scala 2.13
// (scripts/test-sbt-consumer.sh; README.md, sections "Depending on it" and "Scala").
import io.sparkbloom.BloomFilter
import io.sparkbloom.spark.{BloomFunctions, PerKeyFilters, PerKeyOptions, Sizing}
import org.apache.spark.api.java.JavaPairRDD
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.col

object PerUserDedup {
  def main(args: Array[String]): Unit = {
    val output = args.headOption.getOrElse("out/scala-example/filters")
    val spark = SparkSession.builder().master("local[2]").appName("per-user dedup").getOrCreate()
    val sc = spark.sparkContext
    import spark.implicits._

    // 100 users x 200 history items, and 100 candidates per user: 50 seen, 50 new
    val rnd = new scala.util.Random(666)
    val seen: Map[String, Array[Long]] =
      (0 until 100).map(u => u.toString -> Array.fill(200)(rnd.nextLong())).toMap
    val history: RDD[(String, Long)] =
      sc.parallelize(seen.toSeq.flatMap { case (user, items) => items.map(item => (user, item)) })
    val candidates: RDD[(String, Array[Long])] =
      sc.parallelize(seen.toSeq.map { case (user, items) => (user, items.take(50) ++ Array.fill(50)(rnd.nextLong())) })

    // 1. one filter per user (items reach the native side in batches), stored as an objectFile
    //    in 4 hash partitions, the partitioning recorded beside the part files
    val filters: RDD[(String, BloomFilter)] =
      PerKeyFilters.buildPerKey(history, PerKeyOptions.of(Sizing.fixed(10000L, 0.001)).withPartitions(4))
    PerKeyFilters.saveAsObjectFile(filters, output)

    // 2. later: load them (with their partitioner) and keep, per user, the candidates the user's
    //    filter has not seen; the join moves only the candidates
    val stored: RDD[(String, BloomFilter)] = PerKeyFilters.objectFile(sc, output)
    val fresh: RDD[(String, Array[Long])] = PerKeyFilters.dedup(stored, candidates)

    // from (user, Array[Long]) records already grouped per user: one putAll per user, no
    // aggregation; built and saved in 4 hash partitions
    val perRecord: RDD[(String, BloomFilter)] = PerKeyFilters.buildPerRecord(
      sc.parallelize(seen.toSeq), PerKeyOptions.of(Sizing.fixed(10000L, 0.001)).withPartitions(4))
    PerKeyFilters.saveAsObjectFile(perRecord, output + "-per-record")
    val perRecordStored: RDD[(String, BloomFilter)] = PerKeyFilters.objectFile(sc, output + "-per-record")
    val fresh4: RDD[(String, Array[Long])] = PerKeyFilters.dedup(perRecordStored, candidates)
    require(fresh4.map(_._2.length).sum() == fresh.map(_._2.length).sum())
    // candidates as (user, item) pairs
    val candidatePairs: RDD[(String, Long)] = candidates.flatMap { case (user, items) => items.map(i => (user, i)) }
    require(PerKeyFilters.dedupPairs(JavaPairRDD.fromRDD(stored), JavaPairRDD.fromRDD(candidatePairs.mapValues(v => java.lang.Long.valueOf(v))))
      .count() == fresh4.map(_._2.length).sum().toLong)

    // plain Spark works too: filters.saveAsObjectFile(path); sc.objectFile[(String, BloomFilter)](path)
    val plain: RDD[(String, BloomFilter)] = sc.objectFile[(String, BloomFilter)](output)
    require(PerKeyFilters.dedup(plain, candidates).count() == fresh.count())
    val kept = fresh.collect()
    require(kept.forall { case (user, items) => items.forall(i => !seen(user).contains(i)) }, "a seen item passed")
    println(s"RDD: kept ${kept.map(_._2.length).sum} of ${100 * 100} candidates (5000 are new)")

    // 3. the same with DataFrames: a binary filter column per user, then keep the unseen ones
    val filterDf = history.toDF("user", "item").groupBy("user")
      .agg(BloomFunctions.build(col("item"), 10000L, 0.001).as("filter"))
    val keptDf = candidates.toDF("user", "items").join(filterDf, Seq("user"), "left")
      .select(col("user"), BloomFunctions.retainAbsent(col("filter"), col("items")).as("items"))
    val keptRows = keptDf.as[(String, Array[Long])].collect()
    require(keptRows.forall { case (user, items) => items.forall(i => !seen(user).contains(i)) }, "a seen item passed")
    println(s"DataFrame: kept ${keptRows.map(_._2.length).sum} of ${100 * 100} candidates")
    spark.stop()
  }
}
