package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.io.OutputStream;
import org.junit.jupiter.api.Test;

/**
 * The conversions of other libraries' filters report an {@code OutOfMemoryError} of the other
 * library's {@code writeTo} as an {@link IllegalArgumentException} naming it, never chaining it:
 * Spark stops an executor for an Error anywhere in a task failure's cause chain.
 */
class ErrorChainTest {
  static void assertNoErrorInChain(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof Error) {
        throw new AssertionError("an Error in the cause chain of " + t + ": " + c, t);
      }
    }
  }

  @Test
  void aGuavaFilterWhoseWriteToRunsOutOfHeap() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BloomFilter.fromGuava(new io.sparkbloom.spark.fake.hash.BloomFilter()));
    assertTrue(e.getMessage().contains("no usable writeTo (java.lang.OutOfMemoryError"), e.getMessage());
    assertNoErrorInChain(e);
  }

  @Test
  void aSparkSketchFilterWhoseWriteToRunsOutOfHeap() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BloomFilter.fromSpark(new OutOfHeapSketch()));
    assertTrue(e.getMessage().contains("writeTo failed: java.lang.OutOfMemoryError"), e.getMessage());
    assertNoErrorInChain(e);
  }

  /** A Spark sketch filter whose {@code writeTo} runs out of heap; nothing else is called. */
  static final class OutOfHeapSketch extends org.apache.spark.util.sketch.BloomFilter {
    @Override
    public void writeTo(OutputStream out) {
      throw new OutOfMemoryError("Java heap space (thrown by the test)");
    }

    @Override
    public double expectedFpp() {
      throw new UnsupportedOperationException();
    }

    @Override
    public long bitSize() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean put(Object item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean putString(String item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean putLong(long item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean putBinary(byte[] item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean isCompatible(org.apache.spark.util.sketch.BloomFilter other) {
      throw new UnsupportedOperationException();
    }

    @Override
    public org.apache.spark.util.sketch.BloomFilter mergeInPlace(org.apache.spark.util.sketch.BloomFilter other) {
      throw new UnsupportedOperationException();
    }

    @Override
    public org.apache.spark.util.sketch.BloomFilter intersectInPlace(org.apache.spark.util.sketch.BloomFilter other) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean mightContain(Object item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean mightContainString(String item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean mightContainLong(long item) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean mightContainBinary(byte[] item) {
      throw new UnsupportedOperationException();
    }
  }
}
