package io.sparkbloom.spark.example;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * The shuffle bytes the job's tasks have written so far (the map side's output, what a cluster
 * sends over the network once), summed from every finished task's metrics, so that a stage's
 * shuffle is the difference of two {@link #written()} readings around it.
 */
final class ShuffleBytes extends SparkListener {
  private final SparkContext sc;
  private final AtomicLong written = new AtomicLong();

  private ShuffleBytes(SparkContext sc) {
    this.sc = sc;
  }

  /** A counter registered on {@code sc}'s listener bus. */
  static ShuffleBytes on(SparkContext sc) {
    ShuffleBytes s = new ShuffleBytes(sc);
    sc.addSparkListener(s);
    return s;
  }

  @Override
  public void onTaskEnd(SparkListenerTaskEnd end) {
    TaskMetrics m = end.taskMetrics();
    if (m != null) {
      written.addAndGet(m.shuffleWriteMetrics().bytesWritten());
    }
  }

  /**
   * The bytes written so far, once the listener bus has delivered every event posted before this
   * call (task ends arrive asynchronously, after the action that ran the tasks has returned).
   */
  long written() {
    // the bus is Spark-internal (private[spark] in Scala, public in bytecode): the one way to
    // know the task-end events of a finished job have all been counted
    try {
      sc.listenerBus().waitUntilEmpty(60_000);
    } catch (java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus still busy after 60 s", e);
    }
    return written.get();
  }
}
