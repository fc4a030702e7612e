package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import redis.clients.jedis.Jedis;

/** Every failure names the operation that failed, the server and the key. */
class RedisErrorMessagesTest {
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(1_000, 0.01);
  /** A layout whose marker is never written: a store of its client first creates the marker. */
  private static final RedisLayout UNMARKED = RedisLayout.helperCompatible(500, 0.01);

  /** A server that answers write scripts with an error (out of memory). */
  @Test
  void serverErrorsNameTheOperation() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT);
        RedisBloom unmarked = RedisBloom.connect(server.uri(), UNMARKED);
        BloomFilter filter = LAYOUT.newFilter();
        BloomFilter unmarkedFilter = UNMARKED.newFilter();
        Jedis jedis = server.raw()) {
      client.markPresent();
      jedis.configSet("maxmemory", "1");
      jedis.configSet("maxmemory-policy", "noeviction");
      assertNames("put of key 'k'", () -> client.put("k", 1L));
      assertNames("putAll of key 'k'", () -> client.putAll("k", new long[] {1, 2}));
      assertNames("putAll of key 'k'", () -> client.putAll("k", new String[] {"a"}));
      assertNames("store of key 'k'", () -> client.store("k", filter));
      assertNames("replace of key 'k'", () -> client.replace("k", filter));
      assertNames("storeAll", () -> client.storeAll(Map.of("k", filter)));
      assertNames("markPresent", unmarked::markPresent);
      assertNames("store of key '" + unmarked.markerKey() + "'", () -> unmarked.store("k", unmarkedFilter));
      jedis.configSet("maxmemory", "0");
    }
  }

  /** A server that is down. */
  @Test
  void connectionErrorsNameTheOperation() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT);
        RedisBloom unmarked = RedisBloom.connect(server.uri(), UNMARKED);
        BloomFilter filter = LAYOUT.newFilter();
        BloomFilter unmarkedFilter = UNMARKED.newFilter()) {
      client.markPresent();
      server.stop(false);
      assertNames("put of key 'k'", () -> client.put("k", 1L));
      assertNames("putAll of key 'k'", () -> client.putAll("k", new long[] {1, 2}));
      assertNames("store of key 'k'", () -> client.store("k", filter));
      assertNames("replace of key 'k'", () -> client.replace("k", filter));
      assertNames("load of key 'k'", () -> client.load("k"));
      assertNames("mightContain of key 'k'", () -> client.mightContain("k", 1L));
      assertNames("retainAbsent of key 'k'", () -> client.retainAbsent("k", new long[] {1}));
      assertNames("retainAbsent of 1 keys", () -> client.retainAbsent(Map.of("k", new long[] {1})));
      assertNames("checkPresent", client::checkPresent);
      assertNames("markPresent", unmarked::markPresent);
      assertNames("store of key '" + unmarked.markerKey() + "'", () -> unmarked.store("k", unmarkedFilter));
    }
  }

  private static void assertNames(String what, Executable call) {
    RedisBloomException e = assertThrows(RedisBloomException.class, call);
    assertTrue(e.getMessage().contains(what), e.getMessage());
    assertTrue(e.getMessage().contains("Redis at 127.0.0.1:"), e.getMessage());
  }
}
