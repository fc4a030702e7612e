package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;

/**
 * Kryo serializer of {@link CountingBloomFilter}, as {@link BloomFilterKryoSerializer} is
 * {@link BloomFilter}'s: a varint byte count, then {@link CountingBloomFilter#toByteArray()}.
 */
public final class CountingBloomFilterKryoSerializer
    extends NativeFilterKryoSerializer<CountingBloomFilter> {

  /** A serializer that rejects nulls (Kryo writes those itself) and copies on {@code copy}. */
  public CountingBloomFilterKryoSerializer() {}

  @Override
  byte[] toByteArray(CountingBloomFilter filter) {
    return filter.toByteArray();
  }

  @Override
  CountingBloomFilter readFrom(InputStream in) throws IOException {
    return CountingBloomFilter.readFrom(in);
  }

  @Override
  CountingBloomFilter copyOf(CountingBloomFilter filter) {
    return filter.copy();
  }
}
