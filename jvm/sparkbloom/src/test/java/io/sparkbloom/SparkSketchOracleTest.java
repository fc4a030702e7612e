package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Our Spark sketch strategies against the real {@code org.apache.spark.util.sketch.BloomFilter}:
 * spark-sketch 3.5.x (writes V1) and 4.1+ (writes V2 by default), each through its own class
 * loader (same package names). For each writer and each key kind (long, String with non-ASCII
 * and non-BMP characters, byte[]), 10^6 keys are put into Spark's filter and ours: the bytes
 * must be equal, the filter read from Spark's bytes must answer every one of 2·10^6 queries as
 * Spark does, and Spark's {@code readFrom} must load what {@code writeSpark} writes.
 */
class SparkSketchOracleTest {
  static final int KEYS = 1_000_000;
  static final double FPP = 0.03;

  static Sketch v1;
  static Sketch v2;

  /** One spark-sketch jar, driven through method handles. */
  static final class Sketch implements AutoCloseable {
    final String version;
    final URLClassLoader loader;
    final MethodHandle create;
    final MethodHandle readFrom;
    final MethodHandle writeTo;
    final MethodHandle putLong;
    final MethodHandle putString;
    final MethodHandle putBinary;
    final MethodHandle mightContainLong;
    final MethodHandle mightContainString;
    final MethodHandle mightContainBinary;

    Sketch(String jarProperty, String versionProperty) throws Exception {
      Path jar = Paths.get(System.getProperty(jarProperty, "missing"));
      assertTrue(Files.exists(jar), "spark-sketch jar (copied by maven-dependency-plugin): " + jar);
      version = System.getProperty(versionProperty, "?");
      loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
      Class<?> type = loader.loadClass("org.apache.spark.util.sketch.BloomFilter");
      MethodHandles.Lookup lookup = MethodHandles.publicLookup();
      create = lookup.findStatic(type, "create", MethodType.methodType(type, long.class, double.class));
      readFrom = lookup.findStatic(type, "readFrom", MethodType.methodType(type, InputStream.class));
      writeTo = lookup.findVirtual(type, "writeTo", MethodType.methodType(void.class, OutputStream.class));
      putLong = bool(lookup, type, "putLong", long.class);
      putString = bool(lookup, type, "putString", String.class);
      putBinary = bool(lookup, type, "putBinary", byte[].class);
      mightContainLong = bool(lookup, type, "mightContainLong", long.class);
      mightContainString = bool(lookup, type, "mightContain", Object.class);
      mightContainBinary = bool(lookup, type, "mightContainBinary", byte[].class);
    }

    private static MethodHandle bool(
        MethodHandles.Lookup lookup, Class<?> type, String name, Class<?> arg) throws Exception {
      return lookup
          .findVirtual(type, name, MethodType.methodType(boolean.class, arg))
          .asType(MethodType.methodType(boolean.class, Object.class, arg));
    }

    byte[] bytes(Object filter) throws Throwable {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      writeTo.invoke(filter, (OutputStream) out);
      return out.toByteArray();
    }

    @Override
    public void close() throws Exception {
      loader.close();
    }
  }

  @BeforeAll
  static void load() throws Exception {
    v1 = new Sketch("spark.sketch.v1.jar", "spark.legacy.version");
    v2 = new Sketch("spark.sketch.v2.jar", "spark.version");
  }

  @AfterAll
  static void close() throws Exception {
    v1.close();
    v2.close();
  }

  /** A key kind: how to make the i-th key, put it into Spark, ask Spark, ask us. */
  interface Kind<K> {
    K key(SplittableRandom random);

    boolean sparkPut(Sketch s, Object filter, K key) throws Throwable;

    boolean sparkContains(Sketch s, Object filter, K key) throws Throwable;

    boolean ourPut(BloomFilter f, K key);

    boolean ourContains(BloomFilter f, K key);
  }

  static final Kind<Long> LONGS =
      new Kind<Long>() {
        public Long key(SplittableRandom r) {
          // Small, negative and extreme values too, not only uniform ones.
          switch (r.nextInt(8)) {
            case 0: return (long) r.nextInt(1000) - 500;
            case 1: return r.nextBoolean() ? Long.MIN_VALUE + r.nextInt(8) : Long.MAX_VALUE - r.nextInt(8);
            default: return r.nextLong();
          }
        }

        public boolean sparkPut(Sketch s, Object f, Long k) throws Throwable {
          return (boolean) s.putLong.invokeExact(f, (long) k);
        }

        public boolean sparkContains(Sketch s, Object f, Long k) throws Throwable {
          return (boolean) s.mightContainLong.invokeExact(f, (long) k);
        }

        public boolean ourPut(BloomFilter f, Long k) {
          return f.put((long) k);
        }

        public boolean ourContains(BloomFilter f, Long k) {
          return f.mightContain((long) k);
        }
      };

