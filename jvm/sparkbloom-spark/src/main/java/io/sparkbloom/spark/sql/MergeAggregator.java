package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;

/**
 * {@code Aggregator<filter bytes, filter bytes, filter bytes>} behind {@value
 * #NAME}: the OR (set union) of a group's FORMAT.md filters, which must all have
 * the same shape (bit count, hash count, strategy), i.e. be built with the same expected
 * insertions and fpp. Null filters are skipped; a group of nulls only gives null. Every non-null
 * input is read as a filter, empty bytes too: bytes that are not a filter, or a filter larger
 * than {@value SqlDecodeLimit#KEY} allows (the limit when the call was built), fail the query
 * naming the function. The buffer is the union's bytes (an empty array until the first filter),
 * so it crosses stages as plain {@code binary}.
 */
public final class MergeAggregator extends Aggregator<byte[], byte[], byte[]> {
  /** SQL {@code sparkbloom_merge(filter BINARY) -> BINARY} (aggregate). */
  public static final String NAME = "sparkbloom_merge";

  /**
   * The aggregate {@value #NAME}, as the extension and {@code BloomFunctions.register} register
   * it, under the current session's decode limit.
   */
  static UserDefinedFunction udaf() {
    return functions.udaf(new MergeAggregator(SqlDecodeLimit.current()), Encoders.BINARY()).withName(NAME);
  }
  private static final long serialVersionUID = 1L;

  /** The buffer before the first filter. */
  private static final byte[] NONE = new byte[0];

  /** The largest filter decoded, in bits ({@link SqlDecodeLimit}). */
  private final long maxNumBits;

  MergeAggregator(long maxNumBits) {
    this.maxNumBits = maxNumBits;
  }

  @Override
  public byte[] zero() {
    return NONE;
  }

  /** Adds an input row's filter: null is skipped, any other bytes (empty ones too) are read. */
  @Override
  public byte[] reduce(byte[] union, byte[] filter) {
    return filter == null ? union : or(union, filter);
  }

  /** Merges two buffers: an empty one holds no filter yet. */
  @Override
  public byte[] merge(byte[] left, byte[] right) {
    return right == null || right.length == 0 ? left : or(left, right);
  }

  @Override
  public byte[] finish(byte[] union) {
    return union == null || union.length == 0 ? null : union;
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
   * The union of {@code filter} with the buffer {@code union} (empty or null: no filter yet).
   *
   * @throws IllegalArgumentException if {@code filter} (or the union) is not a filter or is over
   *     the limit, or their shapes differ (naming both)
   */
  private byte[] or(byte[] union, byte[] filter) {
    try (BloomFilter r = CatalystFilters.read(filter, NAME, maxNumBits)) {
      if (union == null || union.length == 0) {
        return r.toByteArray();
      }
      try (BloomFilter u = CatalystFilters.read(union, NAME, maxNumBits)) {
        if (!u.isCompatible(r)) {
          throw new IllegalArgumentException(NAME + ": cannot merge filters of"
              + " different shapes, " + shape(u) + " and " + shape(r) + "; merge only filters"
              + " built with the same expected insertions and fpp (" + BuildAggregate.FIXED
              + ", not the per-key sized " + BuildAggregate.PER_KEY + ")");
        }
        u.merge(r);
        return u.toByteArray();
      }
    }
  }

  static String shape(BloomFilter f) {
    return "(numBits=" + f.bitSize() + ", numHashFunctions=" + f.numHashFunctions() + ", strategy="
        + f.strategy() + ")";
  }
}
