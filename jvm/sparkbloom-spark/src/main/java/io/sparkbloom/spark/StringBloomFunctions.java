package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.CorruptFilterException;
import java.util.Arrays;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.Aggregator;
import scala.Tuple3;

/**
 * The implementations behind {@link BloomFunctions}' string-item functions ({@value
 * BloomFunctions#BUILD_STRING}, {@value BloomFunctions#RETAIN_ABSENT_STRING}): string items are
 * hashed as {@link BloomFilter#put(String)} hashes them (their UTF-8 bytes, as Guava's {@code
 * Funnels.stringFunnel(UTF_8)}), in batches of {@value StringFilterBuilder#BATCH} per native call
 * when building and in one native call per row when querying. Null handling as for the
 * {@code bigint} functions.
 */
public final class StringBloomFunctions {
  private StringBloomFunctions() {}

  /** What both string build aggregates share: a {@link StringFilterBuilder} buffer, FORMAT bytes out. */
  abstract static class StringFilterAggregator<IN>
      extends Aggregator<IN, StringFilterBuilder, byte[]> {
    private static final long serialVersionUID = 1L;

    @Override
    public StringFilterBuilder merge(StringFilterBuilder b1, StringFilterBuilder b2) {
      return b1.merge(b2);
    }

    @Override
    public Encoder<StringFilterBuilder> bufferEncoder() {
      return Encoders.javaSerialization(StringFilterBuilder.class);
    }

    @Override
    public Encoder<byte[]> outputEncoder() {
      return Encoders.BINARY();
    }
  }

  /** {@code Aggregator<string item, StringFilterBuilder, FORMAT bytes>} with fixed sizing. */
  public static final class BuildAggregator extends StringFilterAggregator<String> {
    private static final long serialVersionUID = 1L;
    private final long expectedInsertions;
    private final double fpp;

    public BuildAggregator(long expectedInsertions, double fpp) {
      FilterBuilder.validate(expectedInsertions, fpp);
      this.expectedInsertions = expectedInsertions;
      this.fpp = fpp;
    }

    @Override
    public StringFilterBuilder zero() {
      return new StringFilterBuilder(expectedInsertions, fpp);
    }

    @Override
    public StringFilterBuilder reduce(StringFilterBuilder b, String item) {
      return item == null ? b : b.add(item);
    }

    @Override
    public byte[] finish(StringFilterBuilder b) {
      return b.buildBytes();
    }
  }

  /** The SQL form {@code (item STRING, n BIGINT, p DOUBLE)}, sizing read from the rows. */
  public static final class SqlBuildAggregator
      extends StringFilterAggregator<Tuple3<String, Long, Double>> {
    private static final long serialVersionUID = 1L;

    @Override
    public StringFilterBuilder zero() {
      return StringFilterBuilder.unconfigured();
    }

    @Override
    public StringFilterBuilder reduce(StringFilterBuilder b, Tuple3<String, Long, Double> row) {
      if (row._2() == null || row._3() == null) {
        throw new IllegalArgumentException(
            BloomFunctions.BUILD_STRING + "(item, n, p): n and p must not be null");
      }
      b.configure(row._2(), row._3());
      return row._1() == null ? b : b.add(row._1());
    }

    @Override
    public byte[] finish(StringFilterBuilder b) {
      return b.isConfigured() ? b.buildBytes() : null;
    }
  }

  /**
   * {@code (filter BINARY, candidates ARRAY<STRING>) -> ARRAY<STRING>}: the candidates the filter
   * has definitely not seen, in order, in one native call per row. Null elements are dropped; a
   * null filter keeps every candidate. Public with a no-arg constructor for PySpark's {@code
   * registerJavaFunction(..., ArrayType(StringType()))}.
   */
  public static final class RetainAbsent
      implements UDF2<byte[], scala.collection.Seq<Object>, String[]> {
    private static final long serialVersionUID = 1L;

    /** @throws IllegalArgumentException naming the element type unless it is {@code string} */
    @Override
    public String[] call(byte[] filterBytes, scala.collection.Seq<Object> candidates)
        throws CorruptFilterException {
      if (candidates == null) {
        return null;
      }
      String[] items = new String[candidates.size()];
      int n = 0;
      scala.collection.Iterator<Object> it = candidates.iterator();
      while (it.hasNext()) {
        Object v = it.next();
        if (v == null) {
          continue;
        }
        if (!(v instanceof String)) {
          throw SqlItems.unsupported(v, BloomFunctions.RETAIN_ABSENT_STRING,
              "candidates' elements", "string (for integer candidates call "
                  + BloomFunctions.RETAIN_ABSENT + ")");
        }
        items[n++] = (String) v;
      }
      if (n < items.length) {
        items = Arrays.copyOf(items, n);
      }
      if (filterBytes == null || n == 0) {
        return items;
      }
      try (BloomFilter f = BloomFilter.fromByteArray(filterBytes)) {
        return f.retainAbsent(items);
      }
    }
  }
}
