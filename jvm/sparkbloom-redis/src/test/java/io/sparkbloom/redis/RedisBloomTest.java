package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.Strategy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;
import redis.clients.jedis.Jedis;

/** {@link RedisBloom} on a real redis-server: store/load, checks, concurrency, bad keys, TTL. */
class RedisBloomTest {
  @RegisterExtension static final ServerPerClass server = new ServerPerClass();
  private static final RedisLayout HELPER = RedisLayout.helperCompatible(10_000, 0.001);
  private static final RedisLayout GUAVA = RedisLayout.guavaCompatible(10_000, 0.001);

  @Test
  void storeAndLoadRoundTrip() {
    for (RedisLayout layout : List.of(HELPER, GUAVA, RedisLayout.guavaCompatible(1_000, 0.01, Strategy.MURMUR128_MITZ_32))) {
      try (RedisBloom client = RedisBloom.connect(server.uri(), layout);
          BloomFilter filter = layout.newFilter()) {
        long[] items = new SplittableRandom(layout.bitSize()).longs(200).toArray();
        filter.putAll(items);
        String key = "store:" + layout.bitSize();
        client.store(key, filter);
        try (BloomFilter loaded = client.load(key)) {
          assertEquals(filter, loaded, layout.toString());
        }
        assertEquals(0, client.retainAbsent(key, items).length);
        for (long item : items) {
          assertTrue(client.mightContain(key, item));
        }
        // The stored value is the filter's bitmap, readable with GETBIT.
        try (Jedis jedis = server.raw()) {
          assertArrayEquals(filter.toRedisBitmap(), jedis.get(key.getBytes(StandardCharsets.UTF_8)));
          for (long o : layout.offsets(items[0])) {
            assertTrue(jedis.getbit(key, o));
          }
        }
        // Storing twice is idempotent; a put after load adds to the same key.
        client.store(key, filter);
        client.put(key, 42L);
        try (BloomFilter loaded = client.load(key)) {
          filter.put(42L);
          assertEquals(filter, loaded);
        }
      }
    }
  }

