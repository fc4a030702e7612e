package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
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

  static BloomFilter sampleFilter(int keys) {
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
      try (BloomFilter f = sampleFilter(keys)) {
        byte[] format = f.toByteArray();
        byte[] stream = javaSerialize(f);
        int envelope = stream.length - format.length;
        // The serial proxy io.sparkbloom.Ser: stream header 4, object + class descriptor 34,
        // then block data (SerialProxy): the length int 4 and the bytes, in blocks of up to
        // 1024 bytes whose headers take 2 bytes (up to 255) or 5, then end of block data 1.
        int data = 4 + format.length;
        int blockHeaders = 5 * (data / 1024) + (data % 1024 == 0 ? 0 : data % 1024 <= 255 ? 2 : 5);
        assertEquals(4 + 34 + 4 + blockHeaders + 1, envelope, "Java serialization envelope");
        // Full (18,004 bytes): 133, 0.7 % of the bytes.
        assertTrue(envelope <= 43 + format.length / 200 + 5, "about 0.5 % beyond FORMAT.md");
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
          assertTrue(stream.length < guavaStream.length / 5, "sparse encoding for a filter of 200 keys at 10^4 capacity");
        }
      }
    }
    System.out.println(report);
  }

  @Test
  void tenFiltersInOneStreamAsSaveAsObjectFileWritesThem() throws Exception {
    BloomFilter[] filters = new BloomFilter[10];
    for (int i = 0; i < filters.length; i++) {
      filters[i] = sampleFilter(100 + i);
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
    BloomFilter f = sampleFilter(10);
    byte[] stream = javaSerialize(f);
    f.close();
    assertThrows(IllegalStateException.class, () -> javaSerialize(f));
    // Flip a bit inside the FORMAT.md payload: the checksum catches it on readResolve.
    stream[stream.length - 10] ^= 0x10;
    InvalidObjectException e = assertThrows(InvalidObjectException.class, () -> javaDeserialize(stream));
    assertInstanceOf(CorruptFilterException.class, e.getCause());
  }

  /** Where the length int of the proxy's block data sits: just before the FORMAT.md magic. */
  private static int lengthOffset(byte[] stream) {
    for (int i = 4; i + 4 <= stream.length; i++) {
      if (stream[i] == 'S' && stream[i + 1] == 'B' && stream[i + 2] == 'L' && stream[i + 3] == 'M') {
        return i - 4;
      }
    }
    throw new AssertionError("no FORMAT.md bytes in the stream");
  }

  @Test
  void truncatedAndForgedBlockDataStreamsAreInvalidObjects() throws Exception {
    for (int keys : new int[] {10_000, 200}) {
      try (BloomFilter f = sampleFilter(keys)) {
        byte[] stream = javaSerialize(f);
        int at = lengthOffset(stream);
        assertEquals(f.toByteArray().length, java.nio.ByteBuffer.wrap(stream, at, 4).getInt());
        // Cut anywhere inside the filter's bytes: named as truncated.
        for (int cut = at + 4; cut < stream.length - 1; cut += 97) {
          byte[] truncated = Arrays.copyOf(stream, cut);
          Exception e = assertThrows(Exception.class, () -> javaDeserialize(truncated));
          assertInstanceOf(java.io.IOException.class, e, "cut at " + cut + ": " + e);
          if (e instanceof InvalidObjectException) {
            assertTrue(e.getMessage().contains("truncated"), e.getMessage());
          }
        }
        // A negative or huge forged length: named, and nothing huge allocated.
        assertForgedLengthsAreNamed(stream, at);
        // A shorter length than the bytes: the FORMAT.md decoder names the length.
        byte[] shorter = withLength(stream, at, f.toByteArray().length - 1);
        InvalidObjectException e =
            assertThrows(InvalidObjectException.class, () -> javaDeserialize(shorter));
        assertInstanceOf(CorruptFilterException.class, e.getCause());
        assertTrue(e.getMessage().contains("length"), e.getMessage());
      }
    }
  }

  /** {@code stream} with {@code length} as the filter length int at {@code at}. */
  private static byte[] withLength(byte[] stream, int at, int length) {
    byte[] tampered = stream.clone();
    java.nio.ByteBuffer.wrap(tampered, at, 4).putInt(length);
    return tampered;
  }

  /**
   * A negative or huge length forged into {@code stream}'s block data at {@code at} is an
   * InvalidObjectException naming it (negative, or truncated: more than the bytes there).
   */
  private static void assertForgedLengthsAreNamed(byte[] stream, int at) {
    for (int forged : new int[] {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 1 << 30}) {
      byte[] tampered = withLength(stream, at, forged);
      InvalidObjectException e =
          assertThrows(InvalidObjectException.class, () -> javaDeserialize(tampered));
      assertTrue(
          e.getMessage().contains(forged < 0 ? "negative filter length" : "truncated"),
          e.getMessage());
    }
  }

  /**
   * The counting filter writes block data as the plain filter does: a forged length is read
   * against the bytes that are there (named as truncated), never allocated up front.
   */
  @Test
  void countingStreamsAreBlockDataAndAForgedLengthIsNamed() throws Exception {
    try (CountingBloomFilter c = CountingBloomFilter.create(100, 0.03)) {
      c.add(1);
      c.add("sparkbloom");
      byte[] stream = javaSerialize(c);
      int at = lengthOffset(stream);
      assertEquals(c.toByteArray().length, java.nio.ByteBuffer.wrap(stream, at, 4).getInt());
      // Block data: TC_BLOCKDATA (0x77) or TC_BLOCKDATALONG (0x7A) right before the length.
      assertTrue(stream[at - 2] == 0x77 || stream[at - 5] == 0x7A, "not block data");
      assertForgedLengthsAreNamed(stream, at);
      try (CountingBloomFilter back = (CountingBloomFilter) javaDeserialize(stream)) {
        assertEquals(c, back);
      }
    }
  }

  /**
   * Reads {@code bytes} as Spark's streams deliver them: {@code available()} always 0 and at
   * most 7 bytes per read.
   */
  static Object javaDeserializeStingy(byte[] bytes) throws IOException, ClassNotFoundException {
    InputStream stingy =
        new java.io.FilterInputStream(new ByteArrayInputStream(bytes)) {
          @Override
          public int available() {
            return 0;
          }

          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            return super.read(b, off, Math.min(len, 7));
          }
        };
    try (ObjectInputStream in = new ObjectInputStream(stingy)) {
      return in.readObject();
    }
  }

  @Test
  void streamsWithoutAvailableBytesReadBack() throws Exception {
    // Spark's task and object-file streams answer available() with 0.
    for (int keys : new int[] {10_000, 200, 0}) {
      try (BloomFilter f = sampleFilter(keys);
          BloomFilter back = (BloomFilter) javaDeserializeStingy(javaSerialize(f))) {
        assertEquals(f, back);
      }
    }
  }

  @Test
  void filtersOfEveryBufferSizeRoundTripAndNestedStreamsReadBack() throws Exception {
    // Larger than the first reused buffer (32 KiB) and than a kept one (1 MiB), then small
    // again: each is encoded and decoded through whatever buffer the thread holds.
    long[][] shapes = {{10, 1_000}, {100_000, 50_000}, {1_000_000, 1_000_000}, {100, 50}};
    for (long[] shape : shapes) {
      try (BloomFilter f = BloomFilter.create(shape[0], 0.01)) {
        f.putAll(TestSupport.keys(shape[1], (int) shape[1]));
        try (BloomFilter back = (BloomFilter) javaDeserialize(javaSerialize(f))) {
          assertEquals(f, back);
        }
      }
    }
    // A filter written inside another object's stream, twice, then more data.
    try (BloomFilter f = sampleFilter(300)) {
      Object[] back = (Object[]) javaDeserialize(javaSerialize(new Object[] {f, "x", f, 7}));
      assertEquals(f, back[0]);
      assertEquals("x", back[1]);
      assertSame(back[0], back[2]);
      assertEquals(7, back[3]);
      ((BloomFilter) back[0]).close();
    }
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
    try (BloomFilter f = sampleFilter(200)) {
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
    try (BloomFilter a = sampleFilter(10_000);
        BloomFilter b = sampleFilter(5)) {
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
    try (BloomFilter f = sampleFilter(300)) {
      BloomFilter back = (BloomFilter) kryoRead(kryo, kryoWrite(kryo, f));
      assertEquals(f, back);
      back.close();
    }
  }

  @Test
  void kryoFieldSerializerNeverCopiesAHandle() {
    Kryo kryo = kryo();
    kryo.register(BloomFilter.class, new FieldSerializer<>(kryo, BloomFilter.class));
    try (BloomFilter f = sampleFilter(300)) {
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
    try (BloomFilter f = sampleFilter(300)) {
      byte[] bytes = kryoWrite(kryo, f);
      bytes[bytes.length - 3] ^= 1;
      KryoException e = assertThrows(KryoException.class, () -> kryoRead(kryo, bytes));
      assertInstanceOf(CorruptFilterException.class, e.getCause());
      assertFalse(f.isClosed());
    }
  }
}