  /** Strings of 0 to 24 code points: ASCII, 2- and 3-byte UTF-8, non-BMP, rare lone surrogates. */
  static final Kind<String> STRINGS =
      new Kind<String>() {
        public String key(SplittableRandom r) {
          int length = r.nextInt(25);
          StringBuilder s = new StringBuilder();
          for (int i = 0; i < length; i++) {
            switch (r.nextInt(10)) {
              case 0: case 1: case 2: case 3: s.appendCodePoint(0x20 + r.nextInt(0x5f)); break;
              case 4: case 5: s.appendCodePoint(0xa0 + r.nextInt(0x700)); break; // Latin, Greek, Cyrillic
              case 6: case 7: s.appendCodePoint(0x4e00 + r.nextInt(0x5000)); break; // CJK
              case 8: s.appendCodePoint(0x1f300 + r.nextInt(0x300)); break; // emoji, non-BMP
              default:
                if (r.nextInt(50) == 0) {
                  s.append((char) (0xd800 + r.nextInt(0x800))); // lone surrogate: UTF-8 '?'
                } else {
                  s.appendCodePoint(0x10000 + r.nextInt(0xfffff)); // any supplementary plane
                }
            }
          }
          return s.toString();
        }

        public boolean sparkPut(Sketch s, Object f, String k) throws Throwable {
          return (boolean) s.putString.invokeExact(f, k);
        }

        public boolean sparkContains(Sketch s, Object f, String k) throws Throwable {
          // mightContain(Object) dispatches a String to mightContainString.
          return (boolean) s.mightContainString.invokeExact(f, (Object) k);
        }

        public boolean ourPut(BloomFilter f, String k) {
          return f.put(k);
        }

        public boolean ourContains(BloomFilter f, String k) {
          return f.mightContain(k);
        }
      };

  /** Byte strings of 0 to 40 bytes: every length mod 4, negative trailing bytes included. */
  static final Kind<byte[]> BINARIES =
      new Kind<byte[]>() {
        public byte[] key(SplittableRandom r) {
          byte[] b = new byte[r.nextInt(41)];
          for (int i = 0; i < b.length; i++) {
            b[i] = (byte) r.nextInt(256);
          }
          return b;
        }

        public boolean sparkPut(Sketch s, Object f, byte[] k) throws Throwable {
          return (boolean) s.putBinary.invokeExact(f, k);
        }

        public boolean sparkContains(Sketch s, Object f, byte[] k) throws Throwable {
          return (boolean) s.mightContainBinary.invokeExact(f, k);
        }

        public boolean ourPut(BloomFilter f, byte[] k) {
          return f.put(k);
        }

        public boolean ourContains(BloomFilter f, byte[] k) {
          return f.mightContain(k);
        }
      };

