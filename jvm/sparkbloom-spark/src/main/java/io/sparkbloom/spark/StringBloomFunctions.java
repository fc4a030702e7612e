package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.sql.RetainAbsentUdf;
import io.sparkbloom.spark.sql.SqlItems;
import org.apache.spark.sql.api.java.UDF2;

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

  /** {@code Aggregator<string item, StringFilterBuilder, FORMAT bytes>} with fixed sizing. */
  public static final class BuildAggregator extends BuilderAggregator.Fixed<String, StringFilterBuilder> {
    private static final long serialVersionUID = 1L;

    public BuildAggregator(long expectedInsertions, double fpp) {
      super(BuilderAggregator.STRINGS, expectedInsertions, fpp);
    }
  }

  /** The SQL form {@code (item STRING, n BIGINT, p DOUBLE)}, sizing read from the rows. */
  public static final class SqlBuildAggregator extends BuilderAggregator.Sql<String, StringFilterBuilder> {
    private static final long serialVersionUID = 1L;

    public SqlBuildAggregator() {
      super(BuilderAggregator.STRINGS, BloomFunctions.BUILD_STRING);
    }
  }

  /**
   * {@code (filter BINARY, candidates ARRAY<STRING>) -> ARRAY<STRING>}: the candidates the filter
   * has definitely not seen, in order, in one native call per row. Null elements are dropped; a
   * null filter keeps every candidate. Public with a no-arg constructor for PySpark's {@code
   * registerJavaFunction(..., ArrayType(StringType()))}.
   */
  public static final class RetainAbsent extends RetainAbsentUdf<String[]>
      // named here too: PySpark's registerJavaFunction looks for the UDF interface on this class
      implements UDF2<byte[], scala.collection.Seq<Object>, String[]> {
    private static final long serialVersionUID = 1L;

    /** @throws IllegalArgumentException naming the element type unless it is {@code string} */
    @Override
    protected String[] keys(Object[] elements, int n) {
      String[] keys = new String[n];
      for (int i = 0; i < n; i++) {
        if (!(elements[i] instanceof String)) {
          throw SqlItems.unsupported(elements[i], BloomFunctions.RETAIN_ABSENT_STRING,
              "candidates' elements", "string (for integer candidates call "
                  + BloomFunctions.RETAIN_ABSENT + ")");
        }
        keys[i] = (String) elements[i];
      }
      return keys;
    }
  }
}
