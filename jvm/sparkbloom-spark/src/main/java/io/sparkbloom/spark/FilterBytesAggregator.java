package io.sparkbloom.spark;

import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.expressions.Aggregator;

/**
 * What every build aggregate shares: its buffer Java-serialized between stages (Spark asks for
 * an encoder of the buffer's class) and its output a filter's bytes, a {@code BINARY} column.
 *
 * @param <IN> the aggregate's input row
 * @param <B> the buffer
 */
abstract class FilterBytesAggregator<IN, B> extends Aggregator<IN, B, byte[]> {
  private static final long serialVersionUID = 1L;

  private final Class<B> bufferType;

  FilterBytesAggregator(Class<B> bufferType) {
    this.bufferType = bufferType;
  }

  @Override
  public final Encoder<B> bufferEncoder() {
    return Encoders.javaSerialization(bufferType);
  }

  @Override
  public final Encoder<byte[]> outputEncoder() {
    return Encoders.BINARY();
  }
}
