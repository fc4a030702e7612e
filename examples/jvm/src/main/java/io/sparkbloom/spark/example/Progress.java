package io.sparkbloom.spark.example;

import java.io.PrintStream;
import java.util.Locale;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Names the job's current stage (also as Spark's job description) and, while one runs, prints a
 * progress line every {@value #EVERY_MS} ms from a daemon thread: the time since the job started,
 * the stage and its time so far, each active Spark stage's tasks done of all, and the heap in use
 * (a long run shows early whether it fits its {@code -Xmx}).
 */
final class Progress implements AutoCloseable {
  /** How often a progress line is printed while a stage runs. */
  static final long EVERY_MS = 5000;

  private final JavaSparkContext jsc;
  private final PrintStream out;
  private final Thread thread;
  private final long start = System.nanoTime();
  private volatile String label;
  private volatile long since = start;

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
        Thread.sleep(EVERY_MS);
        String l = label;
        if (l != null) {
          out.println(line(l));
        }
      }
    } catch (InterruptedException e) {
      // closed
    }
  }

  /** One progress line for the stage {@code l}. */
  private String line(String l) {
    long now = System.nanoTime();
    StringBuilder tasks = new StringBuilder();
    for (int id : jsc.statusTracker().getActiveStageIds()) {
      SparkStageInfo info = jsc.statusTracker().getStageInfo(id);
      if (info != null) {
        tasks.append(String.format(Locale.ROOT, " [spark stage %d: %d/%d tasks done]",
            id, info.numCompletedTasks(), info.numTasks()));
      }
    }
    Runtime rt = Runtime.getRuntime();
    long usedMiB = (rt.totalMemory() - rt.freeMemory()) >> 20;
    return String.format(Locale.ROOT, "[progress] %.0f s elapsed; %s: %.0f s%s; heap %,d of %,d MiB",
        (now - start) / 1e9, l, (now - since) / 1e9, tasks, usedMiB, rt.maxMemory() >> 20);
  }

  @Override
  public void close() {
    thread.interrupt();
  }
}
