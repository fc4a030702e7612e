package io.sparkbloom.spark;

import io.sparkbloom.spark.build.PerKeyBufferLimit;
import scala.Tuple2;

/**
 * The build aggregates that size each group's filter from its own distinct item count
 * ({@link Sizing#perKeyCount}): {@link BloomFunctions#build(org.apache.spark.sql.Column, Sizing)}
 * and SQL's {@value BloomFunctions#BUILD_PER_KEY}{@code (item, p)}. The group's items are
 * gathered into a {@code long[]} ({@link SizedItems}), then counted, sized and inserted at once;
 * at most the session's {@link PerKeyBufferLimit} when the aggregate is made (on the driver).
 *
 * @param <IN> the input row: an item, or (item, p) for the SQL form
 */
abstract class SizedBuildAggregator<IN> extends FilterBytesAggregator<IN, SizedItems> {
  private static final long serialVersionUID = 1L;
  /** The most distinct items a group buffers. */
  final int maxBufferedItems;

  SizedBuildAggregator() {
    super(SizedItems.class);
    maxBufferedItems = PerKeyBufferLimit.ofSession();
  }

  @Override
  public SizedItems merge(SizedItems b1, SizedItems b2) {
    return b1.merge(b2);
  }

  @Override
  public byte[] finish(SizedItems b) {
    return b.buildBytes();
  }

  /** {@code Aggregator<item, SizedItems, FORMAT bytes>} with the sizing given up front. */
  static final class WithSizing extends SizedBuildAggregator<Long> {
    private static final long serialVersionUID = 1L;
    private final Sizing sizing;

    WithSizing(Sizing sizing) {
      this.sizing = java.util.Objects.requireNonNull(sizing, "sizing");
    }

    @Override
    public SizedItems zero() {
      return new SizedItems(sizing, maxBufferedItems);
    }

    @Override
    public SizedItems reduce(SizedItems b, Long item) {
      return item == null ? b : b.add(item);
    }
  }

  /**
   * {@code Aggregator<(item, p), SizedItems, FORMAT bytes>}: SQL's per-key form, p read from the
   * rows (the same for every row of a group, normally a literal).
   */
  static final class Sql extends SizedBuildAggregator<Tuple2<Long, Double>> {
    private static final long serialVersionUID = 1L;

    @Override
    public SizedItems zero() {
      return new SizedItems(null, maxBufferedItems);
    }

    @Override
    public SizedItems reduce(SizedItems b, Tuple2<Long, Double> row) {
      if (row._2() == null) {
        throw new IllegalArgumentException(BloomFunctions.BUILD_PER_KEY + "(item, p): p must not be null");
      }
      if (b.sizing() == null || b.sizing().fpp() != row._2()) {
        b.configure(Sizing.perKeyCount(row._2()));
      }
      return row._1() == null ? b : b.add(row._1());
    }
  }
}
