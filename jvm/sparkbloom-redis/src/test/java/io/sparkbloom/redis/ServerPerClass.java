package io.sparkbloom.redis;

import java.io.IOException;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.clients.jedis.Jedis;

/**
 * A private {@link RedisServer} for all the tests of a class, as a JUnit extension: {@code
 * @RegisterExtension static final ServerPerClass server = new ServerPerClass();} starts it before
 * the class's {@code @BeforeAll} methods and stops it after its {@code @AfterAll} ones. Public for
 * the tests outside this package (the Spark helpers').
 */
public final class ServerPerClass implements BeforeAllCallback, AfterAllCallback {
  private RedisServer server;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    server = RedisServer.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
    }
  }

  public String uri() {
    return server.uri();
  }

  public Jedis raw() {
    return server.raw();
  }
}
