package io.sparkbloom.spark.example;

import io.sparkbloom.spark.SparkBloomExtensions;
import io.sparkbloom.spark.SparkBloomKryoRegistrator;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The per-user dedup job, run on the same data with sparkbloom and with Guava's {@code
 * BloomFilter} as a classic Spark pipeline uses it, timing each stage and comparing bytes on
 * disk, false negatives and the observed false-positive rate against the exact ground truth.
 * sparkbloom sizes each user's filter for that user's items by default, where Guava's take one
 * fixed n; so the job also runs sparkbloom at Guava's n and p, the like-for-like comparison, and
 * the report gives what per-key sizing gains over both.
 *
 * <p>Pipeline (both libraries, see {@link Pipeline}): build one filter per user from the history
 * &rarr; {@code saveAsObjectFile} &rarr; {@code objectFile} &rarr; {@code leftOuterJoin} with the
 * new candidates &rarr; keep the candidates the user's filter has not seen. With {@code --api sql}
 * sparkbloom runs the same steps in SQL ({@link SqlPipeline}): a {@code (user, filter)} table
 * saved as Parquet, a left join and {@code sparkbloom_retain_absent}.
 *
 * <p>Run it with {@code scripts/run-example.sh [flags]}; {@code --help} lists the flags
 * ({@link Options}). The data: {@link DedupData}; the report: {@link Report}.
 */
public final class PerUserDedupJob {
  private PerUserDedupJob() {}

  /** About how many users the untimed warm-up runs the pipelines on ({@link #warmUp}). */
  static final int WARM_UP_USERS = 10_000;

  /** The SQL pipeline's shuffle partitions: the job's partition count unless set with --conf. */
  static final String SHUFFLE_PARTITIONS = "spark.sql.shuffle.partitions";

  /** The SQL pipeline's name beside the RDD one ({@code --api both}). */
  static final String SQL_NAME = "sparkbloom-sql";

  /** The name of sparkbloom's run at Guava's fixed n and p beside its per-key run. */
  static final String FIXED_NAME = "sparkbloom-fixed";

