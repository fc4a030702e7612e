package io.sparkbloom.spark.fake.hash;

import java.io.OutputStream;

/**
 * Named like Guava's filter, without its fields, so that {@code BloomFilter.fromGuava} falls back
 * to its {@code writeTo}, which runs out of heap as a very large filter's copy would.
 */
public final class BloomFilter {
  public void writeTo(OutputStream out) {
    throw new OutOfMemoryError("Java heap space (thrown by the test)");
  }
}
