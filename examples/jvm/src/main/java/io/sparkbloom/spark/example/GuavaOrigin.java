package io.sparkbloom.spark.example;

import java.net.URL;
import java.security.CodeSource;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which Guava a job actually ran: the {@code com.google.common} on its classpath is the job's own
 * (33.x from this module) or the cluster's (Spark 3.5 puts Guava 14.0.1 there), and Spark 4 keeps
 * a shaded copy of its own under {@code org.sparkproject.guava}. The report names what loaded,
 * from where, rather than the version this module was built with.
 */
final class GuavaOrigin {
  private GuavaOrigin() {}

  private static final Pattern GUAVA_JAR = Pattern.compile("guava-([^/]+)\\.jar$");

  /** Guava's version from the jar a class came from: its manifest, else its file name; or "?". */
  static String version(Class<?> guavaClass) {
    Package pkg = guavaClass.getPackage();
    String v = pkg == null ? null : pkg.getImplementationVersion();
    if (v != null) {
      return v;
    }
    Matcher m = GUAVA_JAR.matcher(location(guavaClass));
    return m.find() ? m.group(1) : "?";
  }

  /** The jar (file name) or directory a class was loaded from, or "?" when the JVM does not say. */
  static String location(Class<?> c) {
    CodeSource source = c.getProtectionDomain().getCodeSource();
    URL url = source == null ? null : source.getLocation();
    return url == null ? "?" : url.getPath();
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** E.g. {@code "33.8.0-jre (guava-33.8.0-jre.jar)"}: the Guava the Guava pipeline ran on. */
  static String ran() {
    Class<?> c = com.google.common.hash.BloomFilter.class;
    return version(c) + " (" + fileName(location(c)) + ")";
  }

  /** Spark's shaded Guava ({@code org.sparkproject.guava}, in which jar), or null without one. */
  static String sparkShaded() {
    try {
      Class<?> c = Class.forName("org.sparkproject.guava.hash.BloomFilter", false,
          GuavaOrigin.class.getClassLoader());
      return "org.sparkproject.guava in " + fileName(location(c));
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }
}
