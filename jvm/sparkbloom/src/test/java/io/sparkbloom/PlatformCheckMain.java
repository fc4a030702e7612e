package io.sparkbloom;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.DynamicTest;

/**
 * The core jar on one platform, run by scripts/test-aarch64.sh on the x86-64 JVM and on an arm64
 * JVM under emulation: loads the jar's library for {@code os.arch}, checks every golden file
 * byte for byte ({@link GoldenFilesTest}, {@link CountingBloomFilterTest#goldenFiles}), then
 * builds, queries, serializes and reads back filters of every strategy, in cache and beyond it
 * (the kernels' two walks), and prints their bytes' and answers' checksums. Every line after the
 * first must be the same on both platforms; a failed check exits non-zero.
 */
final class PlatformCheckMain {
  private PlatformCheckMain() {}

  public static void main(String[] args) throws Throwable {
    String platform = NativeLibrary.platform(System.getProperty("os.name"), System.getProperty("os.arch"));
    NativeLibrary.ensureLoaded();
    System.out.println(
        "platform "
            + platform
            + " (os.arch "
            + System.getProperty("os.arch")
            + "), library "
            + elfMachine("/native/" + platform + "/libsparkbloom.so")
            + " from the jar");

    int golden = 0;
    for (DynamicTest test : (Iterable<DynamicTest>) new GoldenFilesTest().goldenFiles()::iterator) {
      test.getExecutable().execute();
      golden++;
    }
    new CountingBloomFilterTest().goldenFiles();
    System.out.println("golden files: " + golden + " (and the counting ones) read, rebuilt and written byte for byte");

    for (Strategy strategy : Strategy.values()) {
      filters(strategy, 10_000);
      filters(strategy, 500_000);
    }
    System.out.println("platform check passed");
  }

  /**
   * A filter of n seeded keys at 1% (in cache, or beyond 256 KiB), and for MITZ_32 and MITZ_64
   * its counting twin.
   */
  private static void filters(Strategy strategy, int n) throws Exception {
    long[] keys = TestSupport.keys(n, n);
    long[] probes = TestSupport.keys(-n, 20_000);
    String[] words = new String[1_000];
    for (int i = 0; i < words.length; i++) {
      words[i] = "key-" + keys[i];
    }
    try (BloomFilter f = BloomFilter.create(n, 0.01, strategy)) {
      f.putAll(keys);
      f.putAll(words);
      boolean[] answers = f.mightContainAll(probes);
      int positives = 0;
      for (int i = 0; i < probes.length; i++) {
        check(answers[i] == f.mightContain(probes[i]), "batch and single answers differ");
        positives += answers[i] ? 1 : 0;
      }
      check(f.retainAbsent(keys).length == 0, "a key put is absent");
      for (boolean held : f.mightContainAll(words)) {
        check(held, "a word put is absent");
      }
      byte[] bytes = f.toByteArray();
      try (BloomFilter read = BloomFilter.fromByteArray(bytes)) {
        check(read.equals(f), "read back differs");
        check(read.retainAbsent(probes).length == probes.length - positives, "read back answers differ");
      }
      ByteArrayOutputStream other = new ByteArrayOutputStream();
      if (strategy.name().startsWith("MURMUR128")) {
        f.writeGuava(other);
      } else if (strategy.name().startsWith("SPARK")) {
        f.writeSpark(other);
      }
      System.out.printf(
          "%s n=%d: m=%d k=%d set=%d bytes %s guava/spark %s, %d of %d probes positive %s%n",
          strategy, n, f.bitSize(), f.numHashFunctions(), f.bitCount(), digest(bytes),
          other.size() == 0 ? "-" : digest(other.toByteArray()), positives, probes.length, digest(answers));
    }
    if (!strategy.name().startsWith("MURMUR128")) {
      return; // counting filters are MITZ_32 and MITZ_64 only
    }
    try (CountingBloomFilter c = CountingBloomFilter.create(n, 0.01, strategy)) {
      c.addAll(keys);
      c.addAll(keys);
      long removed = c.removeAll(Arrays.copyOf(keys, n / 2));
      boolean[] answers = c.mightContainAll(probes);
      byte[] bytes = c.toByteArray();
      try (CountingBloomFilter read = CountingBloomFilter.fromByteArray(bytes)) {
        check(Arrays.equals(read.toByteArray(), bytes), "counting read back differs");
      }
      System.out.printf(
          "%s counting n=%d: removed %d, count(key 0) %d, nonzero %d bytes %s answers %s%n",
          strategy, n, removed, c.count(keys[0]), c.nonzeroCounters(), digest(bytes), digest(answers));
    }
  }

  /** The ELF machine of a library in the jar: what the JVM has just loaded. */
  private static String elfMachine(String resource) throws IOException {
    try (InputStream in = PlatformCheckMain.class.getResourceAsStream(resource)) {
      check(in != null, resource + " missing from the jar");
      byte[] header = in.readNBytes(20);
      int machine = (header[18] & 0xff) | (header[19] & 0xff) << 8;
      return machine == 0xb7 ? "aarch64" : machine == 0x3e ? "x86-64" : "machine " + machine;
    }
  }

  /**
   * The first 8 bytes of the bytes' SHA-256, in hex. (Not a CRC-32: the format ends in its own,
   * and a CRC-32 over data and its CRC is one constant.)
   */
  private static String digest(byte[] bytes) throws Exception {
    byte[] sha = MessageDigest.getInstance("SHA-256").digest(bytes);
    StringBuilder hex = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      hex.append(String.format("%02x", sha[i]));
    }
    return hex.toString();
  }

  private static String digest(boolean[] answers) throws Exception {
    byte[] bytes = new byte[answers.length];
    for (int i = 0; i < answers.length; i++) {
      bytes[i] = (byte) (answers[i] ? 1 : 0);
    }
    return digest(bytes);
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }
}
