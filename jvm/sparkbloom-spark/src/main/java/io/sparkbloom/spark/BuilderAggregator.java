package io.sparkbloom.spark;

import io.sparkbloom.spark.build.FilterAllocation;
import java.io.Serializable;
import scala.Tuple3;

/**
 * What the build aggregates of {@link BloomFunctions} ({@code bigint} items, a {@link
 * FilterBuilder} buffer) and {@link StringBloomFunctions} (string items, a {@link
 * StringFilterBuilder} buffer) share: the buffer merged by OR, Java-serialized between stages,
 * FORMAT bytes out; null items skipped. {@link Buffers} names the buffer type per item type
 * ({@link #LONGS}, {@link #STRINGS}); {@link Fixed} and {@link Sql} are the two ways the sizing
 * arrives.
 *
 * @param <IN> the aggregate's input row
 * @param <T> the item type
 * @param <B> the buffer
 */
abstract class BuilderAggregator<IN, T, B extends BufferedFilterBuilder<B, ?>>
    extends FilterBytesAggregator<IN, B> {
  private static final long serialVersionUID = 1L;

  /**
   * The buffer of one item type: its class, how an empty one is made and how one item is added.
   * Serializable, as the aggregator that holds it is shipped to the executors.
   */
  static final class Buffers<T, B> implements Serializable {
    private static final long serialVersionUID = 1L;

    /** {@code new FilterBuilder(n, p)} or its string twin. */
    interface Create<B> extends Serializable {
      B create(long expectedInsertions, double fpp);
    }

    /** The no-argument constructor: an empty buffer whose sizing comes with the first row. */
    interface Unconfigured<B> extends Serializable {
      B unconfigured();
    }

    /** Adds one non-null item. */
    interface Add<T, B> extends Serializable {
      B add(B buffer, T item);
    }

    final Class<B> type;
    final Create<B> create;
    final Unconfigured<B> unconfigured;
    final Add<T, B> add;

    Buffers(Class<B> type, Create<B> create, Unconfigured<B> unconfigured, Add<T, B> add) {
      this.type = type;
      this.create = create;
      this.unconfigured = unconfigured;
      this.add = add;
    }
  }

  /** {@code bigint} items in a {@link FilterBuilder}. */
  static final Buffers<Long, FilterBuilder> LONGS = new Buffers<>(
      FilterBuilder.class, FilterBuilder::new, FilterBuilder::new, FilterBuilder::add);

  /** String items in a {@link StringFilterBuilder}. */
  static final Buffers<String, StringFilterBuilder> STRINGS = new Buffers<>(StringFilterBuilder.class,
      StringFilterBuilder::new, StringFilterBuilder::new, StringFilterBuilder::add);

  private final Buffers<T, B> buffers;

  BuilderAggregator(Buffers<T, B> buffers) {
    super(buffers.type);
    this.buffers = buffers;
  }

  final B add(B b, T item) {
    return buffers.add.add(b, item);
  }

  final Buffers<T, B> buffers() {
    return buffers;
  }

  @Override
  public B merge(B b1, B b2) {
    return b1.merge(b2);
  }

  /** The aggregate over items with its sizing (n, p) fixed when it is built. */
  abstract static class Fixed<T, B extends BufferedFilterBuilder<B, ?>>
      extends BuilderAggregator<T, T, B> {
    private static final long serialVersionUID = 1L;
    private final long expectedInsertions;
    private final double fpp;

    /** @throws IllegalArgumentException as {@code BloomFilter.create(n, p)} throws it */
    Fixed(Buffers<T, B> buffers, long expectedInsertions, double fpp) {
      super(buffers);
      FilterAllocation.check(expectedInsertions, fpp);
      this.expectedInsertions = expectedInsertions;
      this.fpp = fpp;
    }

    @Override
    public B zero() {
      return buffers().create.create(expectedInsertions, fpp);
    }

    @Override
    public B reduce(B b, T item) {
      return item == null ? b : add(b, item);
    }

    @Override
    public byte[] finish(B b) {
      return b.buildBytes();
    }
  }

  /**
   * The SQL form {@code (item, n, p)}: the sizing is read from the rows (it must be the same for
   * every row of a group, normally two literals); a group with no row gives null.
   */
  abstract static class Sql<T, B extends BufferedFilterBuilder<B, ?>>
      extends BuilderAggregator<Tuple3<T, Long, Double>, T, B> {
    private static final long serialVersionUID = 1L;
    /** The SQL function's name, for the error messages. */
    private final String functionName;

    Sql(Buffers<T, B> buffers, String functionName) {
      super(buffers);
      this.functionName = functionName;
    }

    @Override
    public B zero() {
      return buffers().unconfigured.unconfigured();
    }

    @Override
    public B reduce(B b, Tuple3<T, Long, Double> row) {
      if (row._2() == null || row._3() == null) {
        throw new IllegalArgumentException(functionName + "(item, n, p): n and p must not be null");
      }
      b.configure(row._2(), row._3());
      return row._1() == null ? b : add(b, row._1());
    }

    @Override
    public byte[] finish(B b) {
      return b.isConfigured() ? b.buildBytes() : null;
    }
  }
}
