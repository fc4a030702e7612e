package io.sparkbloom;

/**
 * Kryo serializer of {@link CountingBloomFilter}, as {@link BloomFilterKryoSerializer} is
 * {@link BloomFilter}'s: a varint byte count, then {@link CountingBloomFilter#toByteArray()}.
 */
public final class CountingBloomFilterKryoSerializer
    extends NativeFilterKryoSerializer<CountingBloomFilter> {

  /** A serializer that rejects nulls (Kryo writes those itself) and copies on {@code copy}. */
  public CountingBloomFilterKryoSerializer() {
    super(
        CountingBloomFilter::toByteArray, CountingBloomFilter::readFrom, CountingBloomFilter::copy);
  }
}
