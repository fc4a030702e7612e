package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.FieldSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;
import org.objenesis.strategy.StdInstantiatorStrategy;

/** Java serialization and Kryo: round trips, envelope size, and no native handle ever copied. */
class SerializationTest {

  static byte[] javaSerialize(Object o) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.toByteArray();
  }

  static Object javaDeserialize(byte[] bytes) throws IOException, ClassNotFoundException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      return in.readObject();
    }
  }

  static BloomFilter seedFilter(int keys) {
    BloomFilter f = BloomFilter.create(10_000, 0.001);
    f.putAll(TestSupport.keys(keys, keys));
    return f;
  }

  @Test
  void noNativeStateIsSerializable() {
    for (Field field : BloomFilter.class.getDeclaredFields()) {
      int mod = field.getModifiers();
      assertTrue(
          Modifier.isStatic(mod) || Modifier.isTransient(mod),
          field.getName() + " must be static or transient: Java serialization and Kryo's"
              + " FieldSerializer would copy it");
    }
  }

  @Test
  void javaSerializationRoundTripAndEnvelopeSize() throws Exception {
    StringBuilder report = new StringBuilder();
    for (int keys : new int[] {10_000, 200, 0}) {
      try (BloomFilter f = seedFilter(keys)) {
        byte[] format = f.toByteArray();
        byte[] stream = javaSerialize(f);
        int envelope = stream.length - format.length;
        // The serial proxy io.sparkbloom.Ser: stream header 4, object + class descriptor 33,
        // byte[] + its descriptor 23, end of block data 1, = 62 (Ser.java explains the name).
        assertEquals(62, envelope, "Java serialization envelope");
        assertTrue(envelope <= 64);
        BloomFilter back = (BloomFilter) javaDeserialize(stream);
        assertNotSame(f, back);
        assertEquals(f, back);
        back.put(-1L);
        assertTrue(back.mightContain(-1L));
        back.close();

        com.google.common.hash.BloomFilter<Long> guava =
            com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), 10_000, 0.001);
        for (long k : TestSupport.keys(keys, keys)) {
          guava.put(k);
        }
        byte[] guavaStream = javaSerialize(guava);
        report.append(
            String.format(
                "%n[java-serialization] (10^4, 10^-3) with %d keys: sparkbloom %d bytes (FORMAT.md %d"
                    + " + %d), Guava 33 %d bytes (bit array 17976)",
                keys, stream.length, format.length, envelope, guavaStream.length));
        if (keys == 10_000) {
          assertTrue(stream.length < guavaStream.length, "no larger than Guava's when full");
        }
        if (keys == 200) {
          assertTrue(stream.length < guavaStream.length / 5, "sparse encoding for seed-like filters");
        }
      }
    }
    System.out.println(report);
  }

  @Test
  void tenFiltersInOneStreamAsSaveAsObjectFileWritesThem() throws Exception {
    BloomFilter[] filters = new BloomFilter[10];
    for (int i = 0; i < filters.length; i++) {
      filters[i] = seedFilter(100 + i);
    }
    Object[] back = (Object[]) javaDeserialize(javaSerialize(filters));
    for (int i = 0; i < filters.length; i++) {
      assertEquals(filters[i], back[i]);
      filters[i].close();
      ((BloomFilter) back[i]).close();
    }
  }

  @Test
  void closedFilterCannotBeSerializedAndCorruptStreamsAreRejected() throws Exception {
    BloomFilter f = seedFilter(10);
    byte[] stream = javaSerialize(f);
    f.close();
    assertThrows(IllegalStateException.class, () -> javaSerialize(f));
    // Flip a bit inside the FORMAT.md payload: the checksum catches it on readResolve.
    stream[stream.length - 10] ^= 0x10;
    InvalidObjectException e = assertThrows(InvalidObjectException.class, () -> javaDeserialize(stream));
    assertInstanceOf(CorruptFilterException.class, e.getCause());
  }

  // ---------------------------------------------------------------------------------------
  // Kryo (4.x, as Spark 3.5 and 4.0 ship it)

  static Kryo kryo() {
    Kryo kryo = new Kryo();
    // What Spark's chill instantiator does: no constructor runs for classes without a no-arg one.
    kryo.setInstantiatorStrategy(new Kryo.DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
    return kryo;
  }

  static byte[] kryoWrite(Kryo kryo, Object o) {
    Output out = new Output(1024, -1);
    kryo.writeClassAndObject(out, o);
    return out.toBytes();
  }

  static Object kryoRead(Kryo kryo, byte[] bytes) {
    return kryo.readClassAndObject(new Input(bytes));
  }

  @Test
  void kryoUnregisteredUsesTheDefaultSerializerAnnotation() {
    Kryo kryo = kryo();
    kryo.setRegistrationRequired(false);
    assertInstanceOf(BloomFilterKryoSerializer.class, kryo.getSerializer(BloomFilter.class));
    try (BloomFilter f = seedFilter(200)) {
      byte[] bytes = kryoWrite(kryo, f);
      BloomFilter back = (BloomFilter) kryoRead(kryo, bytes);
      assertEquals(f, back);
      assertTrue(bytes.length < f.toByteArray().length + 40, "class name + length + FORMAT.md bytes");
      back.close();
    }
  }

  @Test
  void kryoRegisteredRoundTripAndCopy() {
    Kryo kryo = kryo();
    kryo.setRegistrationRequired(true);
    kryo.register(BloomFilter.class, new BloomFilterKryoSerializer());
    kryo.register(BloomFilter[].class);
    try (BloomFilter a = seedFilter(10_000);
        BloomFilter b = seedFilter(5)) {
      BloomFilter[] back = (BloomFilter[]) kryoRead(kryo, kryoWrite(kryo, new BloomFilter[] {a, b, a}));
      assertEquals(a, back[0]);
      assertEquals(b, back[1]);
      assertEquals(a, back[2]);
      BloomFilter copy = kryo.copy(a);
      assertNotSame(a, copy);
      assertEquals(a, copy);
      long before = a.bitCount();
      copy.putAll(TestSupport.keys(99, 1_000));
      assertEquals(before, a.bitCount(), "the copy is independent");
      for (BloomFilter f : back) {
        f.close();
      }
      copy.close();
    }
  }

  @Test
  void kryoFallingBackToJavaSerialization() {
    Kryo kryo = kryo();
    kryo.register(BloomFilter.class, new JavaSerializer());
    try (BloomFilter f = seedFilter(300)) {
      BloomFilter back = (BloomFilter) kryoRead(kryo, kryoWrite(kryo, f));
      assertEquals(f, back);
      back.close();
    }
  }

  @Test
  void kryoFieldSerializerNeverCopiesAHandle() {
    Kryo kryo = kryo();
    kryo.register(BloomFilter.class, new FieldSerializer<>(kryo, BloomFilter.class));
    try (BloomFilter f = seedFilter(300)) {
      byte[] bytes = kryoWrite(kryo, f);
      assertTrue(bytes.length < 8, "no field is written: " + bytes.length + " bytes");
      BloomFilter back = (BloomFilter) kryoRead(kryo, bytes);
      // Without a constructor the object has no native filter: every use is a clean
      // IllegalStateException, never a dangling pointer.
      assertTrue(back.isClosed());
      assertThrows(IllegalStateException.class, () -> back.mightContain(1L));
      back.close();
    }
  }

  @Test
  void kryoCorruptBytesAreAKryoExceptionCausedByCorruptFilter() {
    Kryo kryo = kryo();
    try (BloomFilter f = seedFilter(300)) {
      byte[] bytes = kryoWrite(kryo, f);
      bytes[bytes.length - 3] ^= 1;
      KryoException e = assertThrows(KryoException.class, () -> kryoRead(kryo, bytes));
      assertInstanceOf(CorruptFilterException.class, e.getCause());
      assertFalse(f.isClosed());
    }
  }
}