  /**
   * Users per input partition above which the default partition count grows past 4 x cores:
   * 20,000 users of 200 records are 32 MB of {@code long[]} per partition, so a partition's
   * shuffle blocks and join maps stay the same size as the users grow.
   */
  static final int USERS_PER_PARTITION = 20_000;

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SparkConf conf = new SparkConf()
        .setAppName("sparkbloom per-user dedup")
        .setIfMissing("spark.master", o.master)
        .setIfMissing("spark.ui.enabled", "false")
        .setIfMissing("spark.ui.showConsoleProgress", "false");
    if (o.master.startsWith("local")) {
      conf.setIfMissing("spark.driver.host", "127.0.0.1")
          .setIfMissing("spark.driver.bindAddress", "127.0.0.1");
    }
    if (o.runsSql()) {
      conf.setIfMissing("spark.sql.extensions", SparkBloomExtensions.class.getName());
    }
    if (o.serializer.equals("kryo")) {
      conf.set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
          .set("spark.kryo.registrator", SparkBloomKryoRegistrator.class.getName());
    }
    SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
    int exit = 0;
    try {
      exit = run(spark, o, System.out);
    } finally {
      spark.stop();
    }
    System.exit(exit);
  }

  /** Runs the pipelines and prints the report; returns 0, or 1 if a false negative was seen. */
  static int run(SparkSession spark, Options o, PrintStream out) throws IOException {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    jsc.setLogLevel("WARN");
    int partitions = o.partitions > 0 ? o.partitions
        : Math.max(4 * jsc.defaultParallelism(), (o.users + USERS_PER_PARTITION - 1) / USERS_PER_PARTITION);
    if (o.runsSql() && !spark.conf().contains(SHUFFLE_PARTITIONS)) {
      // the SQL pipeline's shuffles get the partition count the RDD pipelines are given, as a SQL
      // job is tuned (SET spark.sql.shuffle.partitions), instead of Spark's default of 200: the
      // build's shuffle would write 200 blocks per map task for 8 tasks' worth of data
      spark.conf().set(SHUFFLE_PARTITIONS, Integer.toString(partitions));
    }
    Path outDir = Paths.get(o.output).toAbsolutePath();
    Files.createDirectories(outDir);
    for (String stale : List.of("sparkbloom-filters", FIXED_NAME + "-filters", SQL_NAME + "-filters",
        "guava-filters")) {
      LocalFiles.deleteRecursively(outDir.resolve(stale));
    }
    // the first pipeline is the report's "sparkbloom" column; with per-key sizing and Guava, the
    // same API at Guava's fixed n and p follows (the like-for-like run); with --api both, SQL's
    // comes next; Guava's is last
    Pipeline first = o.sqlApi() ? new SqlPipeline(spark, "sparkbloom") : new SparkbloomPipeline(o);
    List<Pipeline> pipelines = new ArrayList<>(List.of(first));
    if (o.runsFixedBeside()) {
      pipelines.add(o.sqlApi() ? new SqlPipeline((SqlPipeline) first, FIXED_NAME, o.withFixedSizing())
          : new SparkbloomPipeline(FIXED_NAME, o.withFixedSizing()));
    }
    if (o.bothApis()) {
      pipelines.add(new SqlPipeline(spark, SQL_NAME));
    }
    if (!o.skipGuava) {
      pipelines.add(new GuavaPipeline());
    }

    ShuffleBytes shuffle = ShuffleBytes.on(spark.sparkContext());
    try (Progress progress = new Progress(jsc, out)) {
      progress.stage("prepare data");
      DedupData.Prepared prepared = DedupData.prepare(spark, o, partitions);
      DedupData data = prepared.data;
      out.printf(Locale.ROOT, "[data] %,d users, %,d history records, %,d candidates (%,d seen, %,d unseen) in %.1f s%n",
          prepared.users, prepared.records, prepared.candidates, prepared.seen, prepared.unseen(), prepared.seconds);

      if (o.warmup) {
        warmUp(jsc, o, data, prepared.users, pipelines, outDir.resolve("warmup"), progress, shuffle, out);
      }

      // the pipelines, alternating, --runs times; the report keeps each one's best run
      PipelineResult[] best = new PipelineResult[pipelines.size()];
      for (int run = 1; run <= o.runs; run++) {
        String tag = o.runs == 1 ? "" : " (run " + run + "/" + o.runs + ")";
        for (int i = 0; i < pipelines.size(); i++) {
          Pipeline pipeline = pipelines.get(i);
          Path dir = outDir.resolve(pipeline.name.toLowerCase(Locale.ROOT) + "-filters");
          PipelineResult r = pipeline.run(jsc, o, data, dir, progress, shuffle, pipeline.name + tag);
          out.printf(Locale.ROOT, "[%s%s] build+save %.2f s, load+dedup %.2f s, job %.2f s (CPU %.1f + %.1f s),"
                  + " %,d bytes on disk, shuffle %,d + %,d bytes%s%n",
              pipeline.name, tag, r.buildSaveSeconds, r.loadDedupSeconds, r.jobSeconds(),
              r.buildSaveCpuSeconds, r.loadDedupCpuSeconds, r.bytesOnDisk,
              r.buildSaveShuffleBytes, r.loadDedupShuffleBytes,
              r.plan == null ? "" : ", dedup plan: " + r.plan);
          best[i] = PipelineResult.best(best[i], r);
        }
      }
      for (PipelineResult r : best) {
        progress.stage(r.name + ": evaluate");
        Evaluation.evaluate(r, data.history);
      }
      PipelineResult sb = best[0];
      PipelineResult fixed = o.runsFixedBeside() ? best[1] : null;
      PipelineResult sql = o.bothApis() ? best[fixed == null ? 1 : 2] : null;
      PipelineResult gv = o.skipGuava ? null : best[best.length - 1];
      // users whose answers differ from Guava's: the like-for-like run's (sparkbloom's own with
      // --sizing fixed), and with per-key sizing also sparkbloom's own
      long differing = -1;
      long differingPerKey = -1;
      if (gv != null) {
        progress.stage("compare answers");
        differing = Evaluation.differingUsers(fixed == null ? sb : fixed, gv);
        if (fixed != null) {
          differingPerKey = Evaluation.differingUsers(sb, gv);
        }
      }
      progress.stage(null);

      Report report = new Report(out, o, prepared, sb, fixed, gv);
      report.print(spark, differing, differingPerKey, outDir);
      if (sql != null) {
        report.printSql(sql, spark.conf().get(SHUFFLE_PARTITIONS));
      }
      for (PipelineResult r : best) {
        if (r.falseNegatives != 0) {
          return 1;
        }
      }
      return 0;
    }
  }

  /**
   * Every pipeline once on all the users (about 10,000 of them above that), untimed: the first
   * Spark jobs of a JVM run cold (class loading, JIT), and without this, whichever pipeline runs
   * first pays for it. A small warm-up leaves them still warming through the timed runs, so
   * best-of-3 would measure how fast each one's code reaches steady state as much as the code;
   * a full-size pass of each, on the same data, is as fair to all and gets nearer to it.
   */
  private static void warmUp(JavaSparkContext jsc, Options o, DedupData data, long users,
      List<Pipeline> pipelines, Path dir, Progress progress, ShuffleBytes shuffle, PrintStream out)
      throws IOException {
    int every = (int) Math.max(1, users / WARM_UP_USERS);
    progress.stage("warm-up (the pipelines on 1/" + every + " of the users, not timed)");
    long t0 = System.nanoTime();
    DedupData subset = every == 1 ? data : data.everyNthUser(every);
    LocalFiles.deleteRecursively(dir);
    for (Pipeline pipeline : pipelines) {
      PipelineResult w = pipeline.run(jsc, o, subset, dir.resolve(pipeline.name.toLowerCase(Locale.ROOT)),
          progress, shuffle, "warm-up");
      w.kept.unpersist(false);
    }
    LocalFiles.deleteRecursively(dir);
    out.printf(Locale.ROOT, "[warm-up] %.1f s%n", Seconds.since(t0));
  }
}
