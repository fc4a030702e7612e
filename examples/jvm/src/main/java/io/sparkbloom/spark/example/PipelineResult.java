package io.sparkbloom.spark.example;

import org.apache.spark.api.java.JavaPairRDD;

/** The measurements of one run of one pipeline, and its kept candidates (cached). */
final class PipelineResult {
  final String name;
  double buildSaveSeconds;
  double loadDedupSeconds;
  /** The JVM's CPU seconds (all threads) in each stage ({@link Seconds#cpuSince}). */
  double buildSaveCpuSeconds;
  double loadDedupCpuSeconds;
  /** The shuffle bytes written in each stage ({@link ShuffleBytes}). */
  long buildSaveShuffleBytes;
  long loadDedupShuffleBytes;
  long filters;
  long bytesOnDisk;
  long keptTotal;
  long falseNegatives;
  long unseenKept;
  /** The dedup plan that ran, when the pipeline chose one ({@code --dedup auto}); else null. */
  String plan;
  JavaPairRDD<String, long[]> kept;

  PipelineResult(String name) {
    this.name = name;
  }

  double jobSeconds() {
    return buildSaveSeconds + loadDedupSeconds;
  }

  double jobCpuSeconds() {
    return buildSaveCpuSeconds + loadDedupCpuSeconds;
  }

  /** The run with the shorter job; the other run's cached output is dropped. */
  static PipelineResult best(PipelineResult a, PipelineResult b) {
    if (a == null) {
      return b;
    }
    PipelineResult keep = b.jobSeconds() < a.jobSeconds() ? b : a;
    PipelineResult drop = keep == a ? b : a;
    drop.kept.unpersist(false);
    return keep;
  }
}
