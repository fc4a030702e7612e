package io.sparkbloom;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;

/**
 * Kryo serializer of {@link CountingBloomFilter}, as {@link BloomFilterKryoSerializer} is
 * {@link BloomFilter}'s: a varint byte count, then {@link CountingBloomFilter#toByteArray()}.
 */
public final class CountingBloomFilterKryoSerializer extends Serializer<CountingBloomFilter> {

  public CountingBloomFilterKryoSerializer() {
    super(false, false);
  }

  @Override
  public void write(Kryo kryo, Output output, CountingBloomFilter filter) {
    byte[] bytes = filter.toByteArray();
    output.writeInt(bytes.length, true);
    output.writeBytes(bytes);
  }

  @Override
  public CountingBloomFilter read(Kryo kryo, Input input, Class<CountingBloomFilter> type) {
    int length = input.readInt(true);
    if (length < 0) {
      throw new KryoException(
          "io.sparkbloom.CountingBloomFilter: byte count " + length + " is negative");
    }
    long start = input.total();
    CountingBloomFilter filter;
    try {
      filter = CountingBloomFilter.readFrom(input);
    } catch (IOException e) {
      throw new KryoException(e.getMessage(), e);
    }
    long read = input.total() - start;
    if (read != length) {
      filter.close();
      throw new KryoException(
          "io.sparkbloom.CountingBloomFilter: byte count " + length + " but the filter holds "
              + read + " bytes");
    }
    return filter;
  }

  @Override
  public CountingBloomFilter copy(Kryo kryo, CountingBloomFilter original) {
    return original.copy();
  }
}
