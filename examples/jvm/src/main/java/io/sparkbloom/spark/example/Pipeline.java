package io.sparkbloom.spark.example;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * One library's per-user dedup, timed in two stages: build one filter per user &rarr; save them
 * ({@code saveAsObjectFile}, or Parquet for {@link SqlPipeline}); then read them back &rarr; join
 * with the candidates &rarr; keep the candidates the user's filter has not seen.
 */
abstract class Pipeline {
  /** The name in the report: "sparkbloom", "Guava", ... */
  final String name;
  /** The options this pipeline runs with in place of the job's, or null for the job's. */
  private final Options own;

  Pipeline(String name) {
    this(name, null);
  }

  /** A pipeline that runs with {@code own} (e.g. other sizing) instead of the job's options. */
  Pipeline(String name, Options own) {
    this.name = name;
    this.own = own;
  }

  /** Untimed preparation of {@code data} for this pipeline (none by default). */
  void prepare(DedupData data) {}

  /** Builds one filter per user of {@code data} and saves them as an objectFile at {@code uri}. */
  abstract void buildAndSave(Options o, DedupData data, String uri);

  /** How many filters were saved at {@code uri} (not timed). */
  long countFilters(JavaSparkContext jsc, String uri) {
    return jsc.objectFile(uri).count();
  }

  /** The progress label of the first timed stage. */
  String buildStage() {
    return "build + saveAsObjectFile";
  }

  /** The progress label of the second timed stage. */
  String dedupStage() {
    return "objectFile + leftOuterJoin + keep unseen";
  }

  /** Reads the filters at {@code uri} back and returns, per user, the candidates they have not seen. */
  abstract JavaPairRDD<String, long[]> loadAndDedup(JavaSparkContext jsc, DedupData data, String uri);

  /** The dedup plan the last {@link #loadAndDedup} chose, or null if it has no choice. */
  String lastPlan() {
    return null;
  }

  /**
   * Both stages into {@code dir} (emptied first), timed; the kept candidates stay cached. The
   * build takes the job's options {@code o} unless this pipeline has its own.
   */
  final PipelineResult run(JavaSparkContext jsc, Options o, DedupData data, Path dir,
      Progress progress, ShuffleBytes shuffle, String label) throws IOException {
    Options options = own == null ? o : own;
    PipelineResult r = new PipelineResult(name);
    LocalFiles.deleteRecursively(dir);
    String uri = dir.toUri().toString();
    progress.stage(label + ": prepare (not timed)");
    prepare(data);
    progress.stage(label + ": " + buildStage());
    long s0 = shuffle.written();
    long t0 = System.nanoTime();
    long c0 = Seconds.cpuNanos();
    buildAndSave(options, data, uri);
    r.buildSaveSeconds = Seconds.since(t0);
    r.buildSaveCpuSeconds = Seconds.cpuSince(c0);
    long s1 = shuffle.written();
    r.buildSaveShuffleBytes = s1 - s0;
    progress.stage(label + ": " + dedupStage());
    t0 = System.nanoTime();
    c0 = Seconds.cpuNanos();
    r.kept = loadAndDedup(jsc, data, uri).persist(StorageLevel.MEMORY_ONLY());
    r.kept.count();
    r.loadDedupSeconds = Seconds.since(t0);
    r.loadDedupCpuSeconds = Seconds.cpuSince(c0);
    r.loadDedupShuffleBytes = shuffle.written() - s1;
    r.plan = lastPlan();
    r.filters = countFilters(jsc, uri); // not timed
    r.bytesOnDisk = LocalFiles.directorySize(dir);
    return r;
  }
}
