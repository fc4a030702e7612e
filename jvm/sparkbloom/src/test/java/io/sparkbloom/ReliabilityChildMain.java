package io.sparkbloom;

import java.util.Arrays;
import java.util.Map;

/**
 * Child-JVM scenarios of {@link ReliabilityTest} whose old failure mode was a crash of the whole
 * JVM (an abort, a SIGKILL) or an unusable one (a GC waiting forever): each prints one
 * {@code RESULT ...} line per check and {@code DONE}; a crash shows as a missing line and a
 * non-zero exit.
 */
public final class ReliabilityChildMain {
  private ReliabilityChildMain() {}

  public static void main(String[] args) throws Exception {
    ChildScenarios.run(args[0], Map.of(
        "copy-under-limit", bytes -> copyUnderLimit(Long.parseLong(bytes)),
        "huge-array", length -> hugeArray(Integer.parseInt(length)),
        "small-heap", none -> smallHeap(),
        "create", none -> report("create", () -> BloomFilter.create(10, 0.1).close()),
        "create-beyond-limit", bytes -> createBeyondLimit(Long.parseLong(bytes))));
    System.out.println("DONE");
  }

  /**
   * Under an address-space limit that admits one filter of {@code bytes} but not a second, copy()
   * and toByteArray() throw OutOfMemoryError naming the size (they aborted the process).
   */
  private static void copyUnderLimit(long bytes) throws Exception {
    try (BloomFilter f = dense(bytes)) {
      System.out.println("RESULT created " + f.bitSize() / 8);
      limitAddressSpaceToCurrentPlus(bytes / 2);
      report("copy", () -> f.copy().close());
      report("toByteArray", () -> f.toByteArray());
      report("toGuavaByteArray", () -> f.toGuavaByteArray());
      System.out.println("RESULT still-usable " + f.mightContain(42L));
    }
  }

  /**
   * Batches of {@code length} keys (2^28 = a 2 GiB array) under -Xcheck:jni: answered in chunks,
   * never pinned whole (this failed with 712 JNI warnings and a GC that never finished).
   */
  private static void hugeArray(int length) {
    long[] keys = new long[length];
    for (int i = 0; i < length; i += 4096) {
      keys[i] = i; // mostly key 0, a few distinct ones
    }
    try (BloomFilter f = BloomFilter.create(1_000_000, 0.01)) {
      System.out.println("RESULT putAll " + f.putAll(keys));
      boolean[] present = f.mightContainAll(keys);
      int missing = 0;
      for (boolean p : present) {
        missing += p ? 0 : 1;
      }
      System.out.println("RESULT missing " + missing);
      System.out.println("RESULT absent " + f.retainAbsent(keys).length);
    }
  }

  /**
   * A heap whose maximum is smaller than the result array: FilterExceedsMemoryException naming
   * the size and the heap, not "JNI call failed" or an OutOfMemoryError.
   */
  private static void smallHeap() {
    try (BloomFilter f = dense(128L << 20)) {
      report("toByteArray", () -> f.toByteArray());
      report("toGuavaByteArray", () -> f.toGuavaByteArray());
    }
  }

  /**
   * A filter larger than the memory limit (a cgroup's, or physical memory) fails at creation
   * with a message naming the limit, instead of the kernel killing the process at the first
   * putAll.
   */
  private static void createBeyondLimit(long bytes) {
    report(
        "create",
        () -> {
          BloomFilter f = BloomFilter.withShape(bytes * 8, 3, Strategy.MURMUR128_MITZ_64);
          long[] keys = new long[1 << 20];
          Arrays.setAll(keys, i -> i);
          for (int round = 0; round < 300; round++) {
            f.putAll(keys); // touches every page: the kernel would kill the process here
            keys[0] += keys.length;
          }
        });
  }

  /**
   * Lowers this process's address-space limit (RLIMIT_AS, with util-linux's prlimit) to what it
   * maps now plus {@code headroom} bytes: the filter exists, a second one cannot.
   */
  private static void limitAddressSpaceToCurrentPlus(long headroom) throws Exception {
    long vmKiB = 0;
    for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmSize:")) {
        vmKiB = Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    long limit = vmKiB * 1024 + headroom;
    Process prlimit =
        new ProcessBuilder(
                "prlimit", "--pid", Long.toString(ProcessHandle.current().pid()), "--as=" + limit)
            .inheritIO()
            .start();
    if (prlimit.waitFor() != 0) {
      throw new IllegalStateException("prlimit failed");
    }
    System.out.println("RESULT limited " + limit);
  }

  /** A filter of {@code bytes} whose every word is 0x5555555555555554 (48 % of bits set). */
  private static BloomFilter dense(long bytes) {
    BloomFilter f = BloomFilter.withShape(bytes * 8, 7, Strategy.MURMUR128_MITZ_64);
    long[] chunk = new long[1 << 16];
    Arrays.fill(chunk, 0x5555555555555554L);
    long words = bytes / 8;
    for (long from = 0; from < words; from += chunk.length) {
      f.orWords(Math.toIntExact(from), chunk, (int) Math.min(chunk.length, words - from));
    }
    return f;
  }

  private static void report(String what, Runnable action) {
    try {
      action.run();
      System.out.println("RESULT " + what + " ok");
    } catch (Throwable t) {
      System.out.println("RESULT " + what + " " + t.getClass().getName() + ": " + t.getMessage());
    }
  }
}
