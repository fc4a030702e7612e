package io.sparkbloom;

/**
 * Kryo serializer for {@link BloomFilter}: a variable-length byte count, then the filter's
 * {@link BloomFilter#toByteArray() FORMAT.md bytes}. Never writes a native handle. Reading goes
 * through {@link BloomFilter#readFrom(java.io.InputStream)}, so memory grows only as the bytes arrive and
 * the decode limit ({@code sparkbloom.decode.maxNumBits}) applies; a byte count that disagrees
 * with the filter, or bytes that are not a valid filter, are a {@code KryoException} (its cause:
 * the {@link CorruptFilterException} naming the field).
 *
 * <p>Kryo picks it up without registration ({@code BloomFilter} carries
 * {@code @DefaultSerializer(BloomFilterKryoSerializer.class)}); with {@code
 * spark.kryo.registrationRequired=true} register it: {@code kryo.register(BloomFilter.class, new
 * BloomFilterKryoSerializer())} (sparkbloom-spark's registrator does). Needs Kryo 4 ({@code
 * com.esotericsoftware:kryo-shaded}, as in Spark 3 and 4) on the classpath; sparkbloom itself
 * does not depend on Kryo.
 */
public final class BloomFilterKryoSerializer extends NativeFilterKryoSerializer<BloomFilter> {

  /** A serializer that rejects nulls (Kryo writes those itself) and copies on {@code copy}. */
  public BloomFilterKryoSerializer() {
    super(BloomFilter::toByteArray, BloomFilter::readFrom, BloomFilter::copy);
  }
}
