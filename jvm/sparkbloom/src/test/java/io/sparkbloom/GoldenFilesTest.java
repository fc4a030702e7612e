package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The shared golden files ({@code tests/golden/manifest.tsv}), byte for byte in both directions,
 * also against real Guava for the Guava streams.
 */
class GoldenFilesTest {
  static final Path GOLDEN = TestSupport.repoRoot().resolve("tests/golden");

  @TestFactory
  Stream<DynamicTest> goldenFiles() throws IOException {
    List<String> lines = Files.readAllLines(GOLDEN.resolve("manifest.tsv"), StandardCharsets.UTF_8);
    assertEquals(
        "file\tformat\tstrategy\tn\tfpp\tkey_type\tkeys\texpect\tsizing",
        lines.get(0),
        "manifest columns");
    List<DynamicTest> tests = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      Row row = new Row(line.split("\t", -1));
      tests.add(DynamicTest.dynamicTest(row.file + " (" + row.expect + ")", () -> check(row)));
    }
    assertTrue(tests.size() >= 16, "manifest lists " + tests.size() + " files");
    return tests.stream();
  }

  static final class Row {
    final String file;
    final String format;
    final Strategy strategy;
    final long n;
    final double fpp;
    final String keyType;
    final String keys;
    final String expect;
    /**
   * {@code guava} (Guava's create(n, fpp) shape), {@code helper} (the Redis helper's) or {@code
   * blocked} (BLOCKED's own).
   */
    final String sizing;

    Row(String[] c) {
      assertEquals(9, c.length, String.join("|", c));
      file = c[0];
      format = c[1];
      strategy = Strategy.valueOf(c[2]);
      n = Long.parseLong(c[3]);
      fpp = Double.parseDouble(c[4]);
      keyType = c[5];
      keys = c[6];
      expect = c[7];
      sizing = c[8];
    }
  }

  private static void check(Row row) throws IOException {
    byte[] bytes = Files.readAllBytes(GOLDEN.resolve(row.file));
    boolean guava = row.format.equals("guava");
    if (!row.format.equals("sparkbloom")) {
      assertEquals("guava", row.format, "unknown format");
    }
    if (!row.expect.equals("ok")) {
      CorruptFilterException e =
          assertThrows(
              CorruptFilterException.class,
              () -> (guava ? BloomFilter.fromGuavaByteArray(bytes) : BloomFilter.fromByteArray(bytes)).close());
      assertTrue(
          e.getMessage().contains(row.expect),
          row.file + ": message should name " + row.expect + ": " + e.getMessage());
      return;
    }
    List<String> keys = Files.readAllLines(GOLDEN.resolve(row.keys), StandardCharsets.UTF_8);
    keys.removeIf(String::isEmpty);
    try (BloomFilter decoded = guava ? BloomFilter.fromGuavaByteArray(bytes) : BloomFilter.fromByteArray(bytes);
        BloomFilter built = emptyOfShape(row)) {
      assertEquals(row.strategy, decoded.strategy());
      for (String key : keys) {
        put(built, row.keyType, key);
        assertTrue(contains(decoded, row.keyType, key), row.file + ": lost key " + key);
      }
      assertEquals(built, decoded, row.file + ": create + put gives the decoded filter");
      byte[] reencoded = guava ? decoded.toGuavaByteArray() : decoded.toByteArray();
      assertArrayEquals(bytes, reencoded, row.file + ": decode then encode gives the file");
      assertArrayEquals(
          bytes, guava ? built.toGuavaByteArray() : built.toByteArray(), row.file + ": built filter encodes to the file");
      // The stream readers consume exactly the file.
      InputStream in = new ByteArrayInputStream(concat(bytes, new byte[] {9, 9}));
      try (BloomFilter streamed = guava ? BloomFilter.readGuava(in) : BloomFilter.readFrom(in)) {
        assertEquals(decoded, streamed);
      }
      assertEquals(2, in.available(), "stream readers stop at the end of the filter");
      if (guava && row.strategy == Strategy.MURMUR128_MITZ_64) {
        checkAgainstGuava(row, bytes, keys);
      }
    }
  }

  /** Guava 33 loads the file, knows every key, and writes the same bytes for the same keys. */
  @SuppressWarnings("unchecked")
  private static void checkAgainstGuava(Row row, byte[] bytes, List<String> keys) throws IOException {
    boolean utf8 = row.keyType.equals("utf8");
    Funnel<Object> funnel =
        (Funnel<Object>) (Funnel<?>) (utf8 ? Funnels.stringFunnel(StandardCharsets.UTF_8) : Funnels.longFunnel());
    com.google.common.hash.BloomFilter<Object> loaded =
        com.google.common.hash.BloomFilter.readFrom(new ByteArrayInputStream(bytes), funnel);
    com.google.common.hash.BloomFilter<Object> built =
        com.google.common.hash.BloomFilter.create(funnel, row.n, row.fpp);
    for (String key : keys) {
      Object k = utf8 ? key : (Object) Long.parseLong(key);
      assertTrue(loaded.mightContain(k), row.file + ": Guava lost " + key);
      built.put(k);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    built.writeTo(out);
    assertArrayEquals(bytes, out.toByteArray(), row.file + ": Guava's own writeTo gives the file");
  }

  /**
   * An empty filter of {@code create(n, fpp)}'s shape (Guava 33 sizing, as the manifest says)
   * with the row's strategy. For MITZ_32 this differs from {@code create(n, fpp, MITZ_32)},
   * which reproduces Guava 14.0.1's k.
   */
  private static BloomFilter emptyOfShape(Row row) {
    if (row.sizing.equals("helper")) {
      // The Redis BloomFilterHelper: m = (int) (-n ln p / ln^2 2), not rounded up to words.
      long m = (long) (-row.n * Math.log(row.fpp) / (Math.log(2) * Math.log(2)));
      int k = Math.max(1, (int) Math.round((double) m / row.n * Math.log(2)));
      return BloomFilter.withShape(m, k, row.strategy);
    }
    if (row.sizing.equals("blocked")) {
      return BloomFilter.create(row.n, row.fpp, Strategy.BLOCKED); // its own sizing
    }
    assertEquals("guava", row.sizing);
    try (BloomFilter shape = BloomFilter.create(row.n, row.fpp)) {
      return BloomFilter.fromWords(
          new long[Math.toIntExact(shape.bitSize() / 64)], shape.numHashFunctions(), row.strategy);
    }
  }

  private static void put(BloomFilter f, String keyType, String key) {
    if (keyType.equals("utf8")) {
      f.put(key);
    } else {
      assertEquals("long", keyType);
      f.put(Long.parseLong(key));
    }
  }

  private static boolean contains(BloomFilter f, String keyType, String key) {
    return keyType.equals("utf8") ? f.mightContain(key) : f.mightContain(Long.parseLong(key));
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
