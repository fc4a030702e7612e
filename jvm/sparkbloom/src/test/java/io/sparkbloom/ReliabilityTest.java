package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Regression tests of what aborted the JVM, lost keys, allocated from unchecked fields or threw
 * an {@code Error} for an argument or a limit, grouped by failure. Runs under the suite's
 * -Xcheck:jni; scenarios whose old failure was a crash run in a child JVM ({@link
 * ReliabilityChildMain}).
 */
class ReliabilityTest {

  // ---- toByteArray of a large filter a little under half full

  /** Every word 0x5555555555555554, k = 7, at 2^22 words (32 MiB). */
  @Test
  void nearlyHalfFullFilterSerializes() throws Exception {
    int words = 1 << 22;
    ByteBuffer guava = ByteBuffer.allocate(6 + 8 * words);
    guava.put((byte) 1).put((byte) 7).putInt(words);
    for (int i = 0; i < words; i++) {
      guava.putLong(0x5555555555555554L);
    }
    try (BloomFilter f = BloomFilter.fromGuavaByteArray(guava.array())) {
      byte[] bytes = f.toByteArray();
      try (BloomFilter back = BloomFilter.fromByteArray(bytes)) {
        assertEquals(f, back);
      }
    }
  }

  // ---- copy() and toByteArray() aborted the process when memory ran out

  @Test
  void allocationFailuresUnderAnAddressSpaceLimitAreOutOfMemoryErrors() throws Exception {
    ChildJvmTest.Result r =
        ChildJvmTest.runChild(
            List.of(), ReliabilityChildMain.class, "copy-under-limit:268435456", "-Xmx512m",
            "-Xcheck:jni");
    assertEquals(0, r.exitCode, r.toString());
    String bits = "java.lang.OutOfMemoryError: cannot allocate 268435456 bytes for the bit array";
    assertTrue(r.lines.contains("RESULT copy " + bits), r.toString());
    assertTrue(
        r.lines.stream()
            .anyMatch(l -> l.startsWith("RESULT toByteArray java.lang.OutOfMemoryError: cannot allocate 2")
                && l.endsWith(" bytes for the serialized filter")),
        r.toString());
    assertTrue(r.lines.contains("RESULT still-usable true"), r.toString());
    assertTrue(r.lines.contains("DONE"), r.toString());
  }

  // ---- intersect racing puts lost keys whose put had returned

