package io.sparkbloom.spark.sql;

/**
 * Fails registration early when the core jar ({@code io.sparkbloom:sparkbloom}) is missing:
 * without it the functions would register and then fail at the first query with
 * {@code NoClassDefFoundError: io/sparkbloom/BloomFilter}, far from the cause.
 */
public final class CoreJarCheck {
  private CoreJarCheck() {}

  static final String CORE_CLASS = "io.sparkbloom.BloomFilter";

  /** Throws {@link IllegalStateException} naming the missing jar and how to add it. */
  public static void requireCoreJar() {
    try {
      Class.forName(CORE_CLASS, false, CoreJarCheck.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      String version = CoreJarCheck.class.getPackage().getImplementationVersion();
      String v = version == null ? "<version>" : version;
      throw new IllegalStateException(
          "sparkbloom-spark is on the classpath but the core jar io.sparkbloom:sparkbloom is not ("
              + CORE_CLASS
              + " not found): add both jars, e.g. --jars sparkbloom-"
              + v
              + ".jar,sparkbloom-spark_<scala>-"
              + v
              + ".jar, or depend on the module through Maven/sbt/--packages, which brings the"
              + " core jar along",
          e);
    }
  }
}
