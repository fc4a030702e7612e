package io.sparkbloom.redis;

import java.util.SplittableRandom;

/**
 * Run by {@link PutAllMemoryTest} in a child JVM with a small heap: one {@code putAll} of many
 * long items. Arguments: the server URI, the item count, the random generator's seed.
 */
public final class PutAllInSmallHeap {
  private PutAllInSmallHeap() {}

  public static void main(String[] args) {
    String uri = args[0];
    int count = Integer.parseInt(args[1]);
    long seed = Long.parseLong(args[2]);
    long[] items = new SplittableRandom(seed).longs(count).toArray();
    try (RedisBloom client = RedisBloom.connect(uri, PutAllMemoryTest.LAYOUT)) {
      client.putAll(PutAllMemoryTest.KEY, items);
    }
    System.out.println("putAll done: " + count + " items, max heap " + Runtime.getRuntime().maxMemory() + " bytes");
  }
}
