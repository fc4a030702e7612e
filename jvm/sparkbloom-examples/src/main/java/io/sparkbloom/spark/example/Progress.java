package io.sparkbloom.spark.example;

import java.io.PrintStream;
import java.util.Locale;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Names the job's current stage (also as Spark's job description) and, while a stage runs
 * longer than a few seconds, prints its task progress every 5 s from a daemon thread.
 */
final class Progress implements AutoCloseable {
  private final JavaSparkContext jsc;
  private final PrintStream out;
  private final Thread thread;
  private volatile String label;
  private volatile long since = System.nanoTime();

  Progress(JavaSparkContext jsc, PrintStream out) {
    this.jsc = jsc;
    this.out = out;
    this.thread = new Thread(this::loop, "sparkbloom-progress");
    this.thread.setDaemon(true);
    this.thread.start();
  }

  /** The stage now running; null when none is. */
  void stage(String label) {
    this.label = label;
    this.since = System.nanoTime();
    if (label != null) {
      jsc.setJobDescription(label);
    }
  }

  private void loop() {
    try {
      while (true) {
        Thread.sleep(5000);
        String l = label;
        double running = (System.nanoTime() - since) / 1e9;
        if (l == null || running < 4.5) {
          continue;
        }
        StringBuilder tasks = new StringBuilder();
        for (int id : jsc.statusTracker().getActiveStageIds()) {
          SparkStageInfo info = jsc.statusTracker().getStageInfo(id);
          if (info != null) {
            tasks.append(String.format(Locale.ROOT, " [spark stage %d: %d/%d tasks]",
                id, info.numCompletedTasks(), info.numTasks()));
          }
        }
        out.printf(Locale.ROOT, "[progress] %s: %.0f s%s%n", l, running, tasks);
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
