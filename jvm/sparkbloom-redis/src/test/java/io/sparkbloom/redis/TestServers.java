package io.sparkbloom.redis;

import java.io.IOException;
import redis.clients.jedis.Jedis;

/** {@link RedisServer} for tests outside this package (the Spark helpers' tests). */
public final class TestServers {
  private TestServers() {}

  /** A private redis-server on a free loopback port. */
  public static Handle start() throws IOException {
    return new Handle(RedisServer.start());
  }

  /** A running server; close it to stop it. */
  public static final class Handle implements AutoCloseable {
    private final RedisServer server;

    Handle(RedisServer server) {
      this.server = server;
    }

    public String uri() {
      return server.uri();
    }

    public Jedis raw() {
      return server.raw();
    }

    @Override
    public void close() {
      server.close();
    }
  }
}
