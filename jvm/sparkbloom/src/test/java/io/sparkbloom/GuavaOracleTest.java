package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Real Guava is the oracle: Guava 33 (test classpath), Guava 14.0.1 (its own class loader: it
 * cannot share a classpath with 33) and the Guava 14.0.1 that Spark 3 shades as {@code
 * org.sparkproject.guava}. Every comparison checks at least 10<sup>6</sup> keys, half of them
 * put, and counts mismatches, which must be 0.
 */
class GuavaOracleTest {
  static final int KEYS = 1_000_000;
  /** Filled to its design load with the first half of {@link #probe}; queried on all of it. */
  static final long N = KEYS / 2;

  static final double FPP = 0.01;
  static long[] probe;
  static String[] probeStrings;
  static URLClassLoader guava14;

  @BeforeAll
  static void setUp() throws Exception {
    probe = TestSupport.keys(20260101, KEYS);
    probe[0] = 0;
    probe[1] = -1;
    probe[2] = Long.MIN_VALUE;
    probe[3] = Long.MAX_VALUE;
    probeStrings = new String[KEYS];
    String[] flavours = {"user-", "ユーザー", "ü", "\uD83D\uDE00", ""};
    for (int i = 0; i < KEYS; i++) {
      probeStrings[i] = flavours[i % flavours.length] + Long.toHexString(probe[i]);
    }
    Path jar = Paths.get(System.getProperty("guava.legacy.jar", "target/guava14/guava-legacy.jar"));
    assertTrue(Files.exists(jar), "Guava 14.0.1 jar (copied by maven-dependency-plugin): " + jar);
    // Parent = the platform loader: nothing of Guava 33 leaks in.
    guava14 = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
  }

  @AfterAll
  static void tearDown() throws IOException {
    guava14.close();
  }

  /** Reports like "1000000 keys, 0 mismatches" go to the test output for the record. */
  static void report(String what, int keys, int mismatches) {
    System.out.println("[guava-oracle] " + what + ": " + keys + " keys checked, " + mismatches + " mismatches");
    assertEquals(0, mismatches, what + ": mismatches");
  }

