package io.sparkbloom.spark.sql;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class with one session for all its tests, of a new local[2] context on 127.0.0.1
 * without UI, with {@code spark.sql.extensions} set to sparkbloom's and its warehouse in a
 * temporary directory; stopped after the tests (the module runs its classes one after another in
 * one JVM). A subclass's own {@code @BeforeAll} runs after this one's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WithExtension {
  /** The session with the extension. */
  SparkSession extension;
  private final int shufflePartitions;

  /** {@code shufflePartitions}: the session's {@code spark.sql.shuffle.partitions}. */
  WithExtension(int shufflePartitions) {
    this.shufflePartitions = shufflePartitions;
  }

  @BeforeAll
  final void startExtension(@TempDir Path warehouse) {
    extension = SparkSession.builder()
        .master("local[2]")
        .appName(getClass().getSimpleName())
        .config("spark.sql.extensions", "io.sparkbloom.spark.SparkBloomExtensions")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", Integer.toString(shufflePartitions))
        .config("spark.sql.warehouse.dir", warehouse.toString())
        .getOrCreate();
    extension.sparkContext().setLogLevel("WARN");
  }

  @AfterAll
  final void stopExtension() {
    if (extension != null) {
      extension.stop();
    }
  }
}
