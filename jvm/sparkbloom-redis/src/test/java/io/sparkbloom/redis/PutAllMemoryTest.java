package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkbloom.BloomFilter;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code putAll} of a large batch runs in memory that does not grow with the batch: a million
 * items at k = 10 are ten million offsets (80 MB as longs alone), put from a child JVM whose
 * whole heap is 96 MiB.
 */
class PutAllMemoryTest {
  static final RedisLayout LAYOUT = RedisLayout.helperCompatible(1_000_000, 0.001);
  static final String KEY = "big-batch";
  private static final int COUNT = 1_000_000;
  private static final long SEED = 31;

  @Test
  void millionItemsInA96MiBHeap() throws Exception {
    assertEquals(10, LAYOUT.numHashFunctions());
    try (RedisServer server = RedisServer.start()) {
      Path log = Files.createTempFile("putall-child", ".log");
      String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
      Process child = new ProcessBuilder(List.of(
              java, "-Xmx96m", "-cp", System.getProperty("java.class.path"),
              PutAllInSmallHeap.class.getName(), server.uri(), Integer.toString(COUNT), Long.toString(SEED)))
          .redirectErrorStream(true)
          .redirectOutput(log.toFile())
          .start();
      int exit = child.waitFor();
      String output = Files.readString(log);
      Files.delete(log);
      assertEquals(0, exit, "child JVM failed:\n" + output);

      long[] items = new SplittableRandom(SEED).longs(COUNT).toArray();
      try (RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT);
          BloomFilter expected = LAYOUT.newFilter();
          BloomFilter loaded = client.load(KEY)) {
        expected.putAll(items);
        assertEquals(expected, loaded, "every bit of every item");
      }
    }
  }
}
