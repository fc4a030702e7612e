package io.sparkbloom;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Paths and process facts shared by the tests. */
final class TestSupport {
  private TestSupport() {}

  /** The repository root (where Cargo.toml and tests/golden live). */
  static Path repoRoot() {
    String configured = System.getProperty("sparkbloom.repo.root");
    Path start = configured != null ? Paths.get(configured) : Paths.get("").toAbsolutePath();
    for (Path p = start.toAbsolutePath().normalize(); p != null; p = p.getParent()) {
      if (Files.exists(p.resolve("Cargo.toml")) && Files.isDirectory(p.resolve("tests/golden"))) {
        return p;
      }
    }
    throw new IllegalStateException("repository root not found from " + start);
  }

  /** This process's resident set size in KiB, from /proc/self/status (VmRSS). */
  static long rssKiB() throws IOException {
    for (String line :
        Files.readAllLines(Paths.get("/proc/self/status"), StandardCharsets.US_ASCII)) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IOException("no VmRSS in /proc/self/status");
  }

  /**
   * Native bytes still awaiting the Cleaner once it has freed what a collection finds: requests
   * collections and waits until the count is below {@code bytes} or {@code seconds} have passed
   * (a safety net, not a timing assertion); returns the last count.
   */
  static long nativeBytesAfterCollection(long bytes, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    System.gc();
    long outstanding = NativeMemory.outstandingBytes();
    while (outstanding >= bytes && System.nanoTime() < deadline) {
      Thread.sleep(10);
      System.gc();
      outstanding = NativeMemory.outstandingBytes();
    }
    return outstanding;
  }

  /** SplitMix64: deterministic, well-mixed test keys. */
  static long splitmix64(long[] state) {
    long z = (state[0] += 0x9E3779B97F4A7C15L);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static long[] keys(long seed, int count) {
    long[] state = {seed};
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      out[i] = splitmix64(state);
    }
    return out;
  }
}
