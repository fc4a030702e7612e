package io.sparkbloom.redis.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/** A test class with a local Spark session for all its tests, stopped after them. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WithSpark {
  SparkSession spark;
  JavaSparkContext jsc;
  private final String master;
  private final String logLevel;
  private final String[] conf;

  /** The session's {@code master} URL, log level and extra settings (key/value pairs). */
  WithSpark(String master, String logLevel, String... conf) {
    this.master = master;
    this.logLevel = logLevel;
    this.conf = conf;
  }

  @BeforeAll
  final void startSpark() {
    // No UI, the driver on 127.0.0.1: the pom's spark.* system properties, which SparkConf reads.
    SparkSession.Builder b = SparkSession.builder().master(master).appName(getClass().getSimpleName());
    for (int i = 0; i + 1 < conf.length; i += 2) {
      b.config(conf[i], conf[i + 1]);
    }
    spark = b.getOrCreate();
    spark.sparkContext().setLogLevel(logLevel);
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  @AfterAll
  final void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }
}
