package io.sparkbloom.redis;

import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The marker key of a layout, whose presence says its filters are on the server, and whether a
 * client expects them. A client that has seen the marker (on connect, by {@link #checkPresent},
 * or by storing) expects the filters: when the marker is gone (a restart without persistence,
 * {@code FLUSHALL}, eviction) its reads and puts raise {@link FiltersMissingException} instead of
 * answering "nothing seen" for users whose history was lost. The commands check the marker in
 * the same script or pipeline as the read or write, so it costs no extra round trip.
 */
final class FiltersMarker {
  private final JedisPooled jedis;
  private final RedisLayout layout;
  private final String key;
  /** Whether a missing marker means lost filters (the marker was seen or written). */
  private volatile boolean expected;

  FiltersMarker(JedisPooled jedis, RedisLayout layout) {
    this.jedis = jedis;
    this.layout = layout;
    this.key = key(layout);
  }

  /** The marker key of a layout: {@code sparkbloom:marker:<bits>/<k>/<strategy>}. */
  static String key(RedisLayout layout) {
    return "sparkbloom:marker:" + layout.bitSize() + "/" + layout.numHashFunctions() + "/" + layout.strategy();
  }

  String key() {
    return key;
  }

  /** Whether the client expects the filters: the commands then check the marker too. */
  boolean expected() {
    return expected;
  }

  /** The client has written the marker (a store writes it with the filters). */
  void written() {
    expected = true;
  }

  /**
   * Looks for the marker on connect: if it is there, the client expects the filters.
   *
   * @throws JedisException as the {@code EXISTS} command throws it (the caller names the server)
   */
  void lookUp() {
    expected = jedis.exists(key);
  }

  /** @throws FiltersMissingException if the marker is gone; else the client expects the filters */
  void checkPresent(FilterCommands commands) {
    boolean present;
    try {
      present = jedis.exists(key);
    } catch (JedisException e) {
      throw commands.failure("checkPresent", key, e);
    }
    if (!present) {
      throw commands.missing("checkPresent");
    }
    expected = true;
  }

  /** Writes the marker, holding the layout's description; it never expires. */
  void markPresent(FilterCommands commands) {
    try {
      jedis.set(key, layout.toString());
    } catch (JedisException e) {
      throw commands.failure("markPresent", key, e);
    }
    expected = true;
  }
}
