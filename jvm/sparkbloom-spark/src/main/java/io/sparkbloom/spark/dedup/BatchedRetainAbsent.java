package io.sparkbloom.spark.dedup;

import io.sparkbloom.BloomFilter;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.RandomAccess;

/**
 * {@code retainAbsent} over an iterator, lazily: items are gathered into batches of a fixed size
 * and each batch is queried in one call (one native call for {@link #longs} and {@link
 * #strings}), so a partition is never held in memory. Null items are skipped; order is kept.
 *
 * @param <T> the item type
 */
public final class BatchedRetainAbsent<T> implements Iterator<T> {
  /** The query over one batch: the absent items among {@code batch[0..n)}, in order. */
  @FunctionalInterface
  interface BatchCall<T> {
    List<T> retainAbsent(T[] batch, int n);
  }

  private final Iterator<T> in;
  private final T[] batch;
  private final BatchCall<T> call;
  private List<T> out = List.of();
  private int pos;

  BatchedRetainAbsent(Iterator<T> in, T[] batch, BatchCall<T> call) {
    this.in = in;
    this.batch = batch;
    this.call = call;
  }

  /** Long items, batches of {@code batchSize}, each one {@link BloomFilter#retainAbsent(long[])}. */
  static BatchedRetainAbsent<Long> longs(Iterator<Long> in, BloomFilter filter, int batchSize) {
    long[] keys = new long[batchSize];
    return new BatchedRetainAbsent<>(in, new Long[batchSize], (batch, n) -> {
      for (int i = 0; i < n; i++) {
        keys[i] = batch[i];
      }
      return boxed(filter.retainAbsent(n == keys.length ? keys : Arrays.copyOf(keys, n)));
    });
  }

  /** String items, batches of {@code batchSize}, each one {@link BloomFilter#retainAbsent(String[])}. */
  static BatchedRetainAbsent<String> strings(Iterator<String> in, BloomFilter filter, int batchSize) {
    return new BatchedRetainAbsent<>(in, new String[batchSize],
        (batch, n) -> Arrays.asList(filter.retainAbsent(n == batch.length ? batch : Arrays.copyOf(batch, n))));
  }

  /**
   * {@link #longs} or {@link #strings}, by the type of the first non-null item: an iterator of
   * {@code Long} or of {@code String} items, not both.
   *
   * @throws IllegalArgumentException naming the type if the first item is neither
   */
  @SuppressWarnings("unchecked")
  public static <T> Iterator<T> any(Iterator<T> in, BloomFilter filter, int batchSize) {
    T first = null;
    while (first == null && in.hasNext()) {
      first = in.next();
    }
    if (first == null) {
      return Collections.emptyIterator();
    }
    Iterator<T> all = new Prepended<>(first, in);
    if (first instanceof Long) {
      return (Iterator<T>) longs((Iterator<Long>) all, filter, batchSize);
    }
    if (first instanceof String) {
      return (Iterator<T>) strings((Iterator<String>) all, filter, batchSize);
    }
    throw new IllegalArgumentException("retainAbsent: items must be Long or String, got "
        + first.getClass().getName());
  }

  /** {@code first}, then the rest of {@code rest}. */
  private static final class Prepended<T> implements Iterator<T> {
    private T first;
    private final Iterator<T> rest;

    Prepended(T first, Iterator<T> rest) {
      this.first = first;
      this.rest = rest;
    }

    @Override
    public boolean hasNext() {
      return first != null || rest.hasNext();
    }

    @Override
    public T next() {
      if (first == null) {
        return rest.next();
      }
      T v = first;
      first = null;
      return v;
    }
  }

  @Override
  public boolean hasNext() {
    while (pos == out.size()) {
      if (!in.hasNext()) {
        return false;
      }
      int n = 0;
      while (n < batch.length && in.hasNext()) {
        T v = in.next();
        if (v != null) {
          batch[n++] = v;
        }
      }
      out = n == 0 ? List.of() : call.retainAbsent(batch, n);
      pos = 0;
    }
    return true;
  }

  @Override
  public T next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return out.get(pos++);
  }

  /** A read-only view of {@code values}, boxing one element at a time as {@link #next} asks. */
  private static List<Long> boxed(long[] values) {
    final class LongView extends AbstractList<Long> implements RandomAccess {
      @Override
      public Long get(int i) {
        return values[i];
      }

      @Override
      public int size() {
        return values.length;
      }
    }
    return new LongView();
  }
}
