package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.BloomFilter;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import redis.clients.jedis.Jedis;

/** Every failure names the operation that failed, the server and the key. */
class RedisErrorMessagesTest {
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(1_000, 0.01);
  /** A layout whose marker is never written: a store of its client first creates the marker. */
  private static final RedisLayout UNMARKED = RedisLayout.helperCompatible(500, 0.01);

  /** A private server, a client that marked its filters present, one that did not, a filter of each. */
  private static final class Clients implements AutoCloseable {
    final RedisServer server = RedisServer.start();
    final RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT);
    final RedisBloom unmarked = RedisBloom.connect(server.uri(), UNMARKED);
    final BloomFilter filter = LAYOUT.newFilter();
    final BloomFilter unmarkedFilter = UNMARKED.newFilter();

    Clients() throws IOException {
      client.markPresent();
    }

    @Override
    public void close() {
      unmarkedFilter.close();
      filter.close();
      unmarked.close();
      client.close();
      server.close();
    }
  }

  /** The writes both clients' failures name, whatever failed. */
  private static void assertWritesName(Clients c) {
    assertNames("put of key 'k'", () -> c.client.put("k", 1L));
    assertNames("putAll of key 'k'", () -> c.client.putAll("k", new long[] {1, 2}));
    assertNames("store of key 'k'", () -> c.client.store("k", c.filter));
    assertNames("replace of key 'k'", () -> c.client.replace("k", c.filter));
    assertNames("markPresent", c.unmarked::markPresent);
    assertNames("store of key '" + c.unmarked.markerKey() + "'", () -> c.unmarked.store("k", c.unmarkedFilter));
  }

  /** A server that answers write scripts with an error (out of memory). */
  @Test
  void serverErrorsNameTheOperation() throws Exception {
    try (Clients c = new Clients(); Jedis jedis = c.server.raw()) {
      jedis.configSet("maxmemory", "1");
      jedis.configSet("maxmemory-policy", "noeviction");
      assertWritesName(c);
      assertNames("putAll of key 'k'", () -> c.client.putAll("k", new String[] {"a"}));
      assertNames("storeAll", () -> c.client.storeAll(Map.of("k", c.filter)));
      jedis.configSet("maxmemory", "0");
    }
  }

  /** A server that is down. */
  @Test
  void connectionErrorsNameTheOperation() throws Exception {
    try (Clients c = new Clients()) {
      c.server.stop(false);
      assertWritesName(c);
      assertNames("load of key 'k'", () -> c.client.load("k"));
      assertNames("mightContain of key 'k'", () -> c.client.mightContain("k", 1L));
      assertNames("retainAbsent of key 'k'", () -> c.client.retainAbsent("k", new long[] {1}));
      assertNames("retainAbsent of 1 keys", () -> c.client.retainAbsent(Map.of("k", new long[] {1})));
      assertNames("checkPresent", c.client::checkPresent);
    }
  }

  private static void assertNames(String what, Executable call) {
    RedisBloomException e = assertThrows(RedisBloomException.class, call);
    assertTrue(e.getMessage().contains(what), e.getMessage());
    assertTrue(e.getMessage().contains("Redis at 127.0.0.1:"), e.getMessage());
  }
}