  /** Rounds of puts into two-word filters, so the intersecting thread is nearly always mid-word. */
  @Test
  void intersectWithItselfBesidePutsLosesNothing() throws Exception {
    try (BloomFilter f = BloomFilter.withShape(128, 2, Strategy.MURMUR128_MITZ_64);
        BloomFilter empty = BloomFilter.withShape(128, 2, Strategy.MURMUR128_MITZ_64)) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong rounds = new AtomicLong();
      Thread intersecting =
          new Thread(
              () -> {
                while (!stop.get()) {
                  f.intersect(f);
                  rounds.incrementAndGet();
                }
              });
      intersecting.start();
      long[] state = {3};
      int lost = 0;
      try {
        for (int round = 0; round < 20_000; round++) {
          long[] keys = new long[24];
          for (int i = 0; i < keys.length; i++) {
            keys[i] = TestSupport.splitmix64(state);
            f.put(keys[i]);
            lost += f.mightContain(keys[i]) ? 0 : 1;
          }
          lost += f.retainAbsent(keys).length;
          f.intersect(empty); // clears it for the next round
        }
      } finally {
        stop.set(true);
        intersecting.join();
      }
      assertTrue(rounds.get() > 0);
      assertEquals(0, lost, "keys lost right after their put or at the end of a round");
    }
  }

  @Test
  void intersectBesidePutsIntoBothKeepsEveryKeyInBoth() throws Exception {
    long[] state = {5};
    int lost = 0;
    for (int round = 0; round < 300; round++) {
      try (BloomFilter f = BloomFilter.withShape(128, 2, Strategy.MURMUR128_MITZ_64);
          BloomFilter g = BloomFilter.withShape(128, 2, Strategy.MURMUR128_MITZ_64)) {
        long[] keys = TestSupport.keys(TestSupport.splitmix64(state), 24);
        Thread putting =
            new Thread(
                () -> {
                  for (long key : keys) {
                    g.put(key);
                    f.put(key);
                  }
                });
        putting.start();
        while (putting.isAlive()) {
          f.intersect(g);
        }
        putting.join();
        f.intersect(g);
        lost += f.retainAbsent(keys).length;
      }
    }
    assertEquals(0, lost, "keys in both filters lost by intersect");
  }

  // ---- allocations sized by unchecked fields; decode limits

  /** A FORMAT.md header (dense, k = 7) declaring {@code numBits}, with nothing after it. */
  private static byte[] denseHeader(long numBits) {
    ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {'S', 'B', 'L', 'M'}).put((byte) 1).put((byte) 1).put((byte) 0).put((byte) 7);
    b.putLong(numBits).putLong(numBits / 8);
    return b.array();
  }

  /** A valid sparse filter of {@code numBits} bits with no bit set (37 bytes). */
  private static byte[] emptySparse(long numBits) {
    ByteBuffer b = ByteBuffer.allocate(37).order(ByteOrder.LITTLE_ENDIAN);
    b.put(new byte[] {'S', 'B', 'L', 'M'}).put((byte) 1).put((byte) 1).put((byte) 1).put((byte) 7);
    b.putLong(numBits).putLong(9).putLong(0).put((byte) 0);
    CRC32 crc = new CRC32();
    crc.update(b.array(), 0, 33);
    b.putInt((int) crc.getValue());
    return b.array();
  }

  private static long allocatedBy(ThrowingRunnable action) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(id);
    try {
      action.run();
    } catch (Exception expected) {
      // the callers assert the exception themselves
    }
    return threads.getThreadAllocatedBytes(id) - before;
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  @Test
  void aHeaderClaiming2GiBAllocatesOnlyWhatArrives() {
    byte[] header = denseHeader(1L << 33); // 1 GiB of payload declared, none present
    CorruptFilterException e =
        assertThrows(CorruptFilterException.class,
            () -> BloomFilter.readFrom(new ByteArrayInputStream(header)));
    assertTrue(e.getMessage().contains("the stream ended after 24 of the"), e.getMessage());
    long allocated = allocatedBy(() -> BloomFilter.readFrom(new ByteArrayInputStream(header)));
    assertTrue(allocated < 1 << 20, "allocated " + allocated + " bytes for a 24-byte input");

    ByteBuffer guava = ByteBuffer.allocate(6).put((byte) 1).put((byte) 7).putInt(Integer.MAX_VALUE - 1);
    long guavaAllocated =
        allocatedBy(() -> BloomFilter.readGuava(new ByteArrayInputStream(guava.array())));
    assertTrue(guavaAllocated < 1 << 20, "allocated " + guavaAllocated + " bytes for 6 bytes");
    assertThrows(CorruptFilterException.class,
        () -> BloomFilter.readGuava(new ByteArrayInputStream(guava.array())));
  }

  @Test
  void aHeaderBeyondAJavaArrayIsFilterTooLarge() {
    // A dense filter of 2^35 bits: 4 GiB of payload, more than any byte[].
    FilterTooLargeException e =
        assertThrows(FilterTooLargeException.class,
            () -> BloomFilter.readFrom(new ByteArrayInputStream(denseHeader(1L << 35))));
    assertTrue(e.getMessage().contains("4294967324 serialized bytes exceeds the largest Java byte array"),
        e.getMessage());
  }

  @Test
  void aTinySparseInputDeclaringAHugeFilterIsRefusedByTheLimit() throws Exception {
    byte[] tiny = emptySparse(1L << 35); // 37 bytes → a 4 GiB filter
    FilterTooLargeException e =
        assertThrows(FilterTooLargeException.class, () -> BloomFilter.fromByteArray(tiny, 1L << 30));
    assertEquals("filter of 34359738368 bits exceeds the decode limit of 1073741824 bits", e.getMessage());
    assertThrows(FilterTooLargeException.class,
        () -> BloomFilter.readFrom(new ByteArrayInputStream(tiny), 1L << 30));
    String old = System.setProperty(DecodeLimit.PROPERTY, Long.toString(1L << 30));
    try {
      assertThrows(FilterTooLargeException.class, () -> BloomFilter.fromByteArray(tiny));
      assertThrows(FilterTooLargeException.class,
          () -> BloomFilter.readFrom(new ByteArrayInputStream(tiny)));
      assertThrows(KryoException.class, () -> kryoRoundTrip(tiny));
    } finally {
      if (old == null) {
        System.clearProperty(DecodeLimit.PROPERTY);
      } else {
        System.setProperty(DecodeLimit.PROPERTY, old);
      }
    }
    // Under the limit it decodes (allocated lazily: 4 GiB of address space, no RSS).
    try (BloomFilter f = BloomFilter.fromByteArray(tiny, 1L << 35)) {
      assertEquals(1L << 35, f.bitSize());
    }
    IllegalArgumentException negative =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.fromByteArray(tiny, -1));
    assertTrue(negative.getMessage().contains("maxNumBits"), negative.getMessage());
  }

  @Test
  void aFilterBeyondMemoryIsACheckedExceptionNotAnError() {
    // 2^40 bits (128 GiB) declared in 37 bytes: more than this machine's memory.
    Assumptions.assumeTrue(Runtime.getRuntime().maxMemory() < (128L << 30));
    FilterTooLargeException e =
        assertThrows(FilterTooLargeException.class, () -> BloomFilter.fromByteArray(emptySparse(1L << 40)));
    assertTrue(e.getMessage().contains("cannot allocate 137438953472 bytes for the bit array"),
        e.getMessage());
  }

  private static BloomFilter kryoRoundTrip(byte[] filterBytes) throws IOException {
    Kryo kryo = new Kryo();
    kryo.register(BloomFilter.class, new BloomFilterKryoSerializer());
    Output out = new Output(64, -1);
    out.writeInt(filterBytes.length, true);
    out.writeBytes(filterBytes);
    return new BloomFilterKryoSerializer().read(kryo, new Input(out.toBytes()), BloomFilter.class);
  }

  @Test
  void kryoCountsAreChecked() throws Exception {
    Kryo kryo = new Kryo();
    Output negative = new Output(16, -1);
    negative.writeInt(-1, true);
    KryoException e =
        assertThrows(KryoException.class,
            () -> new BloomFilterKryoSerializer().read(kryo, new Input(negative.toBytes()), BloomFilter.class));
    assertEquals("io.sparkbloom.BloomFilter: byte count -1 is negative", e.getMessage());

    byte[] header = denseHeader(1L << 34);
    Output huge = new Output(64, -1);
    huge.writeInt(Integer.MAX_VALUE, true);
    huge.writeBytes(header);
    long allocated =
        allocatedBy(() -> new BloomFilterKryoSerializer().read(kryo, new Input(huge.toBytes()), BloomFilter.class));
    assertTrue(allocated < 1 << 20, "allocated " + allocated + " bytes");

    try (BloomFilter f = BloomFilter.create(100, 0.01)) {
      f.put(1L);
      byte[] bytes = f.toByteArray();
      Output wrong = new Output(64, -1);
      wrong.writeInt(bytes.length + 1, true);
      wrong.writeBytes(bytes);
      wrong.writeByte(0);
      KryoException mismatch =
          assertThrows(KryoException.class,
              () -> new BloomFilterKryoSerializer().read(kryo, new Input(wrong.toBytes()), BloomFilter.class));
      assertTrue(mismatch.getMessage().contains("byte count " + (bytes.length + 1)), mismatch.getMessage());
      try (BloomFilter back = kryoRoundTrip(bytes)) {
        assertEquals(f, back);
      }
    }
  }

  // ---- arrays of 2 GiB or more; large batches in chunks

  /** Batches just above the pinning limit (16 MiB) take the chunked path: same answers. */
  @Test
  void largeBatchesAreAnsweredInChunks() {
    long[] keys = TestSupport.keys(99, 3_000_000); // 24 MB: chunked
    long[] probe = TestSupport.keys(100, 3_000_000);
    try (BloomFilter chunked = BloomFilter.create(2_000_000, 0.01);
        BloomFilter small = BloomFilter.create(2_000_000, 0.01)) {
      assertTrue(chunked.putAll(keys));
      for (int from = 0; from < keys.length; from += 100_000) {
        small.putAll(Arrays.copyOfRange(keys, from, from + 100_000)); // pinned
      }
      assertEquals(small, chunked);
      boolean[] answers = chunked.mightContainAll(probe);
      long[] absent = chunked.retainAbsent(probe);
      int expectedAbsent = 0;
      for (int i = 0; i < probe.length; i++) {
        assertEquals(small.mightContain(probe[i]), answers[i]);
        expectedAbsent += answers[i] ? 0 : 1;
      }
      assertEquals(expectedAbsent, absent.length);
      for (boolean present : chunked.mightContainAll(keys)) {
        assertTrue(present);
      }
      assertEquals(0, chunked.retainAbsent(keys).length);
    }
  }

  /** A 2 GiB long[] (2^28 keys) under -Xcheck:jni, in a 3 GiB child JVM. */
  @Test
  void aTwoGiBBatchUnderXcheckJni() throws Exception {
    ChildJvmTest.Result r =
        ChildJvmTest.runChild(List.of(), ReliabilityChildMain.class, "huge-array:268435456",
            "-Xmx3g", "-Xcheck:jni");
    assertEquals(0, r.exitCode, r.toString());
    assertTrue(r.lines.contains("RESULT putAll true"), r.toString());
    assertTrue(r.lines.contains("RESULT missing 0"), r.toString());
    assertTrue(r.lines.contains("RESULT absent 0"), r.toString());
    assertTrue(r.lines.contains("DONE"), r.toString());
    assertFalse(r.lines.stream().anyMatch(l -> l.toLowerCase(java.util.Locale.ROOT).contains("warning")),
        r.toString());
  }

  @Test
  void fromGuavaOfAGuava23PlusFilterCopiesThroughABoundedBuffer() {
    com.google.common.hash.BloomFilter<Long> guava =
        com.google.common.hash.BloomFilter.create(
            com.google.common.hash.Funnels.longFunnel(), 20_000_000, 0.01); // 24 MB of words
    long[] keys = TestSupport.keys(7, 100_000);
    for (long key : keys) {
      guava.put(key);
    }
    try (BloomFilter ours = BloomFilter.fromGuava(guava)) {
      assertEquals(0, ours.retainAbsent(keys).length);
      ByteArrayOutputStream theirs = new ByteArrayOutputStream();
      try {
        guava.writeTo(theirs);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      assertArrayEquals(theirs.toByteArray(), ours.toGuavaByteArray());
    }
  }

  // ---- unclear errors

  @Test
  void messagesNameTheRuleTheSizeAndTheNumber() throws Exception {
    IllegalArgumentException fpp =
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(1L << 40, Double.MIN_VALUE));
    assertTrue(fpp.getMessage().contains("at fpp 5e-324 need"), fpp.getMessage());
    assertTrue(fpp.getMessage().length() < 200, fpp.getMessage());

    CorruptFilterException above =
        assertThrows(CorruptFilterException.class, () -> BloomFilter.fromByteArray(emptySparse(1L << 44)));
    assertTrue(above.getMessage().contains("numBits: 17592186044416 exceeds the maximum of 8796093022208 bits"),
        above.getMessage());

    CorruptFilterException tiny =
        assertThrows(CorruptFilterException.class, () -> BloomFilter.fromByteArray(emptySparse(64)));
    assertTrue(tiny.getMessage().contains("a filter of 64 bits is never sparse"), tiny.getMessage());
  }

  @Test
  void aResultLargerThanTheHeapIsAnExceptionNamingItsSizeAndTheHeap() throws Exception {
    ChildJvmTest.Result r =
        ChildJvmTest.runChild(List.of(), ReliabilityChildMain.class, "small-heap", "-Xmx96m",
            "-Xcheck:jni");
    assertEquals(0, r.exitCode, r.toString());
    String heap = ", more than the Java heap's maximum of [0-9]+ bytes \\(-Xmx\\)";
    assertTrue(
        r.lines.stream().anyMatch(l -> l.matches(
            "RESULT toByteArray io.sparkbloom.FilterExceedsMemoryException: cannot allocate 1[0-9]{8}"
                + " bytes for the serialized filter" + heap)),
        r.toString());
    assertTrue(
        r.lines.stream().anyMatch(l -> l.matches(
            "RESULT toGuavaByteArray io.sparkbloom.FilterExceedsMemoryException: cannot allocate"
                + " 134217734 bytes for Guava's stream" + heap)),
        r.toString());
  }

  // ---- a filter larger than the process's memory is an exception, not an Error

  /**
   * Each factory asked for more memory than this machine has (7 · 10^11 keys at 1 %: about
   * 6.7 · 10^12 bits, 840 GB, and four times that for the counting filter's 4-bit counters): an
   * {@link IllegalArgumentException} Spark reports, naming the size and the limit; it was an
   * {@link OutOfMemoryError}, which Spark treats as fatal to the executor.
   */
  @Test
  void aFilterBeyondTheMemoryLimitIsAnIllegalArgumentNotAnError() {
    long keys = 700_000_000_000L;
    List<Executable> factories =
        List.of(
            () -> BloomFilter.create(keys, 0.01),
            () -> BloomFilter.create(keys, 0.01, Strategy.BLOCKED),
            () -> BloomFilter.createBestPractice(keys, 0.01),
            () -> BloomFilter.withShape(1L << 43, 7, Strategy.MURMUR128_MITZ_64),
            () -> CountingBloomFilter.create(keys, 0.01));
    for (Executable factory : factories) {
      FilterExceedsMemoryException e = assertThrows(FilterExceedsMemoryException.class, factory);
      assertTrue(
          e.getMessage().matches(
              "cannot allocate [0-9]+ bytes for the (bit|counter) array, more than this process's memory"
                  + " limit"
                  + " of [0-9]+ bytes \\(cgroup memory.max or physical memory\\)"),
          e.getMessage());
    }
  }

  // ---- a library built without the JNI bridge

  /**
   * -Dsparkbloom.native.path naming a shared library that loads but exports no sparkbloom JNI
   * method (what {@code cargo build --release} without {@code --features jni} produces; zlib
   * stands in for it here): the error names the likely cause and the command that fixes it. It
   * was a bare UnsatisfiedLinkError naming the first native method called.
   */
  @Test
  void aLibraryWithoutTheJniBridgeIsNamedAsSuch() throws Exception {
    Path noBridge = Path.of("/lib/x86_64-linux-gnu/libz.so.1");
    Assumptions.assumeTrue(Files.exists(noBridge), "no zlib to stand in for a library without JNI");
    ChildJvmTest.Result r =
        ChildJvmTest.runChild(
            List.of(), ReliabilityChildMain.class, "create", "-Dsparkbloom.native.path=" + noBridge);
    assertEquals(0, r.exitCode, r.toString());
    assertTrue(
        r.lines.stream().anyMatch(l -> l.startsWith("RESULT create java.lang.UnsatisfiedLinkError: sparkbloom: "
            + noBridge + " loaded but exports no sparkbloom JNI method")
            && l.contains("cargo build --release --features jni")),
        r.toString());
  }

  // ---- a filter larger than the container's memory fails at creation

  /**
   * A real memory cgroup (v1 or v2) of 1 GiB around a child JVM that creates a 1.5 GiB filter:
   * creation throws FilterExceedsMemoryException naming the limit (before, it succeeded and the
   * kernel killed the process at the first putAll). Skipped where this process may not create cgroups.
   */
  @Test
  void aFilterBeyondTheCgroupLimitFailsAtCreation() throws Exception {
    Path cgroup = MemoryCgroup.create("sparkbloom-test-" + ProcessHandle.current().pid(), 1L << 30);
    Assumptions.assumeTrue(cgroup != null, "cannot create a memory cgroup here");
    try {
      ChildJvmTest.Result r =
          ChildJvmTest.runChild(
              List.of("sh", "-c", "echo $$ > " + cgroup.resolve("cgroup.procs") + " && exec \"$@\"", "sh"),
              ReliabilityChildMain.class, "create-beyond-limit:1610612736", "-Xmx128m");
      assertEquals(0, r.exitCode, r.toString());
      assertTrue(
          r.lines.contains(
              "RESULT create io.sparkbloom.FilterExceedsMemoryException: cannot allocate 1610612736 bytes for the bit array,"
                  + " more than this process's memory limit of 1073741824 bytes (cgroup memory.max or physical memory)"),
          r.toString());
    } finally {
      Files.deleteIfExists(cgroup);
    }
  }

  /** Creates memory cgroups for the test above. */
  static final class MemoryCgroup {
    private MemoryCgroup() {}

    /** A new cgroup limited to {@code bytes}, or null where that is not permitted. */
    static Path create(String name, long bytes) {
      Path v2 = Path.of("/sys/fs/cgroup");
      Path v1 = Path.of("/sys/fs/cgroup/memory");
      try {
        if (Files.exists(v2.resolve("cgroup.controllers"))) {
          Path dir = Files.createDirectory(v2.resolve(name));
          Files.writeString(dir.resolve("memory.max"), Long.toString(bytes));
          return dir;
        }
        if (Files.isDirectory(v1)) {
          Path dir = Files.createDirectory(v1.resolve(name));
          Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(bytes));
          return dir;
        }
      } catch (IOException | RuntimeException e) {
        System.out.println("[cgroup] not available: " + e);
      }
      return null;
    }
  }

  // ---- Java serialization keeps working with the limit in place

  @Test
  void javaSerializationRoundTripsUnderTheDefaultLimit() throws Exception {
    try (BloomFilter f = BloomFilter.create(1000, 0.01)) {
      f.putAll(TestSupport.keys(1, 500));
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
        out.writeObject(f);
      }
      try (java.io.ObjectInputStream in =
          new java.io.ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        try (BloomFilter back = (BloomFilter) in.readObject()) {
          assertEquals(f, back);
        }
      }
    }
  }
}
