package io.sparkbloom.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Write + read of one filter, per round trip: Java serialization (ObjectOutputStream then
 * ObjectInputStream, what Spark does with a filter in a closure, a broadcast or an RDD of
 * objects) and each implementation's own byte format (sparkbloom {@code toByteArray} /
 * {@code fromByteArray}; Guava and Spark {@code writeTo} / {@code readFrom}). A sparkbloom
 * filter read back is closed inside the timing: its native memory is part of the cost.
 *
 * <p>Filters hold n keys; {@code n1e4_p1e-3_sparse} is a (10^4, 10^-3) filter holding 200 keys,
 * the per-user case where sparkbloom's format is sparse. Byte counts come from
 * {@link SerializedSizes}. {@code javaSerializationFloor} round-trips a bare {@code byte[]} of the
 * implementation's own bytes, the part of the Java figure no encoder can remove. Output streams are pre-sized for every implementation, so no
 * implementation pays for growing a buffer.
 *
 * <p>Each fork's heap is fixed and touched at start ({@code -Xms2g -Xmx2g -XX:+AlwaysPreTouch},
 * for every implementation): a round trip allocates ~42 KB, and with a growing heap whole
 * iterations ran at twice the steady time while the kernel zeroed the new pages
 * ({@code clear_page_erms} was a third of the benchmark thread's samples in those seconds).
 */
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class SerializationBench extends BenchDefaults {

  @State(Scope.Thread)
  public static class Filled {
    @Param({Impl.SPARKBLOOM, Impl.GUAVA, Impl.SPARK_V1, Impl.SPARK_V2})
    public String impl;

    @Param({"n1e4_p1e-3", "n1e4_p1e-3_sparse", "n1e7_p1e-2"})
    public String shape;

    Impl filter;
    int javaSize;
    int ownSize;
    /** The filter's own bytes as a bare {@code byte[]}: {@link #javaSerializationFloor}'s input. */
    byte[] ownBytes;
    int bareJavaSize;

    @Setup(Level.Trial)
    public void setUp() throws IOException, ClassNotFoundException {
      filter = filled(impl, shape);
      javaSize = javaRoundTrip(filter.serializable(), 0).size;
      ownBytes = filter.toBytes();
      ownSize = ownBytes.length;
      bareJavaSize = javaRoundTrip(ownBytes, 0).size;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      filter.close();
    }
  }

  /** A filter of {@code impl} for a shape name (with its optional "_sparse" suffix), filled. */
  static Impl filled(String impl, String shapeName) {
    boolean sparse = shapeName.endsWith("_sparse");
    Shape shape = Shape.of(sparse ? shapeName.substring(0, shapeName.length() - 7) : shapeName);
    long count = sparse ? 200 : shape.n;
    Impl filter = Impl.create(impl, shape, false);
    Keys.SplitMix64 stream = Keys.stream(Keys.PRESENT, shape.n);
    for (long i = 0; i < count; i++) {
      filter.put(stream.next());
    }
    return filter;
  }

  static final class RoundTrip {
    final Object read;
    final int size;

    RoundTrip(Object read, int size) {
      this.read = read;
      this.size = size;
    }
  }

  static RoundTrip javaRoundTrip(Object filter, int sizeHint)
      throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(Math.max(32, sizeHint));
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(filter);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return new RoundTrip(in.readObject(), bytes.size());
    }
  }

  private static Object closing(Object read) {
    if (read instanceof io.sparkbloom.BloomFilter) {
      ((io.sparkbloom.BloomFilter) read).close();
    }
    return read;
  }

  @Benchmark
  public Object javaSerialization(Filled s) throws IOException, ClassNotFoundException {
    return closing(javaRoundTrip(s.filter.serializable(), s.javaSize).read);
  }

  /**
   * The floor under {@link #javaSerialization}: the same round trip of a bare {@code byte[]} as
   * long as the filter's own bytes, no filter code at all. What {@code javaSerialization} costs
   * beyond it is the implementation's encode, decode, proxy and memory; the floor itself is
   * ObjectOutputStream and ObjectInputStream (stream headers, block data, array copies).
   */
  @Benchmark
  public Object javaSerializationFloor(Filled s) throws IOException, ClassNotFoundException {
    return javaRoundTrip(s.ownBytes, s.bareJavaSize).read;
  }

  @Benchmark
  public Object ownFormat(Filled s) {
    return closing(s.filter.fromBytes(s.filter.toBytes()));
  }
}
