package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.ByteBuffer;
import org.apache.spark.SparkConf;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * README's claim: with {@code spark.kryo.registrationRequired=true}, registering the one class
 * {@code spark.kryo.classesToRegister=io.sparkbloom.BloomFilter} (no registrator) is enough for
 * filters and the (user, filter) records of the RDD helpers, because the class names its Kryo
 * serializer with {@code @DefaultSerializer}.
 */
class KryoClassesToRegisterTest {
  private static SerializerInstance kryo(String classesToRegister) {
    SparkConf conf = new SparkConf(false).set("spark.kryo.registrationRequired", "true");
    if (classesToRegister != null) {
      conf.set("spark.kryo.classesToRegister", classesToRegister);
    }
    return new KryoSerializer(conf).newInstance();
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(SerializerInstance ser, T value) {
    ClassTag<T> tag = (ClassTag<T>) ClassTag$.MODULE$.apply(value.getClass());
    ByteBuffer bytes = ser.serialize(value, tag);
    return ser.deserialize(bytes, tag);
  }

  @Test
  void classesToRegisterWithTheFilterClassAloneIsEnough() {
    SerializerInstance ser = kryo(BloomFilter.class.getName());
    try (BloomFilter f = BloomFilter.create(10_000, 0.001)) {
      long[] items = new long[5000];
      for (int i = 0; i < items.length; i++) {
        items[i] = i * 0x9E3779B97F4A7C15L;
      }
      f.putAll(items);
      try (BloomFilter copy = roundTrip(ser, f)) {
        assertArrayEquals(f.toByteArray(), copy.toByteArray());
        for (long item : items) {
          assertTrue(copy.mightContain(item));
        }
      }
      Tuple2<String, BloomFilter> record = roundTrip(ser, new Tuple2<>("user-1", f));
      assertEquals("user-1", record._1());
      assertArrayEquals(f.toByteArray(), record._2().toByteArray());
      record._2().close();
    }
  }

  @Test
  void withoutItRegistrationRequiredRejectsTheFilter() {
    SerializerInstance ser = kryo(null);
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      Exception e = assertThrows(Exception.class, () -> roundTrip(ser, f));
      assertFalse(String.valueOf(e.getMessage()).isEmpty());
      assertTrue(String.valueOf(e.getMessage()).contains("io.sparkbloom.BloomFilter"), e.getMessage());
    }
  }
}
