package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;

/**
 * {@code Aggregator<filter bytes, filter bytes, filter bytes>} behind {@value
 * #NAME}: the OR (set union) of a group's FORMAT.md filters, which must all have
 * the same shape (bit count, hash count, strategy), i.e. be built with the same expected
 * insertions and fpp. Null filters are skipped; a group of nulls only gives null. The buffer is
 * the union's bytes (an empty array until the first filter), so it crosses stages as plain
 * {@code binary}.
 */
public final class MergeAggregator extends Aggregator<byte[], byte[], byte[]> {
  /** SQL {@code sparkbloom_merge(filter BINARY) -> BINARY} (aggregate). */
  public static final String NAME = "sparkbloom_merge";

  /** The aggregate {@value #NAME}, as the extension and {@code BloomFunctions.register} register it. */
  public static UserDefinedFunction udaf() {
    return functions.udaf(new MergeAggregator(), Encoders.BINARY()).withName(NAME);
  }
  private static final long serialVersionUID = 1L;

  private static final byte[] NONE = new byte[0];

  @Override
  public byte[] zero() {
    return NONE;
  }

  @Override
  public byte[] reduce(byte[] union, byte[] filter) {
    return or(union, filter);
  }

  @Override
  public byte[] merge(byte[] left, byte[] right) {
    return or(left, right);
  }

  @Override
  public byte[] finish(byte[] union) {
    return union.length == 0 ? null : union;
  }

  @Override
  public Encoder<byte[]> bufferEncoder() {
    return Encoders.BINARY();
  }

  @Override
  public Encoder<byte[]> outputEncoder() {
    return Encoders.BINARY();
  }

  /**
   * The union of two filters' bytes; an empty array or null stands for no filter.
   *
   * @throws IllegalArgumentException if either is not a filter, or their shapes differ (naming both)
   */
  static byte[] or(byte[] left, byte[] right) {
    if (right == null || right.length == 0) {
      return left == null ? NONE : left;
    }
    try (BloomFilter r = decode(right)) {
      if (left == null || left.length == 0) {
        return r.toByteArray();
      }
      try (BloomFilter union = decode(left)) {
        if (!union.isCompatible(r)) {
          throw new IllegalArgumentException(NAME + ": cannot merge filters of"
              + " different shapes, " + shape(union) + " and " + shape(r) + "; merge only filters"
              + " built with the same expected insertions and fpp (" + BuildAggregate.FIXED
              + ", not the per-key sized " + BuildAggregate.PER_KEY + ")");
        }
        union.merge(r);
        return union.toByteArray();
      }
    }
  }

  private static BloomFilter decode(byte[] bytes) {
    try {
      return BloomFilter.fromByteArray(bytes);
    } catch (CorruptFilterException e) {
      throw new IllegalArgumentException(NAME + ": not a sparkbloom filter ("
          + e.getMessage() + ")", e);
    }
  }

  static String shape(BloomFilter f) {
    return "(numBits=" + f.bitSize() + ", numHashFunctions=" + f.numHashFunctions() + ", strategy="
        + f.strategy() + ")";
  }
}