  /** Guava 33's filter of long keys for (N, FPP), holding the first N probes. */
  static com.google.common.hash.BloomFilter<Long> guava33OfProbes() {
    com.google.common.hash.BloomFilter<Long> guava =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), N, FPP);
    for (int i = 0; i < N; i++) {
      guava.put(probe[i]);
    }
    return guava;
  }

  /** The bytes Guava 33's {@code writeTo} writes for {@code guava}. */
  static byte[] guavaBytes(com.google.common.hash.BloomFilter<?> guava) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    guava.writeTo(out);
    return out.toByteArray();
  }

  // ---------------------------------------------------------------------------------------
  // Guava 33, long keys

  @Test
  void readGuavaAnswersAsGuava33ForLongs() throws IOException {
    com.google.common.hash.BloomFilter<Long> guava = guava33OfProbes();
    try (BloomFilter ours = BloomFilter.readGuava(new ByteArrayInputStream(guavaBytes(guava)))) {
      assertEquals(Strategy.MURMUR128_MITZ_64, ours.strategy());
      boolean[] batch = ours.mightContainAll(probe);
      int mismatches = 0;
      int batchMismatches = 0;
      for (int i = 0; i < KEYS; i++) {
        boolean expected = guava.mightContain(probe[i]);
        if (ours.mightContain(probe[i]) != expected) {
          mismatches++;
        }
        if (batch[i] != expected) {
          batchMismatches++;
        }
      }
      report("readGuava(Guava 33 writeTo) mightContain(long)", KEYS, mismatches);
      report("readGuava(Guava 33 writeTo) mightContainAll(long[])", KEYS, batchMismatches);
      assertEquals(guava.approximateElementCount(), ours.approximateElementCount());
      assertEquals(guava.expectedFpp(), ours.expectedFpp(), 1e-15);
    }
  }

  @Test
  void writeGuavaIsLoadedByGuava33AndAnswersTheSame() throws IOException {
    try (BloomFilter ours = BloomFilter.create(N, FPP)) {
      ours.putAll(java.util.Arrays.copyOf(probe, (int) N));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ours.writeGuava(out);
      com.google.common.hash.BloomFilter<Long> guava =
          com.google.common.hash.BloomFilter.readFrom(
              new ByteArrayInputStream(out.toByteArray()), Funnels.longFunnel());
      int mismatches = 0;
      for (int i = 0; i < KEYS; i++) {
        if (guava.mightContain(probe[i]) != ours.mightContain(probe[i])) {
          mismatches++;
        }
      }
      report("Guava 33 readFrom(writeGuava) mightContain(long)", KEYS, mismatches);
      // And Guava filling its own filter with the same keys writes the very same bytes.
      com.google.common.hash.BloomFilter<Long> own = guava33OfProbes();
      assertArrayEquals(guavaBytes(own), out.toByteArray());
      long[] absent = ours.retainAbsent(probe);
      long[] guavaAbsent = java.util.Arrays.stream(probe).filter(k -> !own.mightContain(k)).toArray();
      assertArrayEquals(guavaAbsent, absent, "retainAbsent = keys Guava says are absent");
    }
  }

  // ---------------------------------------------------------------------------------------
  // Guava 33, String keys (stringFunnel(UTF_8))

  @Test
  void stringKeysAnswerAsGuava33InBothDirections() throws IOException {
    com.google.common.hash.BloomFilter<CharSequence> guava =
        com.google.common.hash.BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), N, FPP);
    try (BloomFilter ours = BloomFilter.create(N, FPP)) {
      for (int i = 0; i < N; i++) {
        guava.put(probeStrings[i]);
        ours.put(probeStrings[i]);
      }
      byte[] guavaBytes = guavaBytes(guava);
      assertArrayEquals(guavaBytes, ours.toGuavaByteArray(), "same bits as Guava");
      try (BloomFilter read = BloomFilter.readGuava(new ByteArrayInputStream(guavaBytes))) {
        com.google.common.hash.BloomFilter<CharSequence> back =
            com.google.common.hash.BloomFilter.readFrom(
                new ByteArrayInputStream(ours.toGuavaByteArray()), Funnels.stringFunnel(StandardCharsets.UTF_8));
        int mismatches = 0;
        for (int i = 0; i < KEYS; i++) {
          boolean expected = guava.mightContain(probeStrings[i]);
          if (read.mightContain(probeStrings[i]) != expected || back.mightContain(probeStrings[i]) != expected) {
            mismatches++;
          }
        }
        report("Guava 33 stringFunnel(UTF_8) both directions", KEYS, mismatches);
      }
    }
  }

  @Test
  void byteArrayKeysAnswerAsGuava33() {
    com.google.common.hash.BloomFilter<byte[]> guava =
        com.google.common.hash.BloomFilter.create(Funnels.byteArrayFunnel(), 10_000, FPP);
    try (BloomFilter ours = BloomFilter.create(10_000, FPP)) {
      for (int i = 0; i < 10_000; i++) {
        byte[] key = probeStrings[i].getBytes(StandardCharsets.UTF_8);
        guava.put(key);
        ours.put(key);
      }
      try (BloomFilter converted = BloomFilter.fromGuava(guava)) {
        assertEquals(converted, ours);
      }
      int mismatches = 0;
      for (int i = 0; i < KEYS; i++) {
        byte[] key = probeStrings[i].getBytes(StandardCharsets.UTF_8);
        if (guava.mightContain(key) != ours.mightContain(key)) {
          mismatches++;
        }
      }
      report("Guava 33 byteArrayFunnel", KEYS, mismatches);
    }
  }

  // ---------------------------------------------------------------------------------------
  // fromGuava: Guava 33 live, Guava 14.0.1 live, Spark 3's shaded Guava 14.0.1

  @Test
  void fromGuava33KeepsEveryBit() throws Throwable {
    com.google.common.hash.BloomFilter<Long> guava = guava33OfProbes();
    try (BloomFilter ours = BloomFilter.fromGuava(guava)) {
      assertArrayEquals(guavaBytes(guava), ours.toGuavaByteArray());
      report("fromGuava(Guava 33)", KEYS, countMismatches(ours, k -> guava.mightContain(k)));
    }
  }

  @Test
  void fromGuava14KeepsMitz32() throws Throwable {
    Object guava = legacyFilter(guava14, "com.google.common.hash", N);
    MethodHandle mightContain = mightContainHandle(guava);
    try (BloomFilter ours = BloomFilter.fromGuava(guava);
        BloomFilter built = BloomFilter.create(N, FPP, Strategy.MURMUR128_MITZ_32)) {
      assertEquals(Strategy.MURMUR128_MITZ_32, ours.strategy());
      built.putAll(java.util.Arrays.copyOf(probe, (int) N));
      assertEquals(built, ours, "create(n, p, MITZ_32) + putAll = Guava 14's filter, bit for bit");
      report("fromGuava(Guava 14.0.1, MITZ_32)", KEYS, countMismatches(ours, k -> invoke(mightContain, guava, k)));
      // A MITZ_32 filter written in Guava's stream is read back by Guava 33 (ordinal 0).
      com.google.common.hash.BloomFilter<Long> modern =
          com.google.common.hash.BloomFilter.readFrom(
              new ByteArrayInputStream(ours.toGuavaByteArray()), Funnels.longFunnel());
      report("Guava 33 readFrom(writeGuava of a MITZ_32 filter)", KEYS, countMismatches(ours, modern::mightContain));
    }
  }

  @Test
  void fromShadedSparkGuavaAfterJavaSerialization() throws Throwable {
    // What saveAsObjectFile stored: a Java-serialized org.sparkproject.guava BloomFilter.
    Object shaded = legacyFilter(GuavaOracleTest.class.getClassLoader(), "org.sparkproject.guava.hash", N);
    assertEquals("org.sparkproject.guava.hash.BloomFilter", shaded.getClass().getName());
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(stream)) {
      out.writeObject(shaded);
    }
    Object restored;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(stream.toByteArray()))) {
      restored = in.readObject();
    }
    MethodHandle mightContain = mightContainHandle(restored);
    try (BloomFilter ours = BloomFilter.fromGuava(restored)) {
      assertEquals(Strategy.MURMUR128_MITZ_32, ours.strategy());
      report(
          "fromGuava(Spark 3.5 shaded Guava 14, Java-serialized)",
          KEYS,
          countMismatches(ours, k -> invoke(mightContain, restored, k)));
    }
  }

  @Test
  void fromGuavaRejectsOtherObjects() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.fromGuava("not a filter"));
    assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
  }

  // ---------------------------------------------------------------------------------------
  // Sizing: create(n, p) = Guava 33's create(funnel, n, p)

  @Test
  void createMatchesGuava33SizingOverAGrid() throws Exception {
    Method bitSize = com.google.common.hash.BloomFilter.class.getDeclaredMethod("bitSize");
    bitSize.setAccessible(true);
    Field numHashFunctions = com.google.common.hash.BloomFilter.class.getDeclaredField("numHashFunctions");
    numHashFunctions.setAccessible(true);
    long[] ns = {0, 1, 2, 3, 7, 10, 100, 1_000, 1_234, 10_000, 12_345, 100_000, 1_000_000, 3_000_000};
    double[] ps = {0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.005, 0.001, 1e-4, 1e-5, 1e-6, 0.0123, 0.077};
    List<String> mBad = new ArrayList<>();
    List<String> kBad = new ArrayList<>();
    int cells = 0;
    for (long n : ns) {
      for (double p : ps) {
        com.google.common.hash.BloomFilter<Long> guava =
            com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), n, p);
        try (BloomFilter ours = BloomFilter.create(n, p)) {
          long gm = (Long) bitSize.invoke(guava);
          int gk = numHashFunctions.getInt(guava);
          cells++;
          if (gm != ours.bitSize() || gm != BloomFilter.bitSizeFor(n, p)) {
            mBad.add("(" + n + ", " + p + "): Guava m=" + gm + ", ours " + ours.bitSize()
                + ", bitSizeFor " + BloomFilter.bitSizeFor(n, p));
          }
          if (gk != ours.numHashFunctions()) {
            kBad.add("(" + n + ", " + p + "): Guava k=" + gk + ", ours " + ours.numHashFunctions());
          }
        }
      }
    }
    // Guava 33.8 derives k from p alone, k = max(1, round(-ln p / ln 2)) (google/guava#7494),
    // and so does create(n, p): both m and k must match in every cell.
    System.out.println("[guava-sizing] Guava " + System.getProperty("guava.version", "33.x")
        + " vs create(n, p): " + cells + " (n, p) cells, all equal");
    assertEquals(List.of(), mBad, "bit sizes differ from Guava");
    assertEquals(List.of(), kBad, "numHashFunctions differ from Guava");
  }

  @Test
  void createMitz32MatchesGuava14SizingOverAGrid() throws Throwable {
    Class<?> filterClass = Class.forName("com.google.common.hash.BloomFilter", true, guava14);
    Class<?> funnelClass = Class.forName("com.google.common.hash.Funnel", true, guava14);
    Object funnel = Class.forName("com.google.common.hash.Funnels", true, guava14).getMethod("longFunnel").invoke(null);
    Method create = filterClass.getMethod("create", funnelClass, int.class, double.class);
    Field bits = filterClass.getDeclaredField("bits");
    bits.setAccessible(true);
    Field numHashFunctions = filterClass.getDeclaredField("numHashFunctions");
    numHashFunctions.setAccessible(true);
    int[] ns = {0, 1, 2, 3, 7, 10, 100, 1_000, 1_234, 10_000, 12_345, 100_000, 500_000, 3_000_000};
    double[] ps = {0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.005, 0.001, 1e-4, 1e-5, 1e-6, 0.0123, 0.077};
    List<String> bad = new ArrayList<>();
    for (int n : ns) {
      for (double p : ps) {
        Object guava = create.invoke(null, funnel, n, p);
        Object bitArray = bits.get(guava);
        Field data = bitArray.getClass().getDeclaredField("data");
        data.setAccessible(true);
        long gm = 64L * ((long[]) data.get(bitArray)).length;
        int gk = numHashFunctions.getInt(guava);
        try (BloomFilter ours = BloomFilter.create(n, p, Strategy.MURMUR128_MITZ_32)) {
          if (gm != ours.bitSize() || gk != ours.numHashFunctions()) {
            bad.add("(" + n + ", " + p + "): Guava 14 m=" + gm + " k=" + gk + ", ours " + ours);
          }
        }
      }
    }
    assertEquals(List.of(), bad, "create(n, p, MITZ_32) = Guava 14.0.1 create(n, p)");
  }

  // ---------------------------------------------------------------------------------------
  // Helpers

  interface Oracle {
    boolean mightContain(long key) throws Throwable;
  }

  static int countMismatches(BloomFilter ours, Oracle oracle) throws Throwable {
    int mismatches = 0;
    boolean[] batch = ours.mightContainAll(probe);
    for (int i = 0; i < KEYS; i++) {
      boolean expected = oracle.mightContain(probe[i]);
      if (ours.mightContain(probe[i]) != expected || batch[i] != expected) {
        mismatches++;
      }
    }
    return mismatches;
  }

  /** Guava 14 API by reflection: create(longFunnel(), (int) n, FPP), then put the first n keys. */
  static Object legacyFilter(ClassLoader loader, String pkg, long n) throws Throwable {
    Class<?> filterClass = Class.forName(pkg + ".BloomFilter", true, loader);
    Class<?> funnelClass = Class.forName(pkg + ".Funnel", true, loader);
    Class<?> funnels = Class.forName(pkg + ".Funnels", true, loader);
    Object funnel = funnels.getMethod("longFunnel").invoke(null);
    Object filter =
        filterClass.getMethod("create", funnelClass, int.class, double.class).invoke(null, funnel, (int) n, FPP);
    MethodHandle put =
        MethodHandles.publicLookup()
            .findVirtual(filterClass, "put", MethodType.methodType(boolean.class, Object.class));
    for (int i = 0; i < n; i++) {
      boolean ignored = (boolean) put.invoke(filter, (Object) probe[i]);
    }
    return filter;
  }

  static MethodHandle mightContainHandle(Object filter) throws ReflectiveOperationException {
    return MethodHandles.publicLookup()
        .findVirtual(filter.getClass(), "mightContain", MethodType.methodType(boolean.class, Object.class));
  }

  static boolean invoke(MethodHandle mightContain, Object filter, long key) throws Throwable {
    return (boolean) mightContain.invoke(filter, (Object) key);
  }
}
