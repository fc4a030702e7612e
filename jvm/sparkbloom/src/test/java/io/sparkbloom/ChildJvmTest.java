package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests that need a fresh JVM: -Xcheck:jni output (HotSpot prints its warnings on the process's
 * stdout, where a test in the same JVM cannot see them), and native library loading.
 */
class ChildJvmTest {

  static final class Result {
    final int exitCode;
    final List<String> lines;

    Result(int exitCode, List<String> lines) {
      this.exitCode = exitCode;
      this.lines = lines;
    }

    @Override
    public String toString() {
      return "exit " + exitCode + ":\n" + String.join("\n", lines);
    }
  }

  static Result runChild(String mode, String... jvmArgs) throws IOException, InterruptedException {
    return runChild(List.of(), JniCheckMain.class, mode, jvmArgs);
  }

  /**
   * Runs {@code main} with {@code mode} in a child JVM started through {@code prefix} (e.g. a
   * shell that lowers a limit first), stdout and stderr merged.
   */
  static Result runChild(List<String> prefix, Class<?> main, String mode, String... jvmArgs)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(prefix);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As README advises for JDK 22+, where loading a library otherwise prints a warning.
    command.add("--enable-native-access=ALL-UNNAMED");
    command.addAll(Arrays.asList(jvmArgs));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.add(mode);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try (InputStream in = process.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    // A safety net against a hung child, not a timing assertion.
    assertTrue(process.waitFor(10, TimeUnit.MINUTES), "child JVM did not exit");
    return new Result(process.exitValue(), Arrays.asList(output.split("\\R")));
  }

  @Test
  void everyNativeMethodRunsCleanUnderXcheckJni() throws Exception {
    Result r = runChild("all", "-Xcheck:jni", "-Xmx256m");
    assertEquals(0, r.exitCode, r.toString());
    assertTrue(r.lines.contains("JNI-CHECK-DONE"), r.toString());
    List<String> warnings =
        r.lines.stream()
            .filter(l -> l.toLowerCase(java.util.Locale.ROOT).contains("warning"))
            .collect(Collectors.toList());
    System.out.println("[xcheck-jni] child JVM output lines: " + r.lines.size() + ", warnings: " + warnings);
    assertEquals(List.of(), warnings, "-Xcheck:jni warnings");
  }

