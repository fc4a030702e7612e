package io.sparkbloom.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Objects;

/**
 * What {@link RedisBloom#connect} is given, checked before any connection: the server's URI
 * ({@code redis://[:password@]host:port[/db]}, {@code rediss://} for TLS) and the time to live
 * every write sets. Messages name the server as {@code host:port}, never the URI, which may hold
 * a password.
 */
final class RedisEndpoint {
  private RedisEndpoint() {}

  /**
   * {@code redisUri} as a URI Jedis connects to.
   *
   * @throws IllegalArgumentException if it is not a redis:// or rediss:// URI with a host (the
   *     message gives the reason and position only)
   */
  static URI uri(String redisUri) {
    Objects.requireNonNull(redisUri, "redisUri is null");
    URI uri;
    try {
      uri = new URI(redisUri);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(
          "invalid argument redisUri: not a URI (" + e.getReason() + " at index " + e.getIndex() + ")");
    }
    if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme()) || uri.getHost() == null) {
      throw new IllegalArgumentException(
          "invalid argument redisUri: expected redis://[:password@]host:port[/db] or rediss://..., got scheme "
              + uri.getScheme()
              + " and host "
              + uri.getHost());
    }
    return uri;
  }

  /** The server of {@code uri} as messages name it: {@code host:port}, 6379 when none is given. */
  static String server(URI uri) {
    return uri.getHost() + ":" + (uri.getPort() < 0 ? 6379 : uri.getPort());
  }

  /**
   * A time to live as the milliseconds every write sets ({@code PX}/{@code PEXPIRE}): whole
   * milliseconds, a sub-millisecond remainder dropped; 0 for {@link Duration#ZERO} (none).
   *
   * @throws IllegalArgumentException if {@code ttl} is negative, under 1 ms (Redis would get no
   *     expiry at all) or too long for a Redis expiry in milliseconds
   */
  static long ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl is null");
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("invalid argument ttl: " + ttl + " is negative");
    }
    if (!ttl.isZero() && ttl.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException(
          "invalid argument ttl: " + ttl + " is under 1 ms, the unit of Redis expiry (Duration.ZERO for none)");
    }
    // Redis adds the TTL to the current time in ms as a signed 64-bit number: half the range
    // leaves room for any current time.
    long max = Long.MAX_VALUE / 2;
    if (ttl.compareTo(Duration.ofMillis(max)) > 0) {
      throw new IllegalArgumentException(
          "invalid argument ttl: " + ttl + " is longer than Redis expiry allows (" + max + " ms)");
    }
    return ttl.toMillis();
  }
}
