package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnels;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files written by the {@code sparkbloom} command line ({@code target/release/sparkbloom}, built
 * by this module's cargo step) read by this library and by real Guava 33, with identical answers
 * on every probe key, and the CLI's own {@code query} answering as they do. Skipped, with the
 * reason, only when the binary is missing (a {@code -DskipCargo} run without a prior build).
 */
class CliInteropTest {
  static final int KEYS = 200_000;
  static final long N = KEYS / 2;
  static final double FPP = 0.01;

  static Path cli;
  static long[] probe;
  static String[] probeStrings;

  @TempDir Path dir;

  @BeforeAll
  static void setUp() {
    cli = TestSupport.repoRoot().resolve("target/release/sparkbloom");
    Assumptions.assumeTrue(
        Files.isExecutable(cli),
        "CLI binary missing: " + cli + " (run `cargo build --release` at the repository root)");
    probe = TestSupport.keys(20261122, KEYS);
    probe[0] = Long.MIN_VALUE;
    probe[1] = -1;
    probeStrings = new String[KEYS];
    String[] flavours = {"https://example.com/", "ユーザー", "ü", "\uD83D\uDE00", ""};
    for (int i = 0; i < KEYS; i++) {
      probeStrings[i] = flavours[i % flavours.length] + Long.toHexString(probe[i]);
    }
  }

  @Test
  void longKeyFiltersFromTheCliAnswerAsThisLibraryAndGuavaDo() throws Exception {
    Path put = lines("put.txt", Arrays.stream(probe, 0, (int) N).mapToObj(Long::toString));
    Path all = lines("all.txt", Arrays.stream(probe).mapToObj(Long::toString));
    for (String strategy : new String[] {"mitz64", "mitz32"}) {
      Path sbloom = dir.resolve(strategy + ".sbloom");
      Path guavaFile = dir.resolve(strategy + ".guava");
      String[] build = {"build", "-n", "" + N, "-p", "" + FPP, "--strategy", strategy, "--keys"};
      run(concat(build, "long", put.toString(), "-o", sbloom.toString()));
      run(concat(build, "long", put.toString(), "-o", guavaFile.toString(), "--format", "guava"));

      try (BloomFilter ours = BloomFilter.fromByteArray(Files.readAllBytes(sbloom));
          BloomFilter ourFromGuava = BloomFilter.fromGuavaByteArray(Files.readAllBytes(guavaFile));
          BloomFilter built = BloomFilter.create(N, FPP, ours.strategy())) {
        com.google.common.hash.BloomFilter<Long> guava = readGuava(guavaFile, Funnels.longFunnel());
        Strategy expectedStrategy =
            strategy.equals("mitz64") ? Strategy.MURMUR128_MITZ_64 : Strategy.MURMUR128_MITZ_32;
        assertEquals(expectedStrategy, ours.strategy());
        assertEquals(ours, ourFromGuava);
        // The CLI writes what this library writes for the same keys.
        built.putAll(Arrays.copyOf(probe, (int) N));
        assertArrayEquals(built.toByteArray(), Files.readAllBytes(sbloom), strategy);

        String[] answers = run("query", sbloom.toString(), "--keys", "long", all.toString());
        assertEquals(KEYS, answers.length);
        int mismatches = 0;
        int positives = 0;
        for (int i = 0; i < KEYS; i++) {
          boolean expected = ours.mightContain(probe[i]);
          mismatches += expected != guava.mightContain(probe[i]) ? 1 : 0;
          mismatches += !answers[i].equals(probe[i] + "\t" + expected) ? 1 : 0;
          mismatches += i < N && !expected ? 1 : 0; // no false negatives
          positives += expected ? 1 : 0;
        }
        assertEquals(0, mismatches, strategy);
        assertTrue(positives > N, "false positives exist: the probe's second half was asked");
        assertEquals(guava.approximateElementCount(), ours.approximateElementCount());
      }
    }
  }

  @Test
  void stringKeyFiltersAndTheDedupStateAnswerAsThisLibraryAndGuavaDo() throws Exception {
    Path put = lines("put.txt", Arrays.stream(probeStrings, 0, (int) N));
    Path all = lines("all.txt", Arrays.stream(probeStrings));
    Path guavaFile = dir.resolve("s.guava");
    run("build", "-n", "" + N, "-p", "" + FPP, put.toString(), "-o", guavaFile.toString(),
        "--format", "guava");
    // The dedup sieve's state: the lines it let through are the lines it added.
    Path state = dir.resolve("seen.sbloom");
    String[] printed = run("dedup", "-n", "" + N, "-p", "" + FPP, "--state", state.toString(),
        put.toString(), put.toString());
    assertTrue(printed.length <= N && printed.length > N * 0.99, "printed " + printed.length);

    com.google.common.hash.BloomFilter<CharSequence> guava =
        readGuava(guavaFile, Funnels.stringFunnel(StandardCharsets.UTF_8));
    try (BloomFilter ours = BloomFilter.fromGuavaByteArray(Files.readAllBytes(guavaFile));
        BloomFilter seen = BloomFilter.fromByteArray(Files.readAllBytes(state))) {
      String[] absent = run("query", guavaFile.toString(), "--absent", all.toString());
      List<String> expectedAbsent = new ArrayList<>();
      int mismatches = 0;
      for (int i = 0; i < KEYS; i++) {
        String key = probeStrings[i];
        boolean expected = ours.mightContain(key);
        mismatches += expected != guava.mightContain(key) ? 1 : 0;
        mismatches += expected != seen.mightContain(key) ? 1 : 0;
        mismatches += i < N && !expected ? 1 : 0;
        if (!expected) {
          expectedAbsent.add(key);
        }
      }
      assertEquals(0, mismatches);
      assertEquals(expectedAbsent, Arrays.asList(absent));
      // Same keys, same sizing: the sieve's state is the filter `build` wrote.
      assertEquals(ours, seen);
    }
  }

  @Test
  void guavaWrittenFiltersConvertAndMergeAsThisLibraryDoes() throws Exception {
    Path[] parts = new Path[2];
    com.google.common.hash.BloomFilter<Long> union =
        com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), N, FPP);
    for (int part = 0; part < 2; part++) {
      com.google.common.hash.BloomFilter<Long> g =
          com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), N, FPP);
      for (int i = part; i < N; i += 2) {
        g.put(probe[i]);
      }
      union.putAll(g);
      parts[part] = dir.resolve("part" + part + ".guava");
      try (var out = Files.newOutputStream(parts[part])) {
        g.writeTo(out);
      }
    }
    Path merged = dir.resolve("merged.guava");
    run("merge", parts[0].toString(), parts[1].toString(), "-o", merged.toString(), "--format",
        "guava");
    Path converted = dir.resolve("merged.sbloom");
    run("convert", merged.toString(), "--to", "sparkbloom", "-o", converted.toString());
    try (BloomFilter fromCli = BloomFilter.fromByteArray(Files.readAllBytes(converted));
        BloomFilter fromGuava = BloomFilter.fromGuava(union)) {
      assertEquals(fromGuava, fromCli);
      com.google.common.hash.BloomFilter<Long> reread = readGuava(merged, Funnels.longFunnel());
      assertEquals(union, reread);
    }
    String[] inspect = run("inspect", "--json", converted.toString());
    assertEquals(1, inspect.length);
    assertTrue(
        inspect[0].contains("\"estimated_count\":" + union.approximateElementCount() + ","),
        inspect[0]);
  }

  private Path lines(String name, java.util.stream.Stream<String> lines) throws IOException {
    Path path = dir.resolve(name);
    Files.write(path, (Iterable<String>) lines::iterator, StandardCharsets.UTF_8);
    return path;
  }

  private static String[] concat(String[] head, String... tail) {
    String[] out = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, out, head.length, tail.length);
    return out;
  }

  /** Runs the CLI; asserts exit 0 and an empty stderr; returns stdout's lines. */
  private String[] run(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(cli.toString());
    command.addAll(Arrays.asList(args));
    Path stdout = Files.createTempFile(dir, "stdout", ".txt");
    Path stderr = Files.createTempFile(dir, "stderr", ".txt");
    Process process =
        new ProcessBuilder(command)
            .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(stdout.toFile())
            .redirectError(stderr.toFile())
            .start();
    int code = process.waitFor();
    String errors = new String(Files.readAllBytes(stderr), StandardCharsets.UTF_8);
    assertEquals(0, code, String.join(" ", command) + ": " + errors);
    assertEquals("", errors, String.join(" ", command));
    List<String> out = Files.readAllLines(stdout, StandardCharsets.UTF_8);
    return out.toArray(new String[0]);
  }

  private static <T> com.google.common.hash.BloomFilter<T> readGuava(
      Path path, com.google.common.hash.Funnel<? super T> funnel) throws IOException {
    try (InputStream in = Files.newInputStream(path)) {
      return com.google.common.hash.BloomFilter.readFrom(in, funnel);
    }
  }
}
