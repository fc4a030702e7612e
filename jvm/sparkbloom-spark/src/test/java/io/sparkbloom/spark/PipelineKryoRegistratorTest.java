package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.build.DistinctLongs;
import io.sparkbloom.spark.build.PerKeyBufferLimit;
import java.nio.ByteBuffer;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/** The per-user pipeline with Kryo and {@link SparkBloomKryoRegistrator}. */
class PipelineKryoRegistratorTest extends AbstractPipelineTest {
  @Override
  String[] conf() {
    return SparkTests.KRYO_WITH_REGISTRATOR;
  }

  private static <T> T roundTrip(SerializerInstance ser, T value, Class<T> cls) {
    ClassTag<T> tag = ClassTag$.MODULE$.apply(cls);
    ByteBuffer bytes = ser.serialize(value, tag);
    return ser.deserialize(bytes, tag);
  }

  /** With spark.kryo.registrationRequired=true the registrator's classes are enough. */
  @Test
  void registratorCoversFiltersAndBuildersWhenRegistrationIsRequired() {
    SparkConf required = new SparkConf(false)
        .set("spark.kryo.registrationRequired", "true")
        .set("spark.kryo.registrator", SparkBloomKryoRegistrator.class.getName());
    SerializerInstance ser = new KryoSerializer(required).newInstance();

    BloomFilter f = BloomFilter.create(1000, 0.01);
    f.putAll(new long[] {1, 2, 3});
    assertArrayEquals(f.toByteArray(), roundTrip(ser, f, BloomFilter.class).toByteArray());

    FilterBuilder small = new FilterBuilder(10_000, 0.001).addAll(new long[] {5, 6, 7});
    FilterBuilder big = new FilterBuilder(10_000, 0.001);
    for (long i = 0; i < FilterBuilder.BATCH + 123; i++) {
      big.add(i * 31);
    }
    for (FilterBuilder b : new FilterBuilder[] {small, big}) {
      FilterBuilder copy = roundTrip(ser, b, FilterBuilder.class);
      assertEquals(b.toString(), copy.toString());
      assertArrayEquals(b.buildBytes(), copy.buildBytes());
    }

    // the per-key sized builds' buffer of a key's distinct items
    DistinctLongs items = new DistinctLongs("test", PerKeyBufferLimit.DEFAULT);
    for (long i = 0; i < 1000; i++) {
      items.add(i % 37);
    }
    DistinctLongs itemsCopy = roundTrip(ser, items, DistinctLongs.class);
    assertEquals(37, itemsCopy.distinctCount());
    try (BloomFilter a = items.putInto(BloomFilter.create(100, 0.01));
        BloomFilter b = itemsCopy.putInto(BloomFilter.create(100, 0.01))) {
      assertArrayEquals(a.toByteArray(), b.toByteArray());
    }
    // a key's buffer past its limit travels as the fact, in a few bytes
    DistinctLongs over = DistinctLongs.deferringOverflow("test", 10);
    for (long i = 0; i < 100_000; i++) {
      over.add(i);
    }
    assertTrue(over.overflowed());
    assertTrue(ser.serialize(over, ClassTag$.MODULE$.apply(DistinctLongs.class)).remaining() < 256);
    DistinctLongs overCopy = roundTrip(ser, over, DistinctLongs.class);
    assertTrue(overCopy.overflowed());
    assertEquals(10, overCopy.maxItems());

    // the broadcast dedup's value: each user's filters as their FORMAT bytes
    java.util.HashMap<Long, byte[][]> broadcast = new java.util.HashMap<>();
    broadcast.put(7L, new byte[][] {f.toByteArray(), small.buildBytes()});
    @SuppressWarnings("unchecked")
    java.util.Map<Long, byte[][]> copy = roundTrip(ser, broadcast, java.util.HashMap.class);
    assertArrayEquals(broadcast.get(7L), copy.get(7L));

    // and without the registrator the same setting rejects the class: the registrator is what helps
    SerializerInstance bare =
        new KryoSerializer(new SparkConf(false).set("spark.kryo.registrationRequired", "true")).newInstance();
    assertThrows(Exception.class, () -> roundTrip(bare, f, BloomFilter.class));
  }
}
