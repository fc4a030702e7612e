package io.sparkbloom.spark.fault;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ExecutorLostFailure;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorAdded;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * What the driver saw of executors coming and going: executors removed (with Spark's reason),
 * tasks lost with their executor, retried task attempts and resubmitted stages.
 */
final class ExecutorLossListener extends SparkListener {
  private final List<String> removed = new ArrayList<>();
  private int added;
  private int tasksLostWithExecutor;
  private int retriedTaskAttempts;
  private int resubmittedStages;

  @Override
  public synchronized void onExecutorAdded(SparkListenerExecutorAdded e) {
    added++;
  }

  @Override
  public synchronized void onExecutorRemoved(SparkListenerExecutorRemoved e) {
    removed.add("executor " + e.executorId() + ": " + e.reason());
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd e) {
    if (e.reason() instanceof ExecutorLostFailure) {
      tasksLostWithExecutor++;
    }
    if (e.taskInfo().attemptNumber() > 0) {
      retriedTaskAttempts++;
    }
  }

  @Override
  public synchronized void onStageSubmitted(SparkListenerStageSubmitted e) {
    if (e.stageInfo().attemptNumber() > 0) {
      resubmittedStages++;
    }
  }

  synchronized int removedCount() {
    return removed.size();
  }

  synchronized String summary() {
    return "executors added=" + added + " removed=" + removed.size() + " tasksLostWithExecutor="
        + tasksLostWithExecutor + " retriedTaskAttempts=" + retriedTaskAttempts + " resubmittedStages="
        + resubmittedStages + " " + removed;
  }

  synchronized int tasksLostWithExecutor() {
    return tasksLostWithExecutor;
  }
}