  <K> void oracle(Sketch sketch, Strategy expected, Kind<K> kind, String name, long seed)
      throws Throwable {
    Object spark = sketch.create.invoke((long) KEYS, FPP);
    try (BloomFilter ours = BloomFilter.create(KEYS, FPP, expected)) {
      SplittableRandom put = new SplittableRandom(seed);
      int putMismatches = 0;
      for (int i = 0; i < KEYS; i++) {
        K key = kind.key(put);
        if (kind.sparkPut(sketch, spark, key) != kind.ourPut(ours, key)) {
          putMismatches++;
        }
      }
      byte[] sparkBytes = sketch.bytes(spark);
      assertArrayEquals(sparkBytes, SparkSketchInterop.toSparkByteArray(ours), name + ": our puts, Spark's bytes");
      assertEquals(0, putMismatches, name + ": put's 'bits changed'");

      try (BloomFilter read = BloomFilter.readSpark(new ByteArrayInputStream(sparkBytes));
          BloomFilter converted = BloomFilter.fromSpark(spark)) {
        assertEquals(expected, read.strategy(), name);
        assertEquals(ours, read, name);
        assertEquals(ours, converted, name);
        // Queries: the keys put (all present) and as many others (Spark's false positives).
        SplittableRandom present = new SplittableRandom(seed);
        SplittableRandom absent = new SplittableRandom(~seed);
        int mismatches = 0;
        int falsePositives = 0;
        for (int i = 0; i < 2 * KEYS; i++) {
          K key = kind.key(i < KEYS ? present : absent);
          boolean sparkSays = kind.sparkContains(sketch, spark, key);
          if (sparkSays != kind.ourContains(read, key)) {
            mismatches++;
          }
          if (i >= KEYS && sparkSays) {
            falsePositives++;
          }
        }
        System.out.printf(
            "spark-sketch %s %s %s: %d keys put, %d queries, %d mismatches; Spark says true for %d of the %d other keys%n",
            sketch.version, expected, name, KEYS, 2 * KEYS, mismatches, falsePositives, KEYS);
        assertEquals(0, mismatches, name + ": answers differing from Spark's");
        // The second million mixes keys never put (Spark: ~3 % false positives) with keys drawn
        // in both halves (short strings, small longs): both answers must occur in number, or the
        // comparison above would not have tested one of them.
        assertTrue(
            falsePositives > KEYS / 100 && falsePositives < KEYS / 2, name + ": " + falsePositives);

        // writeSpark(readSpark(x)) == x, and Spark loads what writeSpark writes.
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        read.writeSpark(again);
        assertArrayEquals(sparkBytes, again.toByteArray(), name + ": writeSpark(readSpark(x))");
        Object reloaded = sketch.readFrom.invoke((InputStream) new ByteArrayInputStream(again.toByteArray()));
        assertEquals(spark, reloaded, name + ": Spark's readFrom of writeSpark");
      }
    }
  }

  /** Each writer (V1: spark-sketch 3.5; V2: 4.1+) with each key kind, from a seed of its own. */
  @ParameterizedTest(name = "Spark {0} writer, {1} keys")
  @CsvSource({"V1, long, 1", "V1, String, 2", "V1, byte[], 3", "V2, long, 4", "V2, String, 5", "V2, byte[], 6"})
  void sparkWriter(String version, String keys, long seed) throws Throwable {
    Kind<?> kind = keys.equals("long") ? LONGS : keys.equals("String") ? STRINGS : BINARIES;
    oracle(version.equals("V1") ? v1 : v2, Strategy.valueOf("SPARK_SKETCH_" + version), kind, keys, seed);
  }

  @Test
  void readSparkConsumesExactlyOneFilterAndNamesBadFields() throws Throwable {
    Object spark = v2.create.invoke(100L, FPP);
    byte[] bytes = v2.bytes(spark);
    byte[] withTrailer = Arrays.copyOf(bytes, bytes.length + 1);
    withTrailer[bytes.length] = 42;
    ByteArrayInputStream in = new ByteArrayInputStream(withTrailer);
    BloomFilter.readSpark(in).close();
    assertEquals(42, in.read(), "the byte after the filter is left in the stream");

    Function<byte[], String> error =
        b -> assertThrows(CorruptFilterException.class, () -> BloomFilter.readSpark(new ByteArrayInputStream(b)))
            .getMessage();
    byte[] seeded = bytes.clone();
    seeded[11] = 7;
    assertTrue(error.apply(seeded).contains("seed"), error.apply(seeded));
    byte[] version = bytes.clone();
    version[3] = 3;
    assertTrue(error.apply(version).contains("version"), error.apply(version));
    assertTrue(error.apply(Arrays.copyOf(bytes, bytes.length - 1)).contains("length"));
    assertTrue(error.apply(new byte[] {0, 0}).contains("length"));
    byte[] k0 = bytes.clone();
    k0[7] = 0;
    assertTrue(error.apply(k0).contains("numHashFunctions"), error.apply(k0));

    try (BloomFilter guava = BloomFilter.create(100)) {
      assertThrows(IllegalArgumentException.class, () -> guava.writeSpark(new ByteArrayOutputStream()));
    }
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.fromSpark("not a filter"));
    try (BloomFilter sparkFilter = BloomFilter.create(100, FPP, Strategy.SPARK_SKETCH_V1)) {
      assertThrows(IllegalArgumentException.class, sparkFilter::toGuavaByteArray);
      // Our own format keeps the strategy (version 4, FORMAT.md).
      byte[] ours = sparkFilter.toByteArray();
      assertEquals(4, ours[4]);
      try (BloomFilter back = BloomFilter.fromByteArray(ours)) {
        assertEquals(sparkFilter, back);
        assertNotEquals(Strategy.MURMUR128_MITZ_64, back.strategy());
      }
    }
  }
}
