package io.sparkbloom.spark;

import io.sparkbloom.BloomFilter;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * {@link BatchedRetainAbsent} for string items: gathered into batches of a fixed size, each
 * queried in one native call ({@link BloomFilter#retainAbsent(String[])}), lazily, so a partition
 * is never held in memory. Null items are skipped; order is kept.
 */
final class BatchedRetainAbsentStrings implements Iterator<String> {
  private static final String[] NONE = new String[0];
  private final Iterator<String> in;
  private final BloomFilter filter;
  private final String[] batch;
  private String[] out = NONE;
  private int pos;

  BatchedRetainAbsentStrings(Iterator<String> in, BloomFilter filter, int batchSize) {
    this.in = in;
    this.filter = filter;
    this.batch = new String[batchSize];
  }

  @Override
  public boolean hasNext() {
    while (pos == out.length) {
      if (!in.hasNext()) {
        return false;
      }
      int n = 0;
      while (n < batch.length && in.hasNext()) {
        String v = in.next();
        if (v != null) {
          batch[n++] = v;
        }
      }
      out = n == 0 ? NONE : filter.retainAbsent(n == batch.length ? batch : Arrays.copyOf(batch, n));
      pos = 0;
    }
    return true;
  }

  @Override
  public String next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return out[pos++];
  }
}
