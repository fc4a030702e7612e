package io.sparkbloom.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * A test class with one local[2] session for all its tests ({@link SparkTests#session}, named
 * after the class, with the class's {@link #conf}), stopped after them: the module runs its test
 * classes one after another in one JVM, where Spark allows one live context. A subclass's own
 * {@code @BeforeAll} runs after this one's, with the session started.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WithSparkSession {
  protected SparkSession spark;
  protected JavaSparkContext jsc;

  /** The class's extra Spark settings, as key/value pairs: none unless overridden. */
  String[] conf() {
    return new String[0];
  }

  @BeforeAll
  final void startSpark() {
    spark = SparkTests.session(getClass().getSimpleName(), conf());
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  @AfterAll
  final void stopSpark() {
    if (spark != null) {
      spark.stop();
    }
  }
}
