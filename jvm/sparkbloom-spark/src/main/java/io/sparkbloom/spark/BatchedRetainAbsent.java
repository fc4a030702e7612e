package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * {@code retainAbsent} over an iterator, lazily: items are gathered into batches of a fixed size
 * and each batch is queried in one native call, so a partition is never held in memory. Null
 * items are skipped; order is kept.
 */
final class BatchedRetainAbsent implements Iterator<Long> {
  private final Iterator<Long> in;
  private final BloomFilter filter;
  private final long[] batch;
  private long[] out = new long[0];
  private int pos;

  BatchedRetainAbsent(Iterator<Long> in, BloomFilter filter, int batchSize) {
    this.in = in;
    this.filter = filter;
    this.batch = new long[batchSize];
  }

  @Override
  public boolean hasNext() {
    while (pos == out.length) {
      if (!in.hasNext()) {
        return false;
      }
      int n = 0;
      while (n < batch.length && in.hasNext()) {
        Long v = in.next();
        if (v != null) {
          batch[n++] = v;
        }
      }
      out = n == 0 ? new long[0] : filter.retainAbsent(n == batch.length ? batch : Arrays.copyOf(batch, n));
      pos = 0;
    }
    return true;
  }

  @Override
  public Long next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return out[pos++];
  }
}
