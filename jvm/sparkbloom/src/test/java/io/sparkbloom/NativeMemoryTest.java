package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Filters that are never closed are freed by the Cleaner; the process does not grow. */
class NativeMemoryTest {

  @Test
  void aMillionUnclosedFiltersKeepRssBounded() throws Exception {
    // The seed's per-user filter: 17,976 bytes of native bits each, 18 GB in all if nothing
    // were freed. Created, used and dropped without close().
    int total = 1_000_000;
    long bytesEach;
    try (BloomFilter probe = BloomFilter.create(10_000, 0.001)) {
      bytesEach = probe.bitSize() / 8;
    }
    long baseline = 0;
    long peak = 0;
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
    }
    long end = TestSupport.rssKiB();
    peak = Math.max(peak, end);
    long growthMiB = (peak - baseline) / 1024;
    long outstandingMiB = NativeMemory.outstandingBytes() >> 20;
    System.out.printf(
        "[native-memory] %d filters of %d bytes never closed (%d MiB allocated in all): RSS after"
            + " 100k %d MiB, peak %d MiB, end %d MiB; native bytes not yet freed %d MiB%n",
        total, bytesEach, (total * bytesEach) >> 20, baseline / 1024, peak / 1024, end / 1024,
        outstandingMiB);
    // Without freeing, RSS would grow by ~15 GiB after the baseline. The bound leaves room for
    // the heap (-Xmx1g) and the 256 MiB of native garbage that triggers a collection.
    assertTrue(growthMiB < 1024, "RSS grew by " + growthMiB + " MiB after the first 100k filters");
    assertTrue(outstandingMiB < 1024, "native bytes awaiting the Cleaner: " + outstandingMiB + " MiB");
  }
}
