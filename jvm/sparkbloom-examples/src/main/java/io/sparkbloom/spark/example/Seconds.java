package io.sparkbloom.spark.example;

/** Wall-clock seconds of the job's stages. */
final class Seconds {
  private Seconds() {}

  /** Seconds since {@code System.nanoTime()} returned {@code t0}. */
  static double since(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
