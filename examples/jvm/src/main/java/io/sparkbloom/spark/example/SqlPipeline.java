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
 * filter per user as a table {@code (user STRING, filter BINARY)}, written as Parquet, read back,
 * and the candidates deduped by a left join and {@value BloomFunctions#RETAIN_ABSENT}
 * ({@link #QUERY_DEDUP}).
 *
 * <p>The build follows the shape of the history, as the RDD pipeline does. Generated history is
 * already grouped per user, so it is a view of {@code (user, items ARRAY<BIGINT>)} and each row
 * becomes its filter by {@value BloomFunctions#BUILD_ARRAY}, with no {@code GROUP BY} and no
 * shuffle ({@link #QUERY_BUILD_ARRAYS}). History read from {@code --input} comes as {@code (user,
 * item)} rows, grouped by the aggregate {@value BloomFunctions#BUILD_PER_KEY} (or {@value
 * BloomFunctions#BUILD} with {@code --sizing fixed}) ({@link #QUERY_BUILD}).
 */
final class SqlPipeline extends Pipeline {
  /** The temporary view of the history as rows (user, item): history read from {@code --input}. */
  static final String HISTORY_VIEW = "sparkbloom_example_history";
  /** The temporary view of the history as one row per user (user, items ARRAY&lt;BIGINT&gt;): generated history. */
  static final String HISTORY_ARRAYS_VIEW = "sparkbloom_example_history_arrays";
  /** The temporary view of the candidates as rows (user, items ARRAY&lt;BIGINT&gt;). */
  static final String CANDIDATES_VIEW = "sparkbloom_example_candidates";
  /** The build from (user, item) rows; %s is the aggregate call ({@link #buildCall}). */
  static final String QUERY_BUILD = "SELECT user, %s AS filter FROM " + HISTORY_VIEW + " GROUP BY user";
  /** The build from (user, items) rows, one filter per row; %s is the array call ({@link #buildCall}). */
  static final String QUERY_BUILD_ARRAYS = "SELECT user, %s AS filter FROM " + HISTORY_ARRAYS_VIEW;
  /** The dedup; %s is the Parquet directory of the filters. */
  static final String QUERY_DEDUP = "SELECT c.user, " + BloomFunctions.RETAIN_ABSENT
      + "(f.filter, c.items) AS kept FROM " + CANDIDATES_VIEW + " c LEFT JOIN parquet.`%s` f"
      + " ON c.user = f.user";

  /** The session's cached history and candidates and their views, shared by the SQL pipelines. */
  private static final class Views {
    /** The data the views hold now, so that every run on the same data reuses them. */
    DedupData of;
    /** Whether the history view holds one array per user ({@link #HISTORY_ARRAYS_VIEW}). */
    boolean grouped;
    Dataset<Row> history;
    Dataset<Row> candidates;
  }

  private final SparkSession spark;
  private final Views views;

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
    this.views = new Views();
  }

  /**
   * A pipeline named {@code name} that builds with {@code own} instead of the job's options and
   * reads the views of {@code viewsOf}, so the data is cached once.
   */
  SqlPipeline(SqlPipeline viewsOf, String name, Options own) {
    super(name, own);
    this.spark = viewsOf.spark;
    this.views = viewsOf.views;
  }

  /**
   * The call that builds one user's filter under {@code --sizing}: over the user's array of items
   * if {@code grouped}, else the aggregate over the user's rows.
   */
  static String buildCall(Options o, boolean grouped) {
    String sizing = o.perKeySizing()
        ? String.format(Locale.ROOT, "%s", o.p)
        : String.format(Locale.ROOT, "%d, %s", o.n, o.p);
    if (grouped) {
      return BloomFunctions.BUILD_ARRAY + "(items, " + sizing + ")";
    }
    return (o.perKeySizing() ? BloomFunctions.BUILD_PER_KEY : BloomFunctions.BUILD) + "(item, " + sizing + ")";
  }

  /** The build statement: {@link #QUERY_BUILD_ARRAYS} if {@code grouped}, else {@link #QUERY_BUILD}. */
  static String buildQuery(Options o, boolean grouped) {
    return String.format(Locale.ROOT, grouped ? QUERY_BUILD_ARRAYS : QUERY_BUILD, buildCall(o, grouped));
  }

  /**
   * The history as one (user, items) row per user when it is generated (grouped), else as its
   * (user, item) rows, and the candidates as (user, items), cached as tables.
   */
  @Override
  void prepare(DedupData data) {
    Views v = views;
    if (data == v.of) {
      return;
    }
    if (v.history != null) {
      v.history.unpersist(false);
      v.candidates.unpersist(false);
    }
    v.grouped = data.pairs == null;
    if (v.grouped) {
      JavaRDD<Row> lists = data.history.map(kv -> RowFactory.create(kv._1(), boxed(kv._2())));
      v.history = spark.createDataFrame(lists, new StructType()
              .add("user", DataTypes.StringType, false)
              .add("items", DataTypes.createArrayType(DataTypes.LongType, false), false))
          .persist(StorageLevel.MEMORY_ONLY());
    } else {
      JavaRDD<Row> items = data.pairs.map(kv -> RowFactory.create(kv._1(), kv._2()));
      v.history = spark.createDataFrame(items, new StructType()
              .add("user", DataTypes.StringType, false)
              .add("item", DataTypes.LongType, false))
          .persist(StorageLevel.MEMORY_ONLY());
    }
    JavaRDD<Row> offered = data.candidates.map(kv -> RowFactory.create(kv._1(), boxed(kv._2())));
    v.candidates = spark.createDataFrame(offered, new StructType()
            .add("user", DataTypes.StringType, false)
            .add("items", DataTypes.createArrayType(DataTypes.LongType, false), false))
        .persist(StorageLevel.MEMORY_ONLY());
    v.history.count();
    v.candidates.count();
    v.history.createOrReplaceTempView(v.grouped ? HISTORY_ARRAYS_VIEW : HISTORY_VIEW);
    v.candidates.createOrReplaceTempView(CANDIDATES_VIEW);
    v.of = data;
  }

  @Override
  void buildAndSave(Options o, DedupData data, String uri) {
    spark.sql(buildQuery(o, views.grouped)).write().parquet(uri);
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
