package io.sparkbloom.spark;

import io.sparkbloom.spark.build.PerKeyBufferLimit;
import io.sparkbloom.spark.rdd.MappedIterator;
import java.io.Serializable;
import java.util.Arrays;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.function.Function2;
import scala.Tuple2;

/**
 * A growable primitive {@code long[]}: groups items per key without boxing, every occurrence kept
 * (the candidates of {@link PerKeyFilters#dedupPairs}, and a counting filter's items, where each
 * occurrence counts). Plain fields, so Java serialization and Kryo's default field serializer
 * both handle it.
 *
 * <p>At most {@code maxItems} items, in {@link #group} the {@code SparkContext}'s {@link
 * PerKeyBufferLimit}: past it the builder drops its items and only records the overflow, so
 * neither an executor's heap nor the shuffle carries more, and the job fails once the key's
 * builders are merged with an {@link IllegalArgumentException} naming the key, the limit, its
 * conf and the remedies. A key whose grown array the heap cannot hold fails the same way, the
 * {@code OutOfMemoryError} named, not chained (Spark stops an executor for an {@code Error}
 * anywhere in a task failure's cause chain).
 */
public final class LongArrayBuilder implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The most items one builder holds: the largest Java array the JVMs allocate. */
  static final int MAX_ITEMS = Integer.MAX_VALUE - 8;

  /** The most items held; 0 (a builder serialized before the bound existed): {@link #MAX_ITEMS}. */
  private int maxItems;
  /** Whether more than {@code maxItems} items came: they are dropped. */
  private boolean overflowed;
  private static final long[] NONE = new long[0];

  private long[] values = NONE;
  private int size;

  /** A builder of at most {@link #MAX_ITEMS} items. */
  public LongArrayBuilder() {
    this(MAX_ITEMS);
  }

  /** A builder of at most {@code maxItems} items (1 to {@link #MAX_ITEMS}). */
  LongArrayBuilder(int maxItems) {
    this.maxItems = maxItems;
  }

  /**
   * Each key's items of {@code records}, every occurrence kept, each record added by {@code add};
   * the partitioning of the grouping kept.
   *
   * @param owner names the caller in errors, e.g. "PerKeyFilters.dedupPairs"
   * @param remedy how to process a key of more items than the limit, for the error
   * @throws IllegalArgumentException (in the job) naming the key, the limit and the remedies if a
   *     key has more items than {@link PerKeyBufferLimit} allows
   */
  static <K, V> JavaPairRDD<K, long[]> group(JavaPairRDD<K, V> records,
      Function2<LongArrayBuilder, V, LongArrayBuilder> add, String owner, String remedy) {
    int limit = PerKeyBufferLimit.of(records.context().getConf());
    JavaPairRDD<K, LongArrayBuilder> grouped =
        records.aggregateByKey(new LongArrayBuilder(limit), add, (a, b) -> a.addAll(b));
    return grouped.mapPartitionsToPair(it -> MappedIterator.of(it,
        t -> new Tuple2<>(t._1(), t._2().toArray(owner, t._1(), remedy))), true);
  }

  public LongArrayBuilder add(long v) {
    if (reserve(size + 1L)) {
      values[size++] = v;
    }
    return this;
  }

  public LongArrayBuilder addAll(LongArrayBuilder other) {
    overflowed |= other.overflowed;
    if (reserve((long) size + other.size)) {
      System.arraycopy(other.values, 0, values, size, other.size);
      size += other.size;
    }
    return this;
  }

  /** Room for {@code required} items, or false once the builder has overflowed (items dropped). */
  private boolean reserve(long required) {
    if (overflowed || required > (maxItems > 0 ? maxItems : MAX_ITEMS)) {
      overflowed = true;
      values = NONE;
      size = 0;
      return false;
    }
    if (required > values.length) {
      values = copyOf(values, grownCapacity(values.length, required));
    }
    return true;
  }

  /**
   * Double {@code capacity}, at least {@code required} (and 8), at most {@link #MAX_ITEMS}.
   *
   * @throws IllegalArgumentException naming the count if {@code required} exceeds {@link #MAX_ITEMS}
   */
  static int grownCapacity(int capacity, long required) {
    if (required > MAX_ITEMS) {
      throw new IllegalArgumentException("a key of " + required + " items does not fit in one"
          + " array (at most " + MAX_ITEMS + ")");
    }
    return (int) Math.min(MAX_ITEMS, Math.max(Math.max(8, required), 2L * capacity));
  }

  /**
   * {@code Arrays.copyOf(values, capacity)}, for a key of more items than {@code values} holds.
   *
   * @throws IllegalArgumentException naming the sizes if the heap cannot hold the copy
   */
  static long[] copyOf(long[] values, int capacity) {
    try {
      return Arrays.copyOf(values, capacity);
    } catch (OutOfMemoryError e) {
      throw new IllegalArgumentException("a key of more than " + values.length + " items cannot be"
          + " grouped: an array of " + capacity + " items does not fit in this JVM's heap (" + e
          + "); give the executors more memory, or split the key's items into several records");
    }
  }

  public int size() {
    return size;
  }

  /** The items, in order; an overflowed builder's are gone ({@link IllegalStateException}). */
  public long[] toArray() {
    if (overflowed) {
      throw new IllegalStateException("more than " + maxItems + " items came: they were dropped");
    }
    return Arrays.copyOf(values, size);
  }

  /** {@link #toArray()} of {@code key}'s items; an overflow is the error {@link #group} names. */
  long[] toArray(String owner, Object key, String remedy) {
    if (overflowed) {
      throw PerKeyBufferLimit.exceeded(owner, PerKeyBufferLimit.describeKey(key), maxItems,
          "items, the most it buffers for one key", "until they are all grouped, up to 24 bytes each",
          remedy);
    }
    return toArray();
  }
}
