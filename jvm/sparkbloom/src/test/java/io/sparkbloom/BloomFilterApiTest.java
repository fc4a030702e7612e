package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every public method of {@link BloomFilter} and every exception path. */
class BloomFilterApiTest {

  @Test
  void createHasGuavaShape() {
    try (BloomFilter f = BloomFilter.create(10_000, 0.001)) {
      assertEquals(143_808, f.bitSize());
      assertEquals(10, f.numHashFunctions());
      assertEquals(Strategy.MURMUR128_MITZ_64, f.strategy());
      assertEquals(0, f.bitCount());
      assertEquals(0, f.approximateElementCount());
      assertEquals(0.0, f.expectedFpp());
    }
    try (BloomFilter f = BloomFilter.create(100)) {
      assertEquals(768, f.bitSize()); // Guava create(funnel, 100): 3% → m = 768, k = 5
      assertEquals(5, f.numHashFunctions());
    }
    try (BloomFilter zero = BloomFilter.create(0, 0.01);
        BloomFilter one = BloomFilter.create(1, 0.01)) {
      assertEquals(one.bitSize(), zero.bitSize(), "0 insertions count as 1, as in Guava");
      assertEquals(one.bitSize(), BloomFilter.bitSizeFor(0, 0.01));
    }
    assertEquals(143_808, BloomFilter.bitSizeFor(10_000, 0.001));
    // Sized without being made: ~900 GB of bits, beyond this process's memory.
    assertEquals(7_213_475_204_480L, BloomFilter.bitSizeFor(5_000_000_000_000L, 0.5));
    try (BloomFilter f = BloomFilter.create(1000, 0.01, Strategy.MURMUR128_MITZ_32)) {
      assertEquals(Strategy.MURMUR128_MITZ_32, f.strategy());
    }
  }

