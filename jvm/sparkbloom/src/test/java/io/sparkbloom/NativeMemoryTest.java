package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Filters that are never closed are freed by the Cleaner; the process does not grow. */
class NativeMemoryTest {

  @Test
  void aMillionUnclosedFiltersKeepRssBounded() throws Exception {
    // The per-user filter of (10^4, 0.001): 17,976 bytes of native bits each, 18 GB in all if nothing
    // were freed. Created, used and dropped without close().
    int total = 1_000_000;
    long bytesEach;
    try (BloomFilter probe = BloomFilter.create(10_000, 0.001)) {
      bytesEach = probe.bitSize() / 8;
    }
    long baseline = 0;
    long peak = 0;
    long peakOutstanding = 0;
    for (int i = 0; i < total; i++) {
      BloomFilter f = BloomFilter.create(10_000, 0.001);
      f.put(i);
      if (!f.mightContain(i)) {
        throw new AssertionError("false negative");
      }
      if (i == 100_000) {
        baseline = TestSupport.rssKiB();
      }
      if (i > 100_000 && i % 50_000 == 0) {
        peak = Math.max(peak, TestSupport.rssKiB());
      }
      if (i % 10_000 == 0) {
        peakOutstanding = Math.max(peakOutstanding, NativeMemory.outstandingBytes());
      }
    }
    long end = TestSupport.rssKiB();
    peak = Math.max(peak, end);
    long growthMiB = (peak - baseline) / 1024;
    long peakOutstandingMiB = Math.max(peakOutstanding, NativeMemory.outstandingBytes()) >> 20;
    // Every filter of this test is unreachable by now; earlier tests' are closed or garbage.
    long settledMiB = TestSupport.nativeBytesAfterCollection(64L << 20, 30) >> 20;
    System.out.printf(
        "[native-memory] %d filters of %d bytes never closed (%d MiB allocated in all): RSS after"
            + " 100k %d MiB, peak %d MiB, end %d MiB; native bytes not yet freed: at most %d MiB"
            + " during the loop, %d MiB after a last collection%n",
        total, bytesEach, (total * bytesEach) >> 20, baseline / 1024, peak / 1024, end / 1024,
        peakOutstandingMiB, settledMiB);
    // Without freeing, RSS would grow by ~15 GiB after the baseline and 17 GiB would await
    // freeing at the end. The RSS bound leaves room for the heap (-Xmx1g) and the 256 MiB of
    // native garbage that triggers a collection. The allocating thread waits while the Cleaner
    // frees, so the garbage stays within a few of those steps even on a busy machine (the
    // Cleaner thread competes with this loop for 2 cores).
    assertTrue(growthMiB < 1024, "RSS grew by " + growthMiB + " MiB after the first 100k filters");
    assertTrue(
        peakOutstandingMiB < 1536,
        "native bytes awaiting the Cleaner during the loop: " + peakOutstandingMiB + " MiB");
    assertTrue(settledMiB < 64, "native bytes still held after a collection: " + settledMiB + " MiB");
  }
}
