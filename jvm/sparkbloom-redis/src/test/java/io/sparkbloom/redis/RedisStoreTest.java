package io.sparkbloom.redis;

import static io.sparkbloom.redis.RedisBloomTest.assertNamesKey;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/** {@link RedisBloom#store} adds to what the key holds; {@link RedisBloom#replace} overwrites. */
class RedisStoreTest {
  @RegisterExtension static final ServerPerClass server = new ServerPerClass();
  private static final RedisLayout HELPER = RedisLayout.helperCompatible(10_000, 0.001);

  @Test
  void storeKeepsItemsPutSince() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        BloomFilter history = HELPER.newFilter()) {
      long[] items = new SplittableRandom(11).longs(300).toArray();
      history.putAll(items);
      client.store("merge", history);
      assertTrue(client.put("merge", 99L));
      // The same filter stored again (a retried or re-run push): the online put survives.
      client.store("merge", history);
      assertTrue(client.mightContain("merge", 99L));
      assertEquals(0, client.retainAbsent("merge", items).length);
      try (BloomFilter loaded = client.load("merge")) {
        history.put(99L);
        assertEquals(history, loaded, "the key is exactly the union");
      }
    }
  }

  @Test
  void storeIsTheUnionOfBothFilters() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        BloomFilter a = HELPER.newFilter();
        BloomFilter b = HELPER.newFilter();
        BloomFilter union = HELPER.newFilter()) {
      SplittableRandom random = new SplittableRandom(12);
      long[] first = random.longs(200).toArray();
      long[] second = random.longs(200).toArray();
      a.putAll(first);
      b.putAll(second);
      union.putAll(first);
      union.putAll(second);
      client.store("union", a);
      client.store("union", b);
      try (BloomFilter loaded = client.load("union")) {
        assertEquals(union, loaded);
      }
      // storeAll (what RedisPush runs) ORs as well.
      Map<String, BloomFilter> batch = new LinkedHashMap<>();
      batch.put("union-all", a);
      client.storeAll(batch);
      batch.put("union-all", b);
      client.storeAll(batch);
      try (BloomFilter loaded = client.load("union-all")) {
        assertEquals(union, loaded);
      }
    }
  }

  /** A key written by a helper service with SETBIT is shorter than the bitmap; store ORs into it. */
  @Test
  void storeIntoAShorterSetbitKey() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        BloomFilter filter = HELPER.newFilter();
        Jedis jedis = server.raw()) {
      jedis.setbit("short-helper", 5, true);
      filter.put(7L);
      client.store("short-helper", filter);
      assertTrue(jedis.getbit("short-helper", 5), "the service's bit is kept");
      assertEquals(HELPER.bitmapBytes(), jedis.strlen("short-helper"));
      assertTrue(client.mightContain("short-helper", 7L));
    }
  }

  @Test
  void replaceOverwrites() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        BloomFilter filter = HELPER.newFilter();
        Jedis jedis = server.raw()) {
      filter.put(1L);
      client.put("replaced", 99L);
      client.replace("replaced", filter);
      assertFalse(client.mightContain("replaced", 99L));
      assertArrayEquals(filter.toRedisBitmap(), jedis.get("replaced".getBytes(StandardCharsets.UTF_8)));
      // replace overwrites any value, as SET does.
      jedis.lpush("was-a-list", "x");
      client.replace("was-a-list", filter);
      assertTrue(client.mightContain("was-a-list", 1L));
    }
  }

  /** A key holding a filter of another layout is refused by name and left as it was. */
  @Test
  void storeRefusesAnotherLayoutAtTheKey() {
    RedisLayout larger = RedisLayout.helperCompatible(20_000, 0.001);
    RedisLayout smallerTail = RedisLayout.of(HELPER.bitSize() - 1, HELPER.numHashFunctions(), HELPER.strategy());
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER);
        RedisBloom largerClient = RedisBloom.connect(server.uri(), larger);
        RedisBloom tailClient = RedisBloom.connect(server.uri(), smallerTail);
        BloomFilter filter = HELPER.newFilter();
        BloomFilter largeFilter = larger.newFilter();
        BloomFilter tailFilter = smallerTail.newFilter();
        Jedis jedis = server.raw()) {
      filter.put(3L);
      largeFilter.putAll(new SplittableRandom(13).longs(500).toArray());
      largerClient.store("layout:larger", largeFilter);
      byte[] before = jedis.get("layout:larger".getBytes(StandardCharsets.UTF_8));
      assertNamesKey("layout:larger", () -> client.store("layout:larger", filter));
      assertArrayEquals(before, jedis.get("layout:larger".getBytes(StandardCharsets.UTF_8)));
      Map<String, BloomFilter> batch = new LinkedHashMap<>();
      batch.put("layout:larger", filter);
      assertNamesKey("layout:larger", () -> client.storeAll(batch));

      // Same byte length, but a bit at m - 1 of a layout one bit longer: past this layout's end.
      try (BloomFilter helperFilter = HELPER.newFilter()) {
        jedis.setbit("layout:tail", HELPER.bitSize() - 1, true);
        assertNamesKey("layout:tail", () -> tailClient.store("layout:tail", tailFilter));
        assertEquals(1, jedis.bitcount("layout:tail"), "left untouched");
        helperFilter.put(3L);
        client.store("layout:tail", helperFilter);
        assertTrue(client.mightContain("layout:tail", 3L));
      }
      jedis.hset("layout:hash", "f", "v");
      assertNamesKey("layout:hash", () -> client.store("layout:hash", filter));
      assertEquals("hash", jedis.type("layout:hash"));
    }
  }

  @Test
  void storeSetsTheTtlAndLeavesNoScratchKey() {
    try (RedisBloom client = RedisBloom.connect(server.uri(), HELPER, Duration.ofHours(1));
        BloomFilter filter = HELPER.newFilter();
        Jedis jedis = server.raw()) {
      filter.put(1L);
      client.store("ttl-merge", filter);
      client.store("ttl-merge", filter);
      long ttl = jedis.pttl("ttl-merge");
      assertTrue(ttl > 0 && ttl <= 3_600_000L, "pttl " + ttl);
      assertEquals(-1, jedis.pttl(client.markerKey()), "the marker never expires");
      assertEquals(
          java.util.Set.of("ttl-merge", client.markerKey()),
          jedis.keys("*").stream()
              .filter(k -> k.startsWith("ttl-merge") || k.startsWith("sparkbloom:"))
              .collect(java.util.stream.Collectors.toSet()));
    }
  }
}
