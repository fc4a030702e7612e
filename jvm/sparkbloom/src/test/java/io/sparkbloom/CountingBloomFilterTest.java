package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InvalidObjectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** CountingBloomFilter through JNI (under -Xcheck:jni): API, rules, bytes, golden files. */
class CountingBloomFilterTest {

  @Test
  void sizedAndPlacedExactlyAsThePlainFilter() {
    for (Strategy spark : new Strategy[] {Strategy.SPARK_SKETCH_V1, Strategy.SPARK_SKETCH_V2}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.create(100, 0.01, spark));
      assertTrue(e.getMessage().contains("counting filters support"), e.getMessage());
    }
    for (Strategy strategy : new Strategy[] {Strategy.MURMUR128_MITZ_32, Strategy.MURMUR128_MITZ_64}) {
      try (CountingBloomFilter counting = CountingBloomFilter.create(10_000, 0.001, strategy);
          BloomFilter plain = BloomFilter.create(10_000, 0.001, strategy);
          BloomFilter rest = BloomFilter.create(10_000, 0.001, strategy)) {
        assertEquals(plain.bitSize(), counting.bitSize());
        assertEquals(plain.numHashFunctions(), counting.numHashFunctions());
        assertEquals(strategy, counting.strategy());
        long[] keys = TestSupport.keys(11, 6_000);
        assertTrue(counting.addAll(keys));
        plain.putAll(keys);
        try (BloomFilter converted = counting.toBloomFilter()) {
          assertArrayEquals(plain.toByteArray(), converted.toByteArray());
        }
        assertEquals(3_000, counting.removeAll(Arrays.copyOfRange(keys, 3_000, 6_000)));
        rest.putAll(Arrays.copyOf(keys, 3_000));
        try (BloomFilter converted = counting.toBloomFilter()) {
          assertArrayEquals(rest.toByteArray(), converted.toByteArray(), "byte-identical");
        }
        assertEquals(0, counting.saturatedCounters());
      }
    }
  }

  @Test
  void addRemoveQueryAndCount() {
    try (CountingBloomFilter f = CountingBloomFilter.create(1_000, 0.01)) {
      assertTrue(f.add(42L));
      assertTrue(f.add(42L));
      assertTrue(f.add("héllo"));
      assertTrue(f.add(new byte[] {1, 2, 3}));
      assertEquals(2, f.count(42L));
      assertEquals(1, f.count("héllo"));
      assertTrue(f.mightContain("héllo".getBytes(StandardCharsets.UTF_8)));
      assertTrue(f.mightContain(new byte[] {1, 2, 3}));
      assertFalse(f.mightContain(43L));
      byte[] before = f.toByteArray();
      assertFalse(f.remove(43L), "definitely absent: nothing changes");
      assertArrayEquals(before, f.toByteArray());
      assertTrue(f.remove(42L));
      assertTrue(f.mightContain(42L));
      assertTrue(f.remove(42L));
      assertFalse(f.mightContain(42L));
      assertEquals(0, f.count(42L));
      assertTrue(f.remove("héllo") && f.remove(new byte[] {1, 2, 3}));
      assertEquals(0, f.nonzeroCounters());
      long[] keys = {1, 2, 3, 4, 5};
      f.addAll(new long[] {2, 4});
      assertArrayEquals(new boolean[] {false, true, false, true, false}, f.mightContainAll(keys));
      assertArrayEquals(new long[] {1, 3, 5}, f.retainAbsent(keys));
    }
  }

  @Test
  void saturatedCountersStayAndAreReported() {
    try (CountingBloomFilter f = CountingBloomFilter.create(100, 0.03)) {
      for (int i = 0; i < 100; i++) {
        f.add(7L);
      }
      assertEquals(CountingBloomFilter.MAX_COUNT, f.count(7L));
      long saturated = f.saturatedCounters();
      assertTrue(saturated >= 1 && saturated <= 5, "" + saturated);
      for (int i = 0; i < 100; i++) {
        f.remove(7L);
      }
      assertTrue(f.mightContain(7L), "a saturated counter is never decremented");
      assertEquals(saturated, f.saturatedCounters());
    }
  }

  @Test
  void mergeAndSubtract() {
    try (CountingBloomFilter a = CountingBloomFilter.create(1_000, 0.01);
        CountingBloomFilter b = CountingBloomFilter.create(1_000, 0.01);
        CountingBloomFilter other = CountingBloomFilter.create(1_000, 0.001)) {
      a.addAll(new long[] {1, 2, 3});
      b.addAll(new long[] {3, 4});
      try (CountingBloomFilter sum = a.copy()) {
        assertNotSame(a, sum);
        sum.merge(b);
        assertEquals(2, sum.count(3L));
        sum.subtract(b);
        assertEquals(a, sum);
        assertEquals(a.hashCode(), sum.hashCode());
      }
      assertFalse(a.isCompatible(other));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.merge(other));
      assertTrue(e.getMessage().contains("numBits"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> a.subtract(other));
    }
  }

  @Test
  void badInput() {
    assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.create(-1, 0.01));
    assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.create(100, 1.5));
    assertThrows(NullPointerException.class, () -> CountingBloomFilter.create(100, 0.1, null));
    CountingBloomFilter f = CountingBloomFilter.create(100, 0.01);
    assertThrows(NullPointerException.class, () -> f.add((String) null));
    assertThrows(NullPointerException.class, () -> f.add((byte[]) null));
    assertThrows(NullPointerException.class, () -> f.addAll(null));
    assertThrows(NullPointerException.class, () -> f.merge(null));
    f.close();
    f.close();
    assertThrows(IllegalStateException.class, () -> f.add(1L));
    assertThrows(IllegalStateException.class, () -> f.remove(1L));
    assertThrows(IllegalStateException.class, f::toByteArray);
    assertEquals("CountingBloomFilter{closed}", f.toString());
  }

  @Test
  void bytesStreamsJavaAndKryoRoundTrip() throws Exception {
    try (CountingBloomFilter f = CountingBloomFilter.create(10_000, 0.001)) {
      f.addAll(TestSupport.keys(3, 500));
      f.add(3L);
      byte[] bytes = f.toByteArray();
      assertEquals(3, bytes[4], "format version 3");
      try (CountingBloomFilter back = CountingBloomFilter.fromByteArray(bytes)) {
        assertEquals(f, back);
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      f.writeTo(out);
      out.write(99);
      ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
      try (CountingBloomFilter back = CountingBloomFilter.readFrom(in)) {
        assertEquals(f, back);
        assertEquals(99, in.read(), "reads exactly one filter");
      }
      Object java = SerializationTest.javaDeserialize(SerializationTest.javaSerialize(f));
      try (CountingBloomFilter back = assertInstanceOf(CountingBloomFilter.class, java)) {
        assertEquals(f, back);
      }
      Kryo kryo = SerializationTest.kryo();
      kryo.setRegistrationRequired(false);
      assertInstanceOf(
          CountingBloomFilterKryoSerializer.class, kryo.getSerializer(CountingBloomFilter.class));
      Object viaKryo = SerializationTest.kryoRead(kryo, SerializationTest.kryoWrite(kryo, f));
      try (CountingBloomFilter back = assertInstanceOf(CountingBloomFilter.class, viaKryo)) {
        assertEquals(f, back);
      }
    }
  }

  @Test
  void corruptBytesNameTheirField() throws Exception {
    byte[] bytes;
    try (CountingBloomFilter f = CountingBloomFilter.create(1_000, 0.01)) {
      f.addAll(TestSupport.keys(5, 100));
      bytes = f.toByteArray();
    }
    for (int len = 0; len < bytes.length; len++) {
      byte[] cut = Arrays.copyOf(bytes, len);
      CorruptFilterException e =
          assertThrows(CorruptFilterException.class, () -> CountingBloomFilter.fromByteArray(cut));
      assertTrue(e.getMessage().contains("length"), e.getMessage());
    }
    for (int bit = 0; bit < bytes.length * 8; bit++) {
      byte[] flipped = bytes.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThrows(CorruptFilterException.class, () -> CountingBloomFilter.fromByteArray(flipped));
    }
    byte[] plain;
    try (BloomFilter p = BloomFilter.create(1_000, 0.01)) {
      plain = p.toByteArray();
    }
    CorruptFilterException e =
        assertThrows(CorruptFilterException.class, () -> CountingBloomFilter.fromByteArray(plain));
    assertTrue(e.getMessage().contains("version"), e.getMessage());
    e = assertThrows(CorruptFilterException.class, () -> BloomFilter.fromByteArray(bytes));
    assertTrue(e.getMessage().contains("version 3"), e.getMessage());
    assertThrows(
        FilterTooLargeException.class, () -> CountingBloomFilter.fromByteArray(bytes, 1_000));
    assertThrows(NullPointerException.class, () -> CountingBloomFilter.fromByteArray(null));
    byte[] tampered = SerializationTest.javaSerialize(new CountingSer(Arrays.copyOf(bytes, 30)));
    InvalidObjectException invalid =
        assertThrows(InvalidObjectException.class, () -> SerializationTest.javaDeserialize(tampered));
    assertInstanceOf(CorruptFilterException.class, invalid.getCause());
  }

  /** tests/golden/manifest_counting.tsv, read by the JVM as by the Rust suite. */
  @Test
  void goldenFiles() throws Exception {
    Path golden = TestSupport.repoRoot().resolve("tests/golden");
    List<String> lines = Files.readAllLines(golden.resolve("manifest_counting.tsv"));
    int valid = 0;
    for (String line : lines.subList(1, lines.size())) {
      String[] c = line.split("\t", -1);
      byte[] bytes = Files.readAllBytes(golden.resolve(c[0]));
      if (!c[7].equals("ok")) {
        CorruptFilterException e =
            assertThrows(CorruptFilterException.class, () -> CountingBloomFilter.fromByteArray(bytes));
        assertTrue(e.getMessage().contains(": " + c[7] + ":"), c[0] + ": " + e.getMessage());
        continue;
      }
      Strategy strategy = Strategy.valueOf(c[2]);
      try (CountingBloomFilter f = CountingBloomFilter.fromByteArray(bytes)) {
        assertEquals(strategy, f.strategy());
        for (String key : Files.readAllLines(golden.resolve(c[6]), StandardCharsets.UTF_8)) {
          assertTrue(
              c[5].equals("long") ? f.mightContain(Long.parseLong(key)) : f.mightContain(key),
              c[0] + ": " + key);
        }
        if (c[8].equals("guava")) {
          try (CountingBloomFilter built =
              CountingBloomFilter.create(Long.parseLong(c[3]), Double.parseDouble(c[4]), strategy)) {
            for (String key : Files.readAllLines(golden.resolve(c[6]), StandardCharsets.UTF_8)) {
              if (c[5].equals("long")) {
                built.add(Long.parseLong(key));
              } else {
                built.add(key);
              }
            }
            assertArrayEquals(bytes, built.toByteArray(), c[0]);
          }
        }
        assertArrayEquals(bytes, f.toByteArray(), c[0]);
      }
      valid++;
    }
    assertTrue(valid >= 6);
  }

  /**
   * 8 threads add and remove disjoint keys at once: equal to the sequential result. That holds
   * while no interleaving saturates a counter (one at 15 stays there, so where one saturates
   * depends on the order): each key counts at most once at any moment, so no counter exceeds the
   * one every key added once gives, which is checked to saturate none.
   */
  @Test
  void eightThreadsEqualTheSequentialResult() throws Exception {
    int perThread = 20_000;
    try (CountingBloomFilter shared = CountingBloomFilter.create(8L * perThread, 0.01);
        CountingBloomFilter sequential = CountingBloomFilter.create(8L * perThread, 0.01);
        CountingBloomFilter bound = CountingBloomFilter.create(8L * perThread, 0.01)) {
      for (int t = 0; t < 8; t++) {
        bound.addAll(TestSupport.keys(100 + t, perThread));
      }
      assertEquals(0, bound.saturatedCounters(), "no interleaving saturates");
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        long[] keys = TestSupport.keys(100 + t, perThread);
        done.add(pool.submit(() -> work(shared, keys)));
        work(sequential, keys);
      }
      for (Future<?> f : done) {
        f.get();
      }
      pool.shutdown();
      assertEquals(0, sequential.saturatedCounters());
      assertEquals(sequential, shared);
    }
  }

  private static void work(CountingBloomFilter f, long[] keys) {
    for (int i = 0; i < keys.length; i++) {
      f.add(keys[i]);
      if (i % 3 == 0) {
        if (!f.remove(keys[i])) {
          throw new AssertionError("added key reported absent");
        }
        f.add(keys[i]);
      }
      if (i >= 10 && i % 2 == 0 && !f.remove(keys[i - 10])) {
        throw new AssertionError("added key reported absent");
      }
    }
  }
}
