package io.sparkbloom.spark.rdd;

import java.util.Iterator;
import java.util.function.Function;

/**
 * {@code records} with {@code map} applied to each as it is read: what a partition's
 * {@code mapPartitions} body returns to stream its records, one in memory at a time.
 */
public final class MappedIterator<T, R> implements Iterator<R> {
  private final Iterator<T> records;
  private final Function<? super T, ? extends R> map;

  private MappedIterator(Iterator<T> records, Function<? super T, ? extends R> map) {
    this.records = records;
    this.map = map;
  }

  /** {@code records}, each mapped by {@code map} when it is read. */
  public static <T, R> Iterator<R> of(Iterator<T> records, Function<? super T, ? extends R> map) {
    return new MappedIterator<>(records, map);
  }

  @Override
  public boolean hasNext() {
    return records.hasNext();
  }

  @Override
  public R next() {
    return map.apply(records.next());
  }
}
