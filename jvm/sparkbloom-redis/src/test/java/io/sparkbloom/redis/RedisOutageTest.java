package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Restarts and credentials: failures are exceptions, never answers or silent writes. */
class RedisOutageTest {
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(10_000, 0.001);

  @Test
  void serverRestartedInTheMiddle() throws Exception {
    try (RedisServer server = RedisServer.start();
        RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT)) {
      SplittableRandom random = new SplittableRandom(1);
      long[] seen = random.longs(200).toArray();
      long[] candidates = random.longs(1_000).toArray();
      client.putAll("user:1", seen);
      long[] before = client.retainAbsent("user:1", candidates);
      assertEquals(0, client.retainAbsent("user:1", seen).length);

      server.stop(true);
      // Down: every call fails with a clear exception; none answers or reports a write.
      RedisBloomException down = assertThrows(RedisBloomException.class, () -> client.retainAbsent("user:1", candidates));
      assertTrue(down.getMessage().contains("127.0.0.1:" + server.port), down.getMessage());
      assertThrows(RedisBloomException.class, () -> client.put("user:1", 12345L));
      assertThrows(RedisBloomException.class, () -> client.mightContain("user:1", seen[0]));

      server.restart();
      // Back up (with its saved data): pooled connections that broke are replaced. A call may
      // still meet a connection that broke while the server was down; it fails, never answers
      // wrongly, and a later call succeeds.
      long[] after = null;
      int failures = 0;
      for (int attempt = 0; attempt < 20 && after == null; attempt++) {
        try {
          after = client.retainAbsent("user:1", candidates);
        } catch (RedisBloomException brokenConnection) {
          failures++;
        }
      }
      assertTrue(after != null, failures + " failures after the restart");
      assertArrayEquals(before, after, "the same answers after the restart");
      // The script cache was lost with the restart: puts fall back to EVAL and still work.
      assertTrue(client.put("user:1", 12345L));
      assertTrue(client.mightContain("user:1", 12345L));
      assertFalse(client.mightContain("user:2", 12345L));
    }
  }

  @Test
  void passwordProtectedServer() throws Exception {
    try (RedisServer server = RedisServer.start("s3cret-pw")) {
      String withoutPassword = "redis://127.0.0.1:" + server.port;
      RedisBloomException refused =
          assertThrows(RedisBloomException.class, () -> RedisBloom.connect(withoutPassword, LAYOUT));
      assertTrue(refused.getMessage().contains("NOAUTH") || refused.getMessage().contains("auth"), refused.getMessage());
      assertFalse(refused.getMessage().contains("s3cret-pw"));
      assertThrows(
          RedisBloomException.class,
          () -> RedisBloom.connect("redis://:wrong@127.0.0.1:" + server.port, LAYOUT));
      try (RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT)) {
        assertTrue(client.put("user:1", 1L));
        assertTrue(client.mightContain("user:1", 1L));
        assertEquals(1, client.retainAbsent("user:1", new long[] {1L, 2L}).length);
      }
      // A database number in the URI is honoured.
      try (RedisBloom db3 = RedisBloom.connect(server.uri() + "/3", LAYOUT)) {
        assertFalse(db3.mightContain("user:1", 1L));
      }
    }
  }
}
