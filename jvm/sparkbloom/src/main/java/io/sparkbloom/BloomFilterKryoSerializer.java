package io.sparkbloom;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

/**
 * Kryo serializer for {@link BloomFilter}: a variable-length byte count, then the filter's
 * {@link BloomFilter#toByteArray() FORMAT.md bytes}. Never writes a native handle.
 *
 * <p>Kryo picks it up without registration ({@code BloomFilter} carries
 * {@code @DefaultSerializer(BloomFilterKryoSerializer.class)}); with {@code
 * spark.kryo.registrationRequired=true} register it: {@code kryo.register(BloomFilter.class, new
 * BloomFilterKryoSerializer())} (sparkbloom-spark's registrator does). Needs Kryo 4 ({@code
 * com.esotericsoftware:kryo-shaded}, as in Spark 3 and 4) on the classpath; sparkbloom itself
 * does not depend on Kryo.
 */
public final class BloomFilterKryoSerializer extends Serializer<BloomFilter> {

  /** A serializer that rejects nulls (Kryo writes those itself) and copies on {@code copy}. */
  public BloomFilterKryoSerializer() {
    super(false, false);
  }

  @Override
  public void write(Kryo kryo, Output output, BloomFilter filter) {
    byte[] bytes = filter.toByteArray();
    output.writeInt(bytes.length, true);
    output.writeBytes(bytes);
  }

  @Override
  public BloomFilter read(Kryo kryo, Input input, Class<BloomFilter> type) {
    int length = input.readInt(true);
    try {
      return BloomFilter.fromByteArray(input.readBytes(length));
    } catch (CorruptFilterException e) {
      throw new KryoException(e.getMessage(), e);
    }
  }

  @Override
  public BloomFilter copy(Kryo kryo, BloomFilter original) {
    return original.copy();
  }
}
