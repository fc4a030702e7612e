package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The per-key shape from Java: the core's table, and the rate it promises as measured. */
class PerKeyShapeTest {

  /** Every row of tests/golden/per_key_shapes.tsv (the core's rule, which the CLI and Python check too). */
  @Test
  void everyRowOfTheCoresTable() throws IOException {
    List<String> lines = Files.readAllLines(
        TestSupport.repoRoot().resolve("tests/golden/per_key_shapes.tsv"), StandardCharsets.UTF_8);
    assertEquals("distinct_items\tfpp\tnum_bits\tnum_hashes", lines.get(0));
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split("\t");
      long n = Long.parseLong(f[0]);
      double p = Double.parseDouble(f[1]);
      assertEquals(Long.parseLong(f[2]), BloomFilter.perKeyBitSize(n, p), line);
      assertEquals(Integer.parseInt(f[3]), BloomFilter.perKeyNumHashFunctions(n, p), line);
    }
    assertTrue(lines.size() > 100, lines.size() + " lines");
  }

  @Test
  void badArgumentsNameWhatIsWrong() {
    for (double p : new double[] {0, 1, -0.5, Double.NaN}) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> BloomFilter.perKeyBitSize(10, p));
      assertTrue(e.getMessage().contains("fpp"), e.getMessage());
    }
    IllegalArgumentException negative =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.perKeyNumHashFunctions(-1, 0.01));
    assertTrue(negative.getMessage().contains("distinctItems"), negative.getMessage());
    IllegalArgumentException huge =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.perKeyBitSize(1L << 40, 1e-6));
    assertTrue(huge.getMessage().contains("2^43"), huge.getMessage());
  }

  /**
   * Filters of the per-key shape, each holding n random keys, answering 4·10^6 absent keys: the
   * false positives stay within Qp + 5√(Qp) + 1 (a true rate of p exceeds it with probability
   * 3·10^-7). Sized by the textbook rate alone, (17, 0.001) measured 4.3·p.
   */
  @Test
  void perKeyFiltersMeetTheirRateAsMeasured() {
    long[][] counts = {{1, 17, 200}, {50}, {1_000}};
    double[] rates = {1e-3, 1e-2, 1e-5};
    SplittableRandom random = new SplittableRandom(20_261_202);
    for (int r = 0; r < rates.length; r++) {
      double p = rates[r];
      for (long n : counts[r]) {
        long queries = 4_000_000;
        long falsePositives = 0;
        for (long asked = 0; asked < queries; asked += 2_000) {
          try (BloomFilter f = BloomFilter.withShape(
              BloomFilter.perKeyBitSize(n, p), BloomFilter.perKeyNumHashFunctions(n, p), Strategy.MURMUR128_MITZ_64)) {
            f.putAll(random.longs(n).toArray());
            for (boolean hit : f.mightContainAll(random.longs(2_000).toArray())) {
              falsePositives += hit ? 1 : 0;
            }
          }
        }
        double mean = queries * p;
        assertTrue(falsePositives <= mean + 5 * Math.sqrt(mean) + 1,
            "n=" + n + " p=" + p + ": " + falsePositives + " false positives in " + queries);
      }
    }
  }
}
