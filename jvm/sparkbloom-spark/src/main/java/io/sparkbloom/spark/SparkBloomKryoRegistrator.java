package io.sparkbloom.spark;

import com.esotericsoftware.kryo.Kryo;
import io.sparkbloom.BloomFilter;
import io.sparkbloom.BloomFilterKryoSerializer;
import io.sparkbloom.CountingBloomFilter;
import io.sparkbloom.CountingBloomFilterKryoSerializer;
import io.sparkbloom.spark.build.DistinctLongs;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers sparkbloom's classes with Spark's Kryo:
 * {@code spark.kryo.registrator=io.sparkbloom.spark.SparkBloomKryoRegistrator}.
 *
 * <p>Registration is optional for correctness ({@link BloomFilter} carries its Kryo serializer as
 * {@code @DefaultSerializer}, {@link FilterBuilder} is {@code KryoSerializable}); it saves writing
 * the class names into every record and lets {@code spark.kryo.registrationRequired=true} jobs use
 * the filters. {@code BloomFilter} goes through the core jar's {@link BloomFilterKryoSerializer}:
 * the FORMAT bytes, never the native handle.
 */
public class SparkBloomKryoRegistrator implements KryoRegistrator {
  @Override
  public void registerClasses(Kryo kryo) {
    kryo.register(BloomFilter.class, new BloomFilterKryoSerializer());
    kryo.register(FilterBuilder.class);
    kryo.register(LongArrayBuilder.class);
    kryo.register(long[].class);
    kryo.register(byte[].class);
    kryo.register(long[][].class);
    // Counting filters: after the others, so their registration ids stay as they were.
    kryo.register(CountingBloomFilter.class, new CountingBloomFilterKryoSerializer());
    kryo.register(CountingFilters.ZeroFilter.class);
    // String items: last, for the same reason.
    kryo.register(StringFilterBuilder.class);
    kryo.register(String[].class);
    // The broadcast dedup's value (PerKeyFilters.dedupBroadcast): each key's filters as bytes.
    kryo.register(java.util.HashMap.class);
    kryo.register(byte[][].class);
    // The per-key sized builds' buffer of a key's distinct items: last, for the same reason.
    kryo.register(DistinctLongs.class);
  }
}