  @Test
  void badSizesNameTheArgument() {
    assertMessage(IllegalArgumentException.class, "expectedInsertions", () -> BloomFilter.create(-1, 0.01));
    for (double fpp : new double[] {0.0, 1.0, -0.1, 1.5, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertMessage(IllegalArgumentException.class, "fpp", () -> BloomFilter.create(10, fpp));
    }
    assertMessage(
        IllegalArgumentException.class, "expectedInsertions", () -> BloomFilter.create(Long.MAX_VALUE, 1e-9));
    assertMessage(IllegalArgumentException.class, "expectedInsertions", () -> BloomFilter.bitSizeFor(-1, 0.01));
    assertMessage(IllegalArgumentException.class, "fpp", () -> BloomFilter.bitSizeFor(10, 1.0));
    assertMessage(
        IllegalArgumentException.class, "expectedInsertions", () -> BloomFilter.bitSizeFor(Long.MAX_VALUE, 1e-9));
    assertThrows(NullPointerException.class, () -> BloomFilter.create(10, 0.01, null));
  }

  @Test
  void aFilterLargerThanMemoryIsAnIllegalArgument() {
    // ~900 GB of bits: more than this process's memory limit (physical memory, or a cgroup's),
    // unless the machine has that much, in which case the filter is simply closed again.
    try {
      BloomFilter huge = BloomFilter.create(5_000_000_000_000L, 0.5);
      huge.close();
      org.junit.jupiter.api.Assumptions.assumeTrue(false, "this machine has 900 GB");
    } catch (FilterExceedsMemoryException e) {
      assertTrue(e.getMessage().contains("bytes"), e.getMessage());
    }
  }

  @Test
  void putAndQueryEveryKeyType() {
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      assertTrue(f.put(42L));
      assertFalse(f.put(42L), "a second put changes no bit");
      assertTrue(f.mightContain(42L));
      assertTrue(f.put("héllo wörld ✓ \uD83D\uDE00"));
      assertTrue(f.mightContain("héllo wörld ✓ \uD83D\uDE00"));
      assertTrue(f.mightContain("héllo wörld ✓ \uD83D\uDE00".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          "strings hash as their UTF-8 bytes");
      assertTrue(f.put(new byte[] {1, 2, 3}));
      assertTrue(f.mightContain(new byte[] {1, 2, 3}));
      assertTrue(f.put(new byte[0]));
      assertTrue(f.mightContain(new byte[0]));
      assertFalse(f.put(""), "the empty string hashes as the empty byte string");
      int falsePositives = 0;
      for (long k = 1_000_000; k < 1_010_000; k++) {
        if (f.mightContain(k)) {
          falsePositives++;
        }
      }
      assertTrue(falsePositives < 100, "fpp far above 1% at 5 keys: " + falsePositives);
      // 4 distinct keys, but the empty byte string hashes to 0 (Murmur3 of nothing, as in
      // Guava), whose k positions are all bit 0: 3·k + 1 bits set, estimated as 3 keys.
      assertEquals(3L * f.numHashFunctions() + 1, f.bitCount());
      assertEquals(3, f.approximateElementCount());
      assertTrue(f.expectedFpp() > 0 && f.expectedFpp() < 1e-6);
    }
  }

  @Test
  void batchMethodsAgreeWithSingleKeyMethods() {
    try (BloomFilter f = BloomFilter.create(2_000, 0.01);
        BloomFilter g = BloomFilter.create(2_000, 0.01)) {
      long[] keys = new long[1_000];
      for (int i = 0; i < keys.length; i++) {
        keys[i] = i * 0x9E3779B97F4A7C15L;
      }
      assertTrue(f.putAll(keys));
      assertFalse(f.putAll(keys));
      assertFalse(f.putAll(new long[0]));
      for (long k : keys) {
        g.put(k);
      }
      assertEquals(g, f, "putAll sets the bits put sets");
      long[] probe = new long[3_000];
      for (int i = 0; i < probe.length; i++) {
        probe[i] = (i % 3 == 0) ? keys[i / 3] : -i;
      }
      boolean[] present = f.mightContainAll(probe);
      assertEquals(probe.length, present.length);
      long[] absent = f.retainAbsent(probe);
      long[] expectedAbsent =
          Arrays.stream(probe).filter(k -> !f.mightContain(k)).toArray();
      assertArrayEquals(expectedAbsent, absent);
      for (int i = 0; i < probe.length; i++) {
        assertEquals(f.mightContain(probe[i]), present[i], "key " + probe[i]);
        if (i % 3 == 0) {
          assertTrue(present[i], "no false negative");
        }
      }
      assertTrue(absent.length > 1_900, "most never-put keys are absent: " + absent.length);
      assertEquals(0, f.mightContainAll(new long[0]).length);
      assertEquals(0, f.retainAbsent(new long[0]).length);
      assertArrayEquals(new long[] {7, 7}, f.retainAbsent(new long[] {keys[0], 7, keys[1], 7}));
    }
  }

  @Test
  void nullsThrowNullPointerException() {
    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      assertMessage(NullPointerException.class, "key", () -> f.put((byte[]) null));
      assertMessage(NullPointerException.class, "key", () -> f.put((String) null));
      assertMessage(NullPointerException.class, "key", () -> f.mightContain((byte[]) null));
      assertMessage(NullPointerException.class, "key", () -> f.mightContain((String) null));
      assertMessage(NullPointerException.class, "keys", () -> f.putAll((long[]) null));
      assertMessage(NullPointerException.class, "keys", () -> f.mightContainAll((long[]) null));
      assertMessage(NullPointerException.class, "keys", () -> f.retainAbsent((long[]) null));
      assertMessage(NullPointerException.class, "other", () -> f.merge(null));
      assertMessage(NullPointerException.class, "other", () -> f.intersect(null));
      assertMessage(NullPointerException.class, "other", () -> f.isCompatible(null));
      assertMessage(NullPointerException.class, "bytes", () -> BloomFilter.fromByteArray(null));
      assertThrows(NullPointerException.class, () -> BloomFilter.readFrom(null));
      assertThrows(NullPointerException.class, () -> BloomFilter.readGuava(null));
      assertThrows(NullPointerException.class, () -> f.writeTo(null));
      assertThrows(NullPointerException.class, () -> f.writeGuava(null));
      assertThrows(NullPointerException.class, () -> BloomFilter.fromGuava(null));
    }
  }

