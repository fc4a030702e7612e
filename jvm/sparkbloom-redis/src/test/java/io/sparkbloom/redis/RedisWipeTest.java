package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import redis.clients.jedis.Jedis;

/**
 * A server restarted without persistence loses every filter: clients that expect filters raise
 * {@link FiltersMissingException} instead of answering "nothing seen".
 */
class RedisWipeTest {
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(10_000, 0.001);

  @Test
  void restartWithoutPersistenceIsNoticed() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisBloom pusher = RedisBloom.connect(server.uri(), LAYOUT);
        BloomFilter history = LAYOUT.newFilter()) {
      long[] seen = new SplittableRandom(21).longs(200).toArray();
      history.putAll(seen);
      pusher.store("user:1", history);
      // A service that connects after the push sees the marker and expects the filters.
      try (RedisBloom service = RedisBloom.connect(server.uri(), LAYOUT)) {
        assertEquals(0, service.retainAbsent("user:1", seen).length);
        service.checkPresent();

        server.restartEmpty();
        for (ReadMode mode : ReadMode.values()) {
          service.readMode(mode);
          assertMissing(service, "retainAbsent", () -> retry(() -> service.retainAbsent("user:1", seen)));
          assertMissing(service, "mightContain", () -> retry(() -> service.mightContain("user:1", seen[0])));
          Map<String, long[]> many = new LinkedHashMap<>();
          many.put("user:1", seen);
          assertMissing(service, "retainAbsent", () -> retry(() -> service.retainAbsent(many)));
        }
        service.readMode(ReadMode.AUTO);
        assertMissing(service, "put", () -> retry(() -> service.put("user:1", 5L)));
        assertMissing(service, "putAll", () -> retry(() -> { service.putAll("user:1", seen); return null; }));
        assertMissing(service, "load", () -> retry(() -> service.load("user:1")));
        assertMissing(service, "checkPresent", () -> retry(() -> { service.checkPresent(); return null; }));
        try (Jedis jedis = server.raw()) {
          assertFalse(jedis.exists("user:1"), "the refused put recreated nothing");
        }
        // A client started after the wipe has no marker to miss, but checkPresent says so.
        try (RedisBloom late = RedisBloom.connect(server.uri(), LAYOUT)) {
          assertMissing(late, "checkPresent", late::checkPresent);
        }

        // The pusher's own stores refuse: it saw the marker that is gone.
        assertMissing(pusher, "store", () -> retry(() -> { pusher.store("user:1", history); return null; }));
        // Rebuilding (a push into the emptied server creates a new marker) brings the service back.
        try (RedisBloom rebuild = RedisBloom.connect(server.uri(), LAYOUT)) {
          rebuild.store("user:1", history);
        }
        assertEquals(0, retry(() -> service.retainAbsent("user:1", seen)).length);
      }
    }
  }

  /**
   * A wipe between two stores of one client (a rebuild done with {@code store}, as a push does
   * with {@code storeAll}): the later stores refuse instead of re-creating the marker they saw.
   */
  @Test
  void storesNeverRecreateAWipedMarker() throws Exception {
    RedisLayout other = RedisLayout.helperCompatible(500, 0.01);
    try (RedisServer server = RedisServer.start();
        RedisBloom pusher = RedisBloom.connect(server.uri(), LAYOUT);
        RedisBloom otherPusher = RedisBloom.connect(server.uri(), other);
        BloomFilter filter = LAYOUT.newFilter();
        BloomFilter otherFilter = other.newFilter();
        Jedis jedis = server.raw()) {
      filter.put(1L);
      otherFilter.put(1L);
      // Into an empty server: the first store creates the marker; each layout has its own.
      pusher.store("user:1", filter);
      otherPusher.store("other:1", otherFilter);
      String generation = jedis.get(pusher.markerKey());
      assertNotNull(generation);
      assertNotNull(jedis.get(otherPusher.markerKey()));

      jedis.flushAll();
      Map<String, BloomFilter> batch = new LinkedHashMap<>();
      batch.put("user:2", filter);
      batch.put("user:3", filter);
      assertMissing(pusher, "store", () -> pusher.store("user:2", filter));
      assertMissing(pusher, "storeAll", () -> pusher.storeAll(batch));
      assertMissing(pusher, "replace", () -> pusher.replace("user:2", filter));
      assertMissing(otherPusher, "store", () -> otherPusher.store("other:2", otherFilter));
      assertEquals(0, jedis.dbSize(), "no store wrote its key or a marker");

      // A rebuild by a client that found no marker creates a new one: the first client's data
      // set is still gone, so its stores refuse (its reads go on: the marker is there).
      try (RedisBloom rebuild = RedisBloom.connect(server.uri(), LAYOUT)) {
        rebuild.store("user:1", filter);
      }
      String rebuilt = jedis.get(pusher.markerKey());
      assertNotNull(rebuilt);
      assertNotEquals(generation, rebuilt, "a new marker, not the one the first client saw");
      FiltersMissingException replaced = assertThrows(FiltersMissingException.class, () -> pusher.store("user:2", filter));
      assertTrue(replaced.getMessage().contains("created again"), replaced.getMessage());
      assertFalse(jedis.exists("user:2"));
      assertTrue(pusher.mightContain("user:1", 1L));
      // checkPresent() adopts the rebuilt data set; markPresent() keeps an existing marker.
      pusher.checkPresent();
      pusher.store("user:2", filter);
      assertTrue(pusher.mightContain("user:2", 1L));
      pusher.markPresent();
      assertEquals(rebuilt, jedis.get(pusher.markerKey()));
    }
  }

  @Test
  void markPresentGoesOnWithoutTheLostFilters() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisBloom service = RedisBloom.connect(server.uri(), LAYOUT)) {
      // A put-only deployment marks the filters present once at set-up.
      service.markPresent();
      service.put("user:2", 1L);
      server.restartEmpty();
      assertMissing(service, "mightContain", () -> retry(() -> service.mightContain("user:2", 1L)));
      service.markPresent();
      assertFalse(service.mightContain("user:2", 1L), "the history is gone, knowingly");
      assertTrue(service.put("user:2", 1L));
      assertArrayEquals(new long[] {2L}, service.retainAbsent("user:2", new long[] {1L, 2L}));
    }
  }

  /** A client that never saw a marker keeps the plain semantics: a missing key is no history. */
  @Test
  void noMarkerNoExpectation() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT)) {
      assertTrue(client.put("user:3", 1L));
      assertArrayEquals(new long[] {2L}, client.retainAbsent("user:3", new long[] {1L, 2L}));
      server.restartEmpty();
      long[] kept = retry(() -> client.retainAbsent("user:3", new long[] {1L, 2L}));
      assertArrayEquals(new long[] {1L, 2L}, kept);
    }
  }

  private static void assertMissing(RedisBloom client, String op, Executable call) {
    FiltersMissingException e = assertThrows(FiltersMissingException.class, call);
    assertEquals(client.markerKey(), e.markerKey());
    assertTrue(e.getMessage().startsWith("Redis at 127.0.0.1:"), e.getMessage());
    assertTrue(e.getMessage().contains(": " + op + " refused"), e.getMessage());
  }

  /**
   * The call, retried while it meets pooled connections that broke with the restart (each such
   * failure is an exception, never an answer); any other exception is the call's outcome.
   */
  private static <T> T retry(java.util.function.Supplier<T> call) {
    for (int attempt = 0; ; attempt++) {
      try {
        return call.get();
      } catch (FiltersMissingException | RedisKeyException outcome) {
        throw outcome;
      } catch (RedisBloomException brokenConnection) {
        if (attempt >= 20) {
          throw brokenConnection;
        }
      }
    }
  }
}
