package io.sparkbloom;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * What {@link BloomFilterKryoSerializer} and {@link CountingBloomFilterKryoSerializer} share: a
 * variable-length byte count, then the filter's FORMAT.md bytes; never a native handle.
 *
 * @param <T> the filter type
 */
abstract class NativeFilterKryoSerializer<T extends NativeHandle> extends Serializer<T> {
  /** How to read one filter from a stream under the default decode limit. */
  interface StreamReader<T> {
    T readFrom(InputStream in) throws IOException;
  }

  private final Function<T, byte[]> toByteArray;
  private final StreamReader<T> readFrom;
  private final UnaryOperator<T> copy;

  /** Rejects nulls (Kryo writes those itself) and copies on {@code copy}. */
  NativeFilterKryoSerializer(
      Function<T, byte[]> toByteArray, StreamReader<T> readFrom, UnaryOperator<T> copy) {
    super(false, false);
    this.toByteArray = toByteArray;
    this.readFrom = readFrom;
    this.copy = copy;
  }

  @Override
  public final void write(Kryo kryo, Output output, T filter) {
    byte[] bytes = toByteArray.apply(filter);
    output.writeInt(bytes.length, true);
    output.writeBytes(bytes);
  }

  /**
   * Reads the byte count, then the filter through {@code readFrom(InputStream)} (Kryo's {@code
   * Input} is an {@code InputStream}), so memory grows only as the bytes arrive and the decode
   * limit ({@code sparkbloom.decode.maxNumBits}) applies; the count must equal the filter's
   * length.
   *
   * @throws KryoException if the count is negative or disagrees with the filter, or the bytes
   *     are not a valid filter (its cause: the {@link CorruptFilterException} naming the field)
   */
  @Override
  public final T read(Kryo kryo, Input input, Class<T> type) {
    String name = type.getName();
    int length = input.readInt(true);
    if (length < 0) {
      throw new KryoException(name + ": byte count " + length + " is negative");
    }
    long start = input.total();
    T filter;
    try {
      filter = readFrom.readFrom(input);
    } catch (IOException e) {
      throw new KryoException(e.getMessage(), e);
    }
    long read = input.total() - start;
    if (read != length) {
      filter.close();
      throw new KryoException(
          name + ": byte count " + length + " but the filter holds " + read + " bytes");
    }
    return filter;
  }

  @Override
  public final T copy(Kryo kryo, T original) {
    return copy.apply(original);
  }
}
