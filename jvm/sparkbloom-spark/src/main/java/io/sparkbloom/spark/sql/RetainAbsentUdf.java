package io.sparkbloom.spark.sql;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.ItemArrays;
import io.sparkbloom.CorruptFilterException;
import org.apache.spark.sql.api.java.UDF2;

/**
 * What the {@code bigint} and string {@code retain_absent} UDFs share: {@code (filter BINARY,
 * candidates ARRAY<...>)}, the candidates the filter has definitely not seen, in order, in one
 * native call per row. Null candidates give null; null elements are dropped; a null filter keeps
 * every candidate; non-null filter bytes are always read (and refused if they are not a filter),
 * whatever the candidates. A subclass turns the non-null elements into its key array (refusing an element
 * of the wrong SQL type); the batch call is that array's ({@link ItemArrays}).
 *
 * @param <A> the key array: {@code long[]} or {@code String[]}
 */
public abstract class RetainAbsentUdf<A> implements UDF2<byte[], scala.collection.Seq<Object>, A> {
  private static final long serialVersionUID = 1L;

  /**
   * The keys {@code elements[0..n)} stand for, in order.
   *
   * @throws IllegalArgumentException naming the SQL type of an element the function does not take
   */
  protected abstract A keys(Object[] elements, int n);

  @Override
  public A call(byte[] filterBytes, scala.collection.Seq<Object> candidates)
      throws CorruptFilterException {
    try (BloomFilter f = filterBytes == null ? null : BloomFilter.fromByteArray(filterBytes)) {
      return candidates == null ? null : retainAbsent(f, candidates);
    }
  }

  /** The candidates {@code filter} (null: none) has definitely not seen, in order. */
  private A retainAbsent(BloomFilter filter, scala.collection.Seq<Object> candidates) {
    Object[] elements = new Object[candidates.size()];
    int n = 0;
    scala.collection.Iterator<Object> it = candidates.iterator();
    while (it.hasNext()) {
      Object v = it.next();
      if (v != null) {
        elements[n++] = v;
      }
    }
    A keys = keys(elements, n);
    return filter == null || n == 0 ? keys : ItemArrays.of(keys, "retain_absent: keys").retainAbsent(filter, keys);
  }
}