  @Test
  void storeRefusesOtherShapes() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        BloomFilter guavaShaped = BloomFilter.create(10_000, 0.001)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> client.store("refused", guavaShaped));
      assertTrue(e.getMessage().contains("143808 bits") && e.getMessage().contains("helperCompatible"), e.getMessage());
      try (Jedis jedis = server.raw()) {
        assertFalse(jedis.exists("refused"));
      }
    }
  }

  @Test
  void missingKeysKeepEveryCandidate() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER)) {
      long[] candidates = {5, 1, 4, 2, 3};
      for (ReadMode mode : ReadMode.values()) {
        client.readMode(mode);
        assertArrayEquals(candidates, client.retainAbsent("missing", candidates), mode.name());
        assertFalse(client.mightContain("missing", 1L));
        assertArrayEquals(new String[] {"a", "b"}, client.retainAbsent("missing", new String[] {"a", "b"}));
      }
      client.readMode(ReadMode.AUTO);
      assertNull(client.load("missing"));
      Map<String, long[]> many = new LinkedHashMap<>();
      many.put("missing-1", candidates);
      many.put("missing-2", new long[0]);
      Map<String, long[]> kept = client.retainAbsent(many);
      assertEquals(List.of("missing-1", "missing-2"), new ArrayList<>(kept.keySet()));
      assertArrayEquals(candidates, kept.get("missing-1"));
      assertEquals(0, kept.get("missing-2").length);
    }
  }

  @Test
  void manyUsersInOneCall() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER)) {
      SplittableRandom random = new SplittableRandom(3);
      Map<String, long[]> candidates = new LinkedHashMap<>();
      Map<String, long[]> expected = new LinkedHashMap<>();
      for (int u = 0; u < 50; u++) {
        long[] seen = random.longs(100).toArray();
        String key = "many:" + u;
        if (u % 5 != 0) {
          client.putAll(key, seen);
        }
        long[] c = random.longs(u * 20).toArray();
        for (int i = 0; i < c.length; i += 3) {
          c[i] = seen[i % seen.length];
        }
        candidates.put(key, c);
        expected.put(key, client.retainAbsent(key, c));
      }
      Map<String, long[]> got = client.retainAbsent(candidates);
      assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(got.keySet()));
      for (String key : expected.keySet()) {
        assertArrayEquals(expected.get(key), got.get(key), key);
      }
    }
  }

  @Test
  void stringAndByteItems() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER)) {
      assertTrue(client.put("strings", "héllo"));
      assertFalse(client.put("strings", "héllo"), "a second put changes nothing");
      // A string is hashed as its UTF-8 bytes.
      assertTrue(client.mightContain("strings", "héllo".getBytes(StandardCharsets.UTF_8)));
      client.putAll("strings", new String[] {"a", "b"});
      client.putAll("bytes", new byte[][] {{1, 2}, {3}});
      assertArrayEquals(new String[] {"zz-not-there"}, client.retainAbsent("strings", new String[] {"a", "zz-not-there", "b"}));
      byte[][] absent = client.retainAbsent("bytes", new byte[][] {{3}, {9, 9, 9}, {1, 2}});
      assertEquals(1, absent.length);
      assertArrayEquals(new byte[] {9, 9, 9}, absent[0]);
      try (BloomFilter loaded = client.load("strings")) {
        assertTrue(loaded.mightContain("héllo") && loaded.mightContain("a"));
      }
    }
  }

  /** putAll sends a long batch in chunks; a null item anywhere is refused before the first one. */
  @Test
  void nullItemInALongBatchWritesNothing() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER); Jedis jedis = server.raw()) {
      String[] strings = new String[RedisBloom.PUT_ALL_ROUND_TRIP_OFFSETS / HELPER.numHashFunctions() + 10];
      Arrays.setAll(strings, i -> "item-" + i);
      strings[strings.length - 1] = null;
      assertThrows(NullPointerException.class, () -> client.putAll("null-batch", strings));
      byte[][] bytes = new byte[strings.length][];
      Arrays.setAll(bytes, i -> new byte[] {(byte) i, (byte) (i >> 8), (byte) (i >> 16)});
      bytes[bytes.length - 1] = null;
      assertThrows(NullPointerException.class, () -> client.putAll("null-batch", bytes));
      assertFalse(jedis.exists("null-batch"));
    }
  }

  /** Eight threads put disjoint items into one key: the key ends with every bit of every item. */
  @Test
  void concurrentPutsLoseNoBit() throws Exception {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        BloomFilter expected = HELPER.newFilter()) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Future<?>> done = new ArrayList<>();
      long[][] items = new long[8][];
      for (int t = 0; t < 8; t++) {
        items[t] = new SplittableRandom(100 + t).longs(250).toArray();
        expected.putAll(items[t]);
        long[] mine = items[t];
        done.add(pool.submit(() -> {
          for (int i = 0; i < mine.length; i++) {
            if (i % 2 == 0) {
              client.put("shared", mine[i]);
            } else {
              client.putAll("shared", new long[] {mine[i]});
            }
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      pool.shutdown();
      try (BloomFilter loaded = client.load("shared")) {
        assertEquals(expected, loaded);
      }
      for (long[] mine : items) {
        assertEquals(0, client.retainAbsent("shared", mine).length);
      }
    }
  }

  @Test
  void wrongTypeKeysAreRefusedByName() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER); Jedis jedis = server.raw()) {
      jedis.lpush("a-list", "x");
      jedis.hset("a-hash", "f", "v");
      for (String key : List.of("a-list", "a-hash")) {
        for (ReadMode mode : ReadMode.values()) {
          client.readMode(mode);
          assertNamesKey(key, () -> client.retainAbsent(key, new long[] {1, 2, 3}));
          assertNamesKey(key, () -> client.mightContain(key, 1L));
          Map<String, long[]> many = new LinkedHashMap<>();
          many.put("fine", new long[] {1});
          many.put(key, new long[] {1});
          assertNamesKey(key, () -> client.retainAbsent(many));
        }
        client.readMode(ReadMode.AUTO);
        assertNamesKey(key, () -> client.put(key, 1L));
        assertNamesKey(key, () -> client.putAll(key, new long[] {1, 2}));
        assertNamesKey(key, () -> client.load(key));
      }
      assertEquals("list", jedis.type("a-list"), "nothing was written over it");
    }
  }

  @Test
  void tooLongStringsAreRefusedByName() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER); Jedis jedis = server.raw()) {
      byte[] longer = new byte[(int) HELPER.bitmapBytes() + 1];
      jedis.set("too-long".getBytes(StandardCharsets.UTF_8), longer);
      for (ReadMode mode : ReadMode.values()) {
        client.readMode(mode);
        assertNamesKey("too-long", () -> client.retainAbsent("too-long", new long[] {1, 2, 3}));
      }
      client.readMode(ReadMode.AUTO);
      assertNamesKey("too-long", () -> client.put("too-long", 7L));
      assertNamesKey("too-long", () -> client.load("too-long"));
      assertEquals(longer.length, jedis.strlen("too-long"), "the put wrote nothing");
      // A string of the right length with a bit at or above m (143,775 = byte 17,971, bit 7).
      jedis.setbit("bit-past-m", HELPER.bitSize(), true);
      assertNamesKey("bit-past-m", () -> client.load("bit-past-m"));
      // A shorter string is a filter whose tail is zero.
      jedis.setbit("short", 3, true);
      try (BloomFilter loaded = client.load("short")) {
        assertEquals(1, loaded.bitCount());
      }
    }
  }

  @Test
  void ttlIsSetByEveryWrite() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER, Duration.ofHours(1));
        BloomFilter filter = HELPER.newFilter();
        Jedis jedis = server.raw()) {
      client.put("ttl:put", 1L);
      long ttl = jedis.pttl("ttl:put");
      assertTrue(ttl > 0 && ttl <= 3_600_000L, "pttl " + ttl);
      client.store("ttl:store", filter);
      ttl = jedis.pttl("ttl:store");
      assertTrue(ttl > 0 && ttl <= 3_600_000L, "pttl " + ttl);
    }
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER); Jedis jedis = server.raw()) {
      client.put("no-ttl", 1L);
      assertEquals(-1, jedis.pttl("no-ttl"));
    }
  }

  @Test
  void badArguments() {
    assertThrows(IllegalArgumentException.class, () -> RedisBloom.connect("http://127.0.0.1:1", HELPER));
    IllegalArgumentException notUri =
        assertThrows(IllegalArgumentException.class, () -> RedisBloom.connect("redis://:pass word@h:1", HELPER));
    assertFalse(notUri.getMessage().contains("pass"), "no password in messages: " + notUri.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(10, 1.0));
    assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(1, 0.9));
    // A TTL under Redis's unit of 1 ms would silently give no expiry at all.
    for (Duration ttl : List.of(Duration.ofNanos(1), Duration.ofNanos(999_999), Duration.ofMillis(-1))) {
      IllegalArgumentException sub =
          assertThrows(IllegalArgumentException.class, () -> RedisBloom.connect(server.uri(), HELPER, ttl));
      assertTrue(sub.getMessage().contains("ttl"), sub.getMessage());
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> RedisBloom.connect(server.uri(), HELPER, Duration.ofSeconds(Long.MAX_VALUE)));
    RedisBloom.connect(server.uri(), HELPER, Duration.ofMillis(1)).close();
    assertEquals(1, RedisBloom.ttlMillis(Duration.ofNanos(1_500_000)), "whole milliseconds");
    RedisBloomException e =
        assertThrows(RedisBloomException.class, () -> RedisBloom.connect("redis://127.0.0.1:1", HELPER));
    assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
  }

  static void assertNamesKey(String key, Executable call) {
    RedisKeyException e = assertThrows(RedisKeyException.class, call);
    assertEquals(key, e.key());
    assertTrue(e.getMessage().contains("'" + key + "'"), e.getMessage());
  }
}
