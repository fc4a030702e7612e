package io.sparkbloom.spark.example;

import io.sparkbloom.spark.BloomFunctions;
import io.sparkbloom.spark.SparkBloomExtensions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;

/**
 * sparkbloom through SQL only ({@code --api sql}), with the functions that {@code
 * spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions} puts in every session: one
 * filter per user as a table {@code (user STRING, filter BINARY)} built by {@value
 * BloomFunctions#BUILD_PER_KEY} (or {@value BloomFunctions#BUILD} with {@code --sizing fixed}),
 * written as Parquet, read back, and the candidates deduped by a left join and {@value
 * BloomFunctions#RETAIN_ABSENT}. {@link #QUERY_BUILD} and {@link #QUERY_DEDUP} are the two
 * statements.
 */
final class SqlPipeline extends Pipeline {
  /** The temporary view of the history as rows (user, item). */
  static final String HISTORY_VIEW = "sparkbloom_example_history";
  /** The temporary view of the candidates as rows (user, items ARRAY&lt;BIGINT&gt;). */
  static final String CANDIDATES_VIEW = "sparkbloom_example_candidates";
  /** The build; %s is the aggregate call ({@link #buildCall}). */
  static final String QUERY_BUILD = "SELECT user, %s AS filter FROM " + HISTORY_VIEW + " GROUP BY user";
  /** The dedup; %s is the Parquet directory of the filters. */
  static final String QUERY_DEDUP = "SELECT c.user, " + BloomFunctions.RETAIN_ABSENT
      + "(f.filter, c.items) AS kept FROM " + CANDIDATES_VIEW + " c LEFT JOIN parquet.`%s` f"
      + " ON c.user = f.user";

  private final SparkSession spark;
  /** The data the views hold now, so that every run on the same data reuses them. */
  private DedupData viewsOf;
  private Dataset<Row> history;
  private Dataset<Row> candidates;

  /**
   * @throws IllegalStateException if the session lacks the sparkbloom SQL functions, naming the
   *     setting that adds them
   */
  SqlPipeline(SparkSession spark, String name) {
    super(name);
    if (!spark.catalog().functionExists(BloomFunctions.BUILD_PER_KEY)) {
      throw new IllegalStateException("--api sql needs the sparkbloom SQL functions in the session:"
          + " start it with --conf spark.sql.extensions=" + SparkBloomExtensions.class.getName());
    }
    this.spark = spark;
  }

  /** The aggregate that builds one user's filter under {@code --sizing}. */
  static String buildCall(Options o) {
    return o.perKeySizing()
        ? String.format(Locale.ROOT, "%s(item, %s)", BloomFunctions.BUILD_PER_KEY, o.p)
        : String.format(Locale.ROOT, "%s(item, %d, %s)", BloomFunctions.BUILD, o.n, o.p);
  }

  /** The history as (user, item) rows and the candidates as (user, items), cached as tables. */
  @Override
  void prepare(DedupData data) {
    if (data == viewsOf) {
      return;
    }
    if (history != null) {
      history.unpersist(false);
      candidates.unpersist(false);
    }
    JavaRDD<Row> items = data.history.flatMap(kv -> {
      List<Row> rows = new ArrayList<>(kv._2().length);
      for (long item : kv._2()) {
        rows.add(RowFactory.create(kv._1(), item));
      }
      return rows.iterator();
    });
    history = spark.createDataFrame(items, new StructType()
            .add("user", DataTypes.StringType, false)
            .add("item", DataTypes.LongType, false))
        .persist(StorageLevel.MEMORY_ONLY());
    JavaRDD<Row> offered = data.candidates.map(kv -> RowFactory.create(kv._1(), boxed(kv._2())));
    candidates = spark.createDataFrame(offered, new StructType()
            .add("user", DataTypes.StringType, false)
            .add("items", DataTypes.createArrayType(DataTypes.LongType, false), false))
        .persist(StorageLevel.MEMORY_ONLY());
    history.count();
    candidates.count();
    history.createOrReplaceTempView(HISTORY_VIEW);
    candidates.createOrReplaceTempView(CANDIDATES_VIEW);
    viewsOf = data;
  }

  @Override
  void buildAndSave(Options o, DedupData data, String uri) {
    spark.sql(String.format(Locale.ROOT, QUERY_BUILD, buildCall(o))).write().parquet(uri);
  }

  @Override
  JavaPairRDD<String, long[]> loadAndDedup(JavaSparkContext jsc, DedupData data, String uri) {
    // read as typed (user, long[]) pairs, as a Dataset user would: the array encoder copies each
    // row's kept items straight into a long[] where Row.getList would box every one
    return spark.sql(String.format(Locale.ROOT, QUERY_DEDUP, uri))
        .as(Encoders.tuple(Encoders.STRING(), spark.implicits().newLongArrayEncoder()))
        .javaRDD()
        .mapToPair(t -> t);
  }

  @Override
  long countFilters(JavaSparkContext jsc, String uri) {
    return spark.read().parquet(uri).count();
  }

  @Override
  String buildStage() {
    return "SQL build + write Parquet";
  }

  @Override
  String dedupStage() {
    return "read Parquet + SQL left join + retain_absent";
  }

  private static Long[] boxed(long[] items) {
    Long[] out = new Long[items.length];
    for (int i = 0; i < items.length; i++) {
      out[i] = items[i];
    }
    return out;
  }
}
