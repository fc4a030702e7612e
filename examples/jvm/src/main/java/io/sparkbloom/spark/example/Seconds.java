package io.sparkbloom.spark.example;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * Seconds of the job's stages: wall-clock, and the CPU time of the whole JVM (every thread:
 * Spark's tasks, GC, JIT). On a shared machine the wall-clock time of a stage grows with the
 * other processes' load; its CPU time much less, so it is the figure to compare across runs.
 */
final class Seconds {
  private Seconds() {}

  /** Seconds since {@code System.nanoTime()} returned {@code t0}. */
  static double since(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** The JVM's CPU time so far, in nanoseconds; -1 where the platform does not tell. */
  static long cpuNanos() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : -1;
  }

  /** CPU seconds since {@link #cpuNanos()} returned {@code c0}; NaN where it is unknown. */
  static double cpuSince(long c0) {
    return c0 < 0 ? Double.NaN : (cpuNanos() - c0) / 1e9;
  }
}
