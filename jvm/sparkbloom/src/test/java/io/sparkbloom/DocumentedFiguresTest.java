package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The figures the Javadoc states, computed again: from the core's own sizing (bits per key of
 * {@link Strategy#BLOCKED}) and from the maths (a counter's saturation probability). A figure
 * that drifts from what the code does fails here.
 */
class DocumentedFiguresTest {

  private static String source(String className) throws IOException {
    return Files.readString(
        TestSupport.repoRoot()
            .resolve("jvm/sparkbloom/src/main/java/io/sparkbloom/" + className + ".java"),
        StandardCharsets.UTF_8);
  }

  /** Keys the table's filters are sized for: large enough that rounding m to blocks is noise. */
  private static final long N = 1_000_000;

  private static double bitsPerKey(double fpp, Strategy strategy) {
    try (BloomFilter f = BloomFilter.create(N, fpp, strategy)) {
      return (double) f.bitSize() / N;
    }
  }

  @Test
  void blockedBitsPerKeyTableIsWhatTheCoreSizes() throws IOException {
    Pattern row =
        Pattern.compile(
            "<tr><td>(1e-[0-9]+)</td><td>([0-9.]+)</td><td>([0-9.]+)</td><td>([0-9.]+)×</td><td>([0-9]+)</td></tr>");
    Matcher m = row.matcher(source("Strategy"));
    StringBuilder computedTable = new StringBuilder();
    StringBuilder documentedTable = new StringBuilder();
    while (m.find()) {
      double fpp = Double.parseDouble(m.group(1));
      double guava = bitsPerKey(fpp, Strategy.MURMUR128_MITZ_64);
      double blocked = bitsPerKey(fpp, Strategy.BLOCKED);
      int k;
      try (BloomFilter f = BloomFilter.create(N, fpp, Strategy.BLOCKED)) {
        k = f.numHashFunctions();
      }
      String computed =
          String.format(
              Locale.ROOT, "%s %.1f %.1f %.2f %d%n", m.group(1), guava, blocked, blocked / guava, k);
      String documented =
          String.join(" ", m.group(1), m.group(2), m.group(3), m.group(4), m.group(5))
              + String.format("%n");
      computedTable.append(computed);
      documentedTable.append(documented);
    }
    assertTrue(
        documentedTable.toString().contains("1e-12 "),
        "Strategy's Javadoc has a bits-per-key table for BLOCKED down to 1e-12");
    assertEquals(computedTable.toString(), documentedTable.toString(), "Strategy's BLOCKED table");
  }

  /**
   * At design capacity (k = (m/n) ln 2) a counter's count is Binomial(nk, 1/m), which tends to
   * Poisson(nk/m) = Poisson(ln 2); the Javadoc states P(Poisson(ln 2) ≥ 15).
   */
  @Test
  void counterSaturationProbabilityIsThePoissonTail() throws IOException {
    double lambda = Math.log(2);
    double term = Math.exp(-lambda);
    double below = 0;
    for (int j = 0; j < 15; j++) {
      below += term;
      term *= lambda / (j + 1);
    }
    // The tail from its own terms (1 - below would lose every digit to rounding).
    double tail = 0;
    for (int j = 15; j < 60; j++) {
      tail += term;
      term *= lambda / (j + 1);
    }
    assertTrue(Math.abs(below + tail - 1) < 1e-15);
    Matcher m =
        Pattern.compile("reaches 15 with probability P\\(Poisson\\(ln 2\\) ≥ 15\\) ≈ ([0-9.]+) · 10<sup>(−[0-9]+)</sup>")
            .matcher(source("CountingBloomFilter").replaceAll("\\s*\\n\\s*\\*\\s*", " "));
    assertTrue(m.find(), "CountingBloomFilter's Javadoc states the saturation probability");
    double documented = Double.parseDouble(m.group(1) + "e" + m.group(2).replace('−', '-'));
    assertEquals(String.format(Locale.ROOT, "%.1e", tail), String.format(Locale.ROOT, "%.1e", documented));
  }
}
