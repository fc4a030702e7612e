package io.sparkbloom;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;

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

  /**
   * Reads the byte count, then the filter through {@link BloomFilter#readFrom(java.io.InputStream)}
   * (Kryo's {@code Input} is an {@code InputStream}), so memory grows only as the bytes arrive and
   * the decode limit ({@code sparkbloom.decode.maxNumBits}) applies; the count must equal the
   * filter's length.
   *
   * @throws KryoException if the count is negative or disagrees with the filter, or the bytes
   *     are not a valid filter (its cause: the {@link CorruptFilterException} naming the field)
   */
  @Override
  public BloomFilter read(Kryo kryo, Input input, Class<BloomFilter> type) {
    int length = input.readInt(true);
    if (length < 0) {
      throw new KryoException("io.sparkbloom.BloomFilter: byte count " + length + " is negative");
    }
    long start = input.total();
    BloomFilter filter;
    try {
      filter = BloomFilter.readFrom(input);
    } catch (IOException e) {
      throw new KryoException(e.getMessage(), e);
    }
    long read = input.total() - start;
    if (read != length) {
      filter.close();
      throw new KryoException(
          "io.sparkbloom.BloomFilter: byte count " + length + " but the filter holds " + read
              + " bytes");
    }
    return filter;
  }

  @Override
  public BloomFilter copy(Kryo kryo, BloomFilter original) {
    return original.copy();
  }
}
