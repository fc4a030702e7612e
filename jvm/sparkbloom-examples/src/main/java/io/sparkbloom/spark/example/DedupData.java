package io.sparkbloom.spark.example;

import io.sparkbloom.spark.LongArrayBuilder;
import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The job's input: every user's history (generated as the seed's {@code genRandomData}, or read
 * from the user's CSV/Parquet), the new candidates per user, and the exact counts of seen and
 * unseen candidates that the pipelines are judged against.
 */
final class DedupData {
  /** (user, history records), cached. */
  final JavaPairRDD<String, long[]> history;
  /** (user, item) pairs read from {@code --input}, not cached; null for generated data. */
  final JavaPairRDD<String, Long> pairs;
  /** (user, candidates), cached. */
  final JavaPairRDD<String, long[]> candidates;

  private DedupData(JavaPairRDD<String, long[]> history, JavaPairRDD<String, Long> pairs,
      JavaPairRDD<String, long[]> candidates) {
    this.history = history;
    this.pairs = pairs;
    this.candidates = candidates;
  }

  /** The data of about one user in {@code every}, as generated data (built per record). */
  DedupData everyNthUser(int every) {
    return new DedupData(
        history.filter(kv -> Math.floorMod(kv._1().hashCode(), every) == 0),
        null,
        candidates.filter(kv -> Math.floorMod(kv._1().hashCode(), every) == 0));
  }

  /** The data with where it came from and its exact counts. */
  static final class Prepared {
    final DedupData data;
    /** One line for the report: generated (seed, sizes) or read from a path. */
    final String source;
    final long users;
    final long records;
    final long candidates;
    /** Candidates that are in the user's history: a filter must drop every one. */
    final long seen;
    final double seconds;

    private Prepared(DedupData data, String source, long users, long[] truth, double seconds) {
      this.data = data;
      this.source = source;
      this.users = users;
      this.records = truth[0];
      this.candidates = truth[1];
      this.seen = truth[2];
      this.seconds = seconds;
    }

    long unseen() {
      return candidates - seen;
    }
  }

  /** Generates or reads the history, draws the candidates and counts them exactly. */
  static Prepared prepare(SparkSession spark, Options o, int partitions) {
    long t0 = System.nanoTime();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    JavaPairRDD<String, long[]> history;
    JavaPairRDD<String, Long> pairs = null;
    String source;
    if (o.input == null) {
      history = generatedHistory(jsc, o, partitions);
      source = String.format(Locale.ROOT,
          "generated as the seed's genRandomData (seed %d): %,d users x %,d records",
          o.seed, o.users, o.records);
    } else {
      pairs = readPairs(spark, o, partitions);
      history = pairs
          .aggregateByKey(new LongArrayBuilder(), partitions, LongArrayBuilder::add, LongArrayBuilder::addAll)
          .mapValues(LongArrayBuilder::toArray);
      source = "read from " + o.input;
    }
    history = history.persist(StorageLevel.MEMORY_ONLY());
    long users = history.count();
    long seed = o.seed;
    int perUser = o.candidates;
    double seenFraction = o.seenFraction;
    JavaPairRDD<String, long[]> candidates = history
        .mapToPair(kv -> new Tuple2<>(kv._1(),
            SeedData.candidates(seed, kv._1(), kv._2(), perUser, seenFraction)))
        .persist(StorageLevel.MEMORY_ONLY());
    long[] truth = Evaluation.groundTruth(history, candidates);
    if (o.writeInput != null) {
      writeCsv(spark, history, o.writeInput);
    }
    return new Prepared(new DedupData(history, pairs, candidates), source, users, truth, Seconds.since(t0));
  }

  private static JavaPairRDD<String, long[]> generatedHistory(JavaSparkContext jsc, Options o, int partitions) {
    long seed = o.seed;
    int recordsPerUser = o.records;
    List<Integer> users = new ArrayList<>(o.users);
    for (int u = 0; u < o.users; u++) {
      users.add(u);
    }
    return jsc.parallelize(users, partitions)
        .mapToPair(u -> new Tuple2<>(Integer.toString(u), SeedData.history(seed, u, recordsPerUser)));
  }

  /** (user, item) pairs from the user's CSV (header) or Parquet file. */
  private static JavaPairRDD<String, Long> readPairs(SparkSession spark, Options o, int partitions) {
    String format = o.format;
    if (format == null) {
      format = looksLikeCsv(o.input) ? "csv" : "parquet";
    }
    Dataset<Row> df = format.equals("csv")
        ? spark.read().option("header", "true").csv(o.input)
        : spark.read().parquet(o.input);
    List<String> cols = Arrays.asList(df.columns());
    String userCol = cols.contains("user") ? "user" : cols.get(0);
    String itemCol = cols.contains("item") ? "item" : cols.get(1);
    return df.select(df.col(userCol).cast("string"), df.col(itemCol).cast("long"))
        .javaRDD()
        .filter(r -> !r.isNullAt(0) && !r.isNullAt(1))
        .mapToPair(r -> new Tuple2<>(r.getString(0), r.getLong(1)))
        .repartition(partitions);
  }

  private static boolean looksLikeCsv(String path) {
    if (path.toLowerCase(Locale.ROOT).endsWith(".csv")) {
      return true;
    }
    File f = new File(path);
    String[] names = f.isDirectory() ? f.list() : null;
    return names != null && Arrays.stream(names).anyMatch(s -> s.toLowerCase(Locale.ROOT).endsWith(".csv"));
  }

  private static void writeCsv(SparkSession spark, JavaPairRDD<String, long[]> history, String dir) {
    JavaRDD<Row> rows = history.flatMap(kv -> {
      List<Row> out = new ArrayList<>(kv._2().length);
      for (long v : kv._2()) {
        out.add(RowFactory.create(kv._1(), v));
      }
      return out.iterator();
    });
    StructType schema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("item", DataTypes.LongType, false);
    spark.createDataFrame(rows, schema).write().mode("overwrite").option("header", "true").csv(dir);
  }
}
