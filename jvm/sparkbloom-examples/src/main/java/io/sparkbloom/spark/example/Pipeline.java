package io.sparkbloom.spark.example;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;

/**
 * One library's per-user dedup, timed in two stages as the seed runs it: build one filter per
 * user &rarr; {@code saveAsObjectFile}; then {@code objectFile} &rarr; join with the candidates
 * &rarr; keep the candidates the user's filter has not seen.
 */
abstract class Pipeline {
  /** The name in the report: "sparkbloom" or "Guava". */
  final String name;

  Pipeline(String name) {
    this.name = name;
  }

  /** Builds one filter per user of {@code data} and saves them as an objectFile at {@code uri}. */
  abstract void buildAndSave(Options o, DedupData data, String uri);

  /** Reads the filters at {@code uri} back and returns, per user, the candidates they have not seen. */
  abstract JavaPairRDD<String, long[]> loadAndDedup(JavaSparkContext jsc, DedupData data, String uri);

  /** The dedup plan the last {@link #loadAndDedup} chose, or null if it has no choice. */
  String lastPlan() {
    return null;
  }

  /** Both stages into {@code dir} (emptied first), timed; the kept candidates stay cached. */
  final PipelineResult run(JavaSparkContext jsc, Options o, DedupData data, Path dir,
      Progress progress, String label) throws IOException {
    PipelineResult r = new PipelineResult(name);
    LocalFiles.deleteRecursively(dir);
    String uri = dir.toUri().toString();
    progress.stage(label + ": build + saveAsObjectFile");
    long t0 = System.nanoTime();
    buildAndSave(o, data, uri);
    r.buildSaveSeconds = Seconds.since(t0);
    progress.stage(label + ": objectFile + leftOuterJoin + keep unseen");
    t0 = System.nanoTime();
    r.kept = loadAndDedup(jsc, data, uri).persist(StorageLevel.MEMORY_ONLY());
    r.kept.count();
    r.loadDedupSeconds = Seconds.since(t0);
    r.plan = lastPlan();
    r.filters = jsc.objectFile(uri).count(); // not timed
    r.bytesOnDisk = LocalFiles.directorySize(dir);
    return r;
  }
}
