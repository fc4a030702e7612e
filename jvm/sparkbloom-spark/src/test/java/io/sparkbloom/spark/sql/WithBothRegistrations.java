package io.sparkbloom.spark.sql;

import io.sparkbloom.spark.BloomFunctions;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link WithExtension}'s session ("extension") and a second session of its context where
 * {@code BloomFunctions.register} made the functions, as temporary functions on top of the
 * extension's ("register"): the two registration paths, which tests name by a parameter
 * ({@link EachRegistration}, {@link EachRegistrationAndEvaluation}, {@link EachEvaluation}).
 */
abstract class WithBothRegistrations extends WithExtension {
  /** The session where {@code BloomFunctions.register} made the functions. */
  SparkSession registered;

  WithBothRegistrations(int shufflePartitions) {
    super(shufflePartitions);
  }

  /** A test run in either session: its parameter is "extension" or "register". */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @ParameterizedTest
  @ValueSource(strings = {"extension", "register"})
  @interface EachRegistration {}

  /** A test run in either session, with generated and with interpreted evaluation each. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @ParameterizedTest
  @ValueSource(strings = {"extension/CODEGEN_ONLY", "extension/NO_CODEGEN", "register/CODEGEN_ONLY",
      "register/NO_CODEGEN"})
  @interface EachRegistrationAndEvaluation {}

  /** Generated evaluation with the extension, interpreted evaluation after register. */
  @Target(ElementType.METHOD)
  @Retention(RetentionPolicy.RUNTIME)
  @ParameterizedTest
  @ValueSource(strings = {"extension/CODEGEN_ONLY", "register/NO_CODEGEN"})
  @interface EachEvaluation {}

  /** What a session's test runs: {@code spark} is the session its parameter names. */
  interface SessionTest {
    void run(SparkSession spark) throws Exception;
  }

  @BeforeAll
  final void register() {
    registered = extension.newSession();
    BloomFunctions.register(registered);
  }

  /** The session {@code which} ("extension..." or "register...") names. */
  SparkSession session(String which) {
    return which.startsWith("extension") ? extension : registered;
  }

  /**
   * Runs {@code test} on the session {@code which} names ("extension/..." or "register/..."),
   * with whole-stage code generation on where it ends with "CODEGEN_ONLY" and interpreted
   * evaluation otherwise; the session's codegen settings are reset after.
   */
  void inEvaluation(String which, SessionTest test) throws Exception {
    SparkSession spark = session(which);
    boolean on = which.endsWith("CODEGEN_ONLY");
    spark.conf().set("spark.sql.codegen.factoryMode", on ? "CODEGEN_ONLY" : "NO_CODEGEN");
    spark.conf().set("spark.sql.codegen.wholeStage", Boolean.toString(on));
    try {
      test.run(spark);
    } finally {
      spark.conf().unset("spark.sql.codegen.factoryMode");
      spark.conf().unset("spark.sql.codegen.wholeStage");
    }
  }

  /** {@code rows} of {@code schema}, in two partitions, as temporary view {@code name} of both. */
  void viewInBoth(String name, List<Row> rows, StructType schema) {
    for (SparkSession s : List.of(extension, registered)) {
      s.createDataFrame(rows, schema).repartition(2).createOrReplaceTempView(name);
    }
  }
}
