package io.sparkbloom.spark.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles scala/PerUserDedup.scala (the README's Scala example) with scalac 2.13 against
 * sparkbloom-spark and Spark, then runs it: the Scala API of the helpers (the {@code RDD}
 * overloads of {@code PerKeyFilters}, {@code BloomFunctions}) stays usable as documented. Own JVM (the example starts its own SparkSession).
 */
class ScalaExampleTest {
  @Test
  void scalaExampleCompilesAndRuns(@TempDir Path tmp) throws Exception {
    String source = System.getProperty("sparkbloom.scala.example");
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    File out = tmp.resolve("classes").toFile();
    assertTrue(out.mkdirs());
    boolean ok = scala.tools.nsc.Main.process(new String[] {
        "-classpath", classpath, "-d", out.getPath(), "-deprecation", source});
    assertTrue(ok, "scalac failed on " + source + " (see the output above)");

    System.setProperty("spark.driver.host", "127.0.0.1");
    System.setProperty("spark.driver.bindAddress", "127.0.0.1");
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toURI().toURL()}, getClass().getClassLoader());
        PrintStream capture = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      java.lang.reflect.Method main = loader.loadClass("PerUserDedup").getMethod("main", String[].class);
      String[] args = {tmp.resolve("filters").toString()};
      // the example's closures run in tasks: Spark's local executor loads their classes through
      // the context class loader the SparkContext starts with, as spark-submit puts a user's jar
      ClassLoader previous = Thread.currentThread().getContextClassLoader();
      Thread.currentThread().setContextClassLoader(loader);
      try {
        // Scala's println writes to scala.Console.out, not System.out
        scala.Console$.MODULE$.withOut(capture, () -> {
          try {
            return main.invoke(null, (Object) args);
          } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e.getCause() != null ? e.getCause() : e);
          }
        });
      } finally {
        Thread.currentThread().setContextClassLoader(previous);
      }
    }
    String printed = captured.toString(StandardCharsets.UTF_8);
    System.out.print(printed);
    assertTrue(printed.contains("RDD: kept"), printed);
    assertTrue(printed.contains("DataFrame: kept"), printed);
  }
}
