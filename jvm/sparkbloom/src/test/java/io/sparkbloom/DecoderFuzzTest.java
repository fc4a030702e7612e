package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DecoderFuzzMain} in a child JVM under {@code -Xcheck:jni} (a decoder that aborts the
 * process must fail this test, not kill the test JVM): {@code sparkbloom.fuzz.inputs} seeded
 * inputs per path (2,000 in CI, a few seconds; {@code -Dsparkbloom.fuzz.inputs=1000000} for
 * the long run), every one a valid filter that round-trips or the path's documented exception.
 *
 * <p>The last assertion ({@code FUZZ-DONE findings=0}) is the contract: no {@code Error}, no
 * undocumented exception, no round trip that changes a filter, on any path.
 */
class DecoderFuzzTest {

  static final long INPUTS = Long.getLong("sparkbloom.fuzz.inputs", 2_000);
  static final long SEED = Long.getLong("sparkbloom.fuzz.seed", 1);

  @Test
  void everyInputIsAValidFilterOrTheDocumentedException(@TempDir Path tmp) throws Exception {
    Path progress = tmp.resolve("progress");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED");
    command.add("-Xcheck:jni");
    // A small heap: a decoder that allocates what a header declares fails here with an
    // OutOfMemoryError instead of quietly zeroing a gigabyte and then finding the input short.
    command.add("-Xmx128m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DecoderFuzzMain.class.getName());
    command.add("inputs=" + INPUTS);
    command.add("seed=" + SEED);
    command.add("golden=" + TestSupport.repoRoot().resolve("tests/golden"));
    command.add("progress=" + progress);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    // A safety net against a hung child, not a timing assertion: 10 minutes plus 1 s per
    // 1,000 inputs per path.
    boolean exited = process.waitFor(10 + INPUTS * 6 / 60_000, TimeUnit.MINUTES);
    if (!exited) {
      process.destroyForcibly();
    }
    List<String> lines = Arrays.asList(output.split("\\R"));
    for (String line : lines) {
      if (line.startsWith("FUZZ") || line.startsWith("FINDING") || line.startsWith("REPRO")) {
        System.out.println("[decoder-fuzz] " + line);
      }
    }
    String where = lastInput(progress);
    assertTrue(exited, "child JVM hung at " + where);
    assertEquals(0, process.exitValue(), "child JVM died at " + where + ":\n" + output);
    // -Xcheck:jni's warnings (JDK 23+ also warn that Kryo calls sun.misc.Unsafe: not ours)
    List<String> warnings = lines.stream()
        .map(l -> l.toLowerCase(Locale.ROOT))
        .filter(l -> l.contains("warning") && (l.contains("jni") || l.contains("native method")))
        .collect(Collectors.toList());
    assertEquals(List.of(), warnings, "-Xcheck:jni warnings");
    assertEquals(
        DecoderFuzzMain.PATHS.split(",").length,
        lines.stream().filter(l -> l.startsWith("FUZZ path=")).count(),
        output);
    for (String line : lines) {
      if (line.startsWith("FUZZ path=")) {
        assertTrue(line.contains(" inputs=" + INPUTS + " "), line);
        // every path decodes some valid filters and rejects some inputs: the generator reaches
        // both sides of each decoder
        assertTrue(!line.contains(" valid=0 "), "no valid input: " + line);
      }
    }
    assertTrue(lines.contains("FUZZ-DONE findings=0"), "undocumented outcomes:\n"
        + lines.stream().filter(l -> l.startsWith("FINDING") || l.startsWith("REPRO") || l.startsWith("    "))
            .collect(Collectors.joining("\n")));
  }

  /** Path and index of the input the child was decoding last (replay=PATH:INDEX regenerates it). */
  private static String lastInput(Path progress) throws java.io.IOException {
    if (!Files.exists(progress) || Files.size(progress) < 16) {
      return "(no input yet)";
    }
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(progress));
    return "replay=" + DecoderFuzzMain.Decoder.values()[(int) b.getLong(0)] + ":" + b.getLong(8);
  }
}
