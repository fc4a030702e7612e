package io.sparkbloom.spark.sql;

import io.sparkbloom.spark.BloomFunctions;
import org.apache.spark.sql.SparkSession;

/** The SQL tests' sessions: local[2] on 127.0.0.1 without UI, the sparkbloom extension on. */
final class ExtensionSessions {
  private ExtensionSessions() {}

  /**
   * A session of a new local context with {@code spark.sql.extensions} set to sparkbloom's, {@code
   * shufflePartitions} for SQL shuffles; {@code conf} are extra key/value pairs.
   */
  static SparkSession withExtension(String app, int shufflePartitions, String... conf) {
    SparkSession.Builder b = SparkSession.builder()
        .master("local[2]")
        .appName(app)
        .config("spark.sql.extensions", "io.sparkbloom.spark.SparkBloomExtensions")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", Integer.toString(shufflePartitions));
    for (int i = 0; i + 1 < conf.length; i += 2) {
      b.config(conf[i], conf[i + 1]);
    }
    SparkSession spark = b.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  /**
   * A second session of {@code extension}'s context where {@code BloomFunctions.register} made
   * the functions (as temporary functions on top of the extension's): the other registration path.
   */
  static SparkSession registeredBeside(SparkSession extension) {
    SparkSession registered = extension.newSession();
    BloomFunctions.register(registered);
    return registered;
  }

  /**
   * {@code extension} or {@code registered} as {@code which} names it ("extension/..." or
   * "register/..."), with the codegen mode it ends with: "CODEGEN_ONLY" (whole-stage code
   * generation on) or anything else (interpreted evaluation); {@link #resetCodegen} undoes it.
   */
  static SparkSession codegen(SparkSession extension, SparkSession registered, String which) {
    SparkSession spark = which.startsWith("extension") ? extension : registered;
    boolean on = which.endsWith("CODEGEN_ONLY");
    spark.conf().set("spark.sql.codegen.factoryMode", on ? "CODEGEN_ONLY" : "NO_CODEGEN");
    spark.conf().set("spark.sql.codegen.wholeStage", Boolean.toString(on));
    return spark;
  }

  static void resetCodegen(SparkSession spark) {
    spark.conf().unset("spark.sql.codegen.factoryMode");
    spark.conf().unset("spark.sql.codegen.wholeStage");
  }
}