  @Test
  void mergeAndIntersect() {
    try (BloomFilter a = BloomFilter.create(1000, 0.01);
        BloomFilter b = BloomFilter.create(1000, 0.01)) {
      for (long k = 0; k < 100; k++) {
        a.put(k);
        b.put(k + 50);
      }
      assertTrue(a.isCompatible(b));
      try (BloomFilter both = a.copy()) {
        both.intersect(b);
        for (long k = 50; k < 100; k++) {
          assertTrue(both.mightContain(k));
        }
        assertTrue(both.bitCount() < a.bitCount());
      }
      long before = b.bitCount();
      a.merge(b);
      assertEquals(before, b.bitCount(), "the argument is unchanged");
      for (long k = 0; k < 150; k++) {
        assertTrue(a.mightContain(k));
      }
      a.merge(a); // OR with itself: no change, no deadlock
    }
  }

  @Test
  void incompatibleMergeNamesTheMismatch() {
    try (BloomFilter a = BloomFilter.create(1000, 0.01);
        BloomFilter bigger = BloomFilter.create(2000, 0.01);
        BloomFilter otherK = BloomFilter.create(1000, 0.001);
        BloomFilter legacy = BloomFilter.create(1000, 0.01, Strategy.MURMUR128_MITZ_32)) {
      assertFalse(a.isCompatible(bigger));
      assertFalse(a.isCompatible(legacy));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.merge(bigger));
      assertTrue(e.getMessage().contains("numBits 9600 vs 19200"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> a.intersect(otherK));
      assertTrue(e.getMessage().contains("numHashFunctions 7 vs 10"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> a.merge(legacy));
      assertTrue(e.getMessage().contains("strategy MURMUR128_MITZ_64 vs MURMUR128_MITZ_32"), e.getMessage());
    }
  }

  @Test
  void useAfterCloseThrowsIllegalStateException() {
    BloomFilter f = BloomFilter.create(100, 0.01);
    BloomFilter open = BloomFilter.create(100, 0.01);
    f.put(1L);
    assertFalse(f.isClosed());
    f.close();
    assertTrue(f.isClosed());
    f.close(); // double close: no-op
    assertEquals("BloomFilter{closed}", f.toString());
    assertEquals(f, f);
    assertNotEquals(f, open);
    assertNotEquals(open, f);
    assertEquals(System.identityHashCode(f), f.hashCode());
    for (Consumer<BloomFilter> use :
        Arrays.<Consumer<BloomFilter>>asList(
            x -> x.put(1L),
            x -> x.put("a"),
            x -> x.put(new byte[1]),
            x -> x.mightContain(1L),
            x -> x.mightContain("a"),
            x -> x.mightContain(new byte[1]),
            x -> x.putAll(new long[1]),
            x -> x.mightContainAll(new long[1]),
            x -> x.retainAbsent(new long[1]),
            x -> x.merge(open),
            x -> x.intersect(open),
            x -> x.isCompatible(open),
            x -> open.merge(x),
            x -> open.intersect(x),
            x -> open.isCompatible(x),
            BloomFilter::bitSize,
            BloomFilter::numHashFunctions,
            BloomFilter::strategy,
            BloomFilter::bitCount,
            BloomFilter::approximateElementCount,
            BloomFilter::expectedFpp,
            BloomFilter::toByteArray,
            BloomFilter::copy,
            x -> {
              try {
                x.writeTo(new ByteArrayOutputStream());
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            },
            x -> {
              try {
                x.writeGuava(new ByteArrayOutputStream());
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            })) {
      assertMessage(IllegalStateException.class, "closed", () -> use.accept(f));
    }
    open.close();
  }

  @Test
  void equalsHashCodeToStringOnContent() {
    try (BloomFilter a = BloomFilter.create(1000, 0.01);
        BloomFilter b = BloomFilter.create(1000, 0.01);
        BloomFilter c = BloomFilter.create(1000, 0.01, Strategy.MURMUR128_MITZ_32)) {
      assertEquals(a, b);
      assertEquals(a.hashCode(), b.hashCode());
      assertNotEquals(a, c, "same bits, other strategy");
      assertNotEquals(a, "not a filter");
      assertNotEquals(a, null);
      a.put(7L);
      assertNotEquals(a, b);
      b.put(7L);
      assertEquals(a, b);
      assertEquals(a.hashCode(), b.hashCode());
      try (BloomFilter copy = a.copy()) {
        assertNotSame(a, copy);
        assertEquals(a, copy);
        copy.put(8L);
        assertFalse(a.mightContain(8L) && a.bitCount() == copy.bitCount(), "the copy is independent");
      }
      String s = a.toString();
      assertTrue(s.startsWith("BloomFilter{m=9600, k=7, strategy=MURMUR128_MITZ_64, fill="), s);
      assertTrue(s.endsWith("%}"), s);
    }
  }

  @Test
  void bytesRoundTrip() throws IOException {
    try (BloomFilter f = BloomFilter.create(10_000, 0.001)) {
      for (long k = 0; k < 200; k++) {
        f.put(k * 31);
      }
      byte[] bytes = f.toByteArray();
      assertEquals('S', bytes[0]);
      assertEquals('B', bytes[1]);
      assertEquals('L', bytes[2]);
      assertEquals('M', bytes[3]);
      try (BloomFilter g = BloomFilter.fromByteArray(bytes)) {
        assertEquals(f, g);
        assertArrayEquals(bytes, g.toByteArray(), "deterministic bytes");
      }
      // writeTo/readFrom: several filters and trailing data in one stream
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      f.writeTo(out);
      try (BloomFilter empty = BloomFilter.create(5, 0.1)) {
        empty.writeTo(out);
      }
      out.write(new byte[] {1, 2, 3});
      InputStream in = new ByteArrayInputStream(out.toByteArray());
      try (BloomFilter g = BloomFilter.readFrom(in);
          BloomFilter h = BloomFilter.readFrom(in)) {
        assertEquals(f, g);
        assertEquals(64, h.bitSize());
      }
      assertEquals(3, in.available(), "readFrom never reads past the filter");
    }
  }

  @Test
  void corruptBytesNameTheField() throws IOException {
    byte[] good;
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      f.put(1L);
      good = f.toByteArray();
    }
    byte[] badMagic = good.clone();
    badMagic[0] = 'X';
    assertMessage(CorruptFilterException.class, "magic", () -> BloomFilter.fromByteArray(badMagic));
    byte[] badCrc = good.clone();
    badCrc[badCrc.length - 1] ^= 1;
    assertMessage(CorruptFilterException.class, "checksum", () -> BloomFilter.fromByteArray(badCrc));
    assertThrows(CorruptFilterException.class, () -> BloomFilter.fromByteArray(new byte[0]));
    assertThrows(
        CorruptFilterException.class, () -> BloomFilter.fromByteArray(Arrays.copyOf(good, good.length - 1)));
    assertMessage(
        CorruptFilterException.class,
        "header",
        () -> BloomFilter.readFrom(new ByteArrayInputStream(good, 0, 10)));
    assertMessage(
        CorruptFilterException.class,
        "payload",
        () -> BloomFilter.readFrom(new ByteArrayInputStream(good, 0, good.length - 2)));
    assertMessage(
        CorruptFilterException.class, "magic", () -> BloomFilter.readFrom(new ByteArrayInputStream(badMagic)));
    // Guava's stream: unknown strategy ordinal, truncated words
    assertMessage(
        CorruptFilterException.class,
        "strategy",
        () -> BloomFilter.readGuava(new ByteArrayInputStream(new byte[] {9, 3, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})));
    assertMessage(
        CorruptFilterException.class,
        "words",
        () -> BloomFilter.readGuava(new ByteArrayInputStream(new byte[] {1, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0})));
  }

  static <T extends Throwable> T assertMessage(
      Class<T> type, String fragment, org.junit.jupiter.api.function.Executable call) {
    T e = assertThrows(type, call);
    assertTrue(
        e.getMessage() != null && e.getMessage().contains(fragment),
        type.getSimpleName() + " message should name '" + fragment + "': " + e.getMessage());
    return e;
  }

  @Test
  void bestPracticeSizingFollowsClickHousesTable() {
    try (BloomFilter f = BloomFilter.createBestPractice(1000, 0.01);
        BloomFilter guava = BloomFilter.create(1000, 0.01)) {
      assertEquals(10_048, f.bitSize());
      assertEquals(5, f.numHashFunctions());
      assertEquals(Strategy.MURMUR128_MITZ_64, f.strategy());
      assertFalse(f.isCompatible(guava));
      long[] keys = TestSupport.keys(3, 1000);
      f.putAll(keys);
      assertEquals(0, f.retainAbsent(keys).length);
    }
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.createBestPractice(1000, 1.5));
    assertTrue(e.getMessage().contains("fpp"), e.getMessage());
  }
}