  /**
   * close() racing queries from other threads on an 18 MB filter (freed by munmap, so a query
   * on freed memory would crash the child JVM): every call answers or throws
   * IllegalStateException, and the Cleaner frees every filter once dropped.
   */
  @Test
  void closingAFilterOtherThreadsAreQueryingNeverCrashes() throws Exception {
    Result r = runChild("close-race:40", "-Xmx512m");
    assertEquals(0, r.exitCode, r.toString());
    String report =
        r.lines.stream()
            .filter(l -> l.startsWith("CLOSE-RACE "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(r.toString()));
    System.out.println("[close-race] " + report);
    assertTrue(report.contains(" refused=160 "), "all 4 threads of 40 rounds saw close(): " + report);
    assertTrue(report.endsWith(" outstanding=0"), report);
  }

  @Test
  void extractsToAUniqueTempFileInTheConfiguredDirectory(@TempDir Path dir) throws Exception {
    Result r = runChild("maps", "-D" + NativeLibrary.TEMP_DIR_PROPERTY + "=" + dir);
    assertEquals(0, r.exitCode, r.toString());
    String mapped = mappedPath(r);
    assertTrue(mapped.startsWith(dir.toString() + File.separator + "libsparkbloom-"), mapped);
    assertTrue(mapped.endsWith("(deleted)"), "the extracted file is removed once loaded: " + mapped);
    try (var files = Files.list(dir)) {
      assertEquals(0, files.count(), "nothing left behind");
    }
  }

  @Test
  void pathPropertyOverridesTheBundledLibrary(@TempDir Path dir) throws Exception {
    Path lib = dir.resolve("custom-libsparkbloom.so");
    try (InputStream in = BloomFilter.class.getResourceAsStream("/native/linux-x86_64/libsparkbloom.so")) {
      Files.copy(in, lib);
    }
    Result r = runChild("maps", "-D" + NativeLibrary.PATH_PROPERTY + "=" + lib);
    assertEquals(0, r.exitCode, r.toString());
    assertEquals(lib.toString(), mappedPath(r));
  }

  @Test
  void aMissingOverrideFailsWithItsPath() throws Exception {
    Result r = runChild("maps", "-D" + NativeLibrary.PATH_PROPERTY + "=/nonexistent/libsparkbloom.so");
    assertEquals(3, r.exitCode, r.toString());
    String all = String.join("\n", r.lines);
    assertTrue(all.contains("UnsatisfiedLinkError") && all.contains("/nonexistent/libsparkbloom.so"), all);
  }

  /**
   * A Rust panic becomes a plain RuntimeException with its message, never crossing JNI, on the
   * test library (the shipped one has no panic hook: {@link TestHooks}).
   */
  @Test
  void rustPanicBecomesRuntimeExceptionWithItsMessage() throws Exception {
    Result r = runChild("panic", "-Xcheck:jni", "-D" + NativeLibrary.PATH_PROPERTY + "=" + TestHooks.library());
    assertEquals(0, r.exitCode, r.toString());
    assertTrue(
        r.lines.contains("PANIC java.lang.RuntimeException: Rust panic in sparkbloom: test panic with value 1234"),
        r.toString());
    assertTrue(r.lines.contains("AFTER put=true"), r.toString());
  }

  @Test
  void eightThreadsRaceToLoadTheLibraryOnce() throws Exception {
    Result r = runChild("threads", "-Xcheck:jni");
    assertEquals(0, r.exitCode, r.toString());
    assertTrue(r.lines.contains("JNI-CHECK-DONE"), r.toString());
  }

  /**
   * With a large young generation (as Spark executors have) the heap side of 300,000 filters
   * never fills eden, so without {@link NativeMemory}'s trigger no collection would run and all
   * 5 GB of native bits would stay resident (measured: 200,000 filters, -Xmn2g, trigger off:
   * 3.2 GB RSS; on: 0.57 GB).
   */
  @Test
  void nativeGrowthTriggersCollectionsEvenWithAHugeYoungGeneration() throws Exception {
    Result r = runChild("churn:300000", "-Xmx3g", "-Xmn2g");
    assertEquals(0, r.exitCode, r.toString());
    String[] figures =
        r.lines.stream().filter(l -> l.startsWith("CHURN ")).findFirst().orElseThrow().split(" ");
    long growthMiB = (Long.parseLong(figures[4]) - Long.parseLong(figures[2])) / 1024;
    System.out.println("[native-memory] -Xmn2g, 300k unclosed filters: RSS growth after 30k " + growthMiB + " MiB");
    assertTrue(growthMiB < 1024, "RSS grew by " + growthMiB + " MiB");
  }

  @Test
  void unsupportedPlatformNamesItAndTheOverride() {
    UnsatisfiedLinkError e =
        assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.platform("Mac OS X", "aarch64"));
    assertTrue(e.getMessage().contains("os.name=Mac OS X, os.arch=aarch64"), e.getMessage());
    assertTrue(e.getMessage().contains("-Dsparkbloom.native.path="), e.getMessage());
    assertTrue(e.getMessage().contains("carries linux-x86_64 and linux-aarch64"), e.getMessage());
    assertThrows(UnsatisfiedLinkError.class, () -> NativeLibrary.platform("Linux", "riscv64"));
    assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "amd64"));
    assertEquals("linux-x86_64", NativeLibrary.platform("Linux", "x86_64"));
    assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "aarch64"));
    assertEquals("linux-aarch64", NativeLibrary.platform("Linux", "arm64"));
  }

  private static String mappedPath(Result r) {
    return r.lines.stream()
        .filter(l -> l.startsWith("MAPPED "))
        .map(l -> l.substring("MAPPED ".length()).trim())
        .findFirst()
        .orElseThrow(() -> new AssertionError("library not mapped: " + r));
  }
}
