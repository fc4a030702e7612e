package io.sparkbloom.spark.fault;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Iterator;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.PairFlatMapFunction;
import scala.Tuple2;

/**
 * Kills the executor JVM running a chosen partition, once, part way through it: when the task of
 * partition {@code partition} has passed {@code afterRecords} records on, it creates the marker
 * file {@code markerDir/name} and, if it was first to create it, halts its JVM ({@code
 * Runtime.halt}: no shutdown hook, no goodbye to the driver, as a crashed or OOM-killed
 * executor). The marker makes it one kill per run whatever attempt or stage attempt Spark
 * retries the partition with (all executors of local-cluster share the machine's disk); it holds
 * the executor id and pid that died.
 */
final class ExecutorKiller<K, V> implements PairFlatMapFunction<Iterator<Tuple2<K, V>>, K, V>, Serializable {
  private static final long serialVersionUID = 1L;

  /** The exit status of a killed executor, visible in the worker's log. */
  static final int EXIT_STATUS = 77;

  private final String markerDir;
  private final String name;
  private final int partition;
  private final int afterRecords;

  ExecutorKiller(String markerDir, String name, int partition, int afterRecords) {
    this.markerDir = markerDir;
    this.name = name;
    this.partition = partition;
    this.afterRecords = afterRecords;
  }

  /** The marker's content once the kill happened, else null. */
  static String marker(String markerDir, String name) throws IOException {
    Path p = Paths.get(markerDir, name);
    return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8).trim() : null;
  }

  @Override
  public Iterator<Tuple2<K, V>> call(Iterator<Tuple2<K, V>> records) {
    TaskContext task = TaskContext.get();
    if (task == null || task.partitionId() != partition) {
      return records;
    }
    return new Iterator<Tuple2<K, V>>() {
      private int passed;

      @Override
      public boolean hasNext() {
        return records.hasNext();
      }

      @Override
      public Tuple2<K, V> next() {
        if (++passed == afterRecords) {
          maybeDie(task);
        }
        return records.next();
      }
    };
  }

  private void maybeDie(TaskContext task) {
    Path marker = Paths.get(markerDir, name);
    try {
      Files.createFile(marker);
    } catch (FileAlreadyExistsException e) {
      return; // killed once already: this is a retry, let it finish
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String who = "executor=" + SparkEnv.get().executorId() + " pid=" + ManagementFactory.getRuntimeMXBean().getPid()
        + " stage=" + task.stageId() + "." + task.stageAttemptNumber() + " partition=" + task.partitionId()
        + " attempt=" + task.attemptNumber() + " after=" + afterRecords;
    try {
      Files.writeString(marker, who + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    System.err.println("[spark-fault] halting " + who);
    Runtime.getRuntime().halt(EXIT_STATUS);
  }
}
