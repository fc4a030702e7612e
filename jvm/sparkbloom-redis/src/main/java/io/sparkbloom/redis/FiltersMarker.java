package io.sparkbloom.redis;

import java.util.List;
import java.util.UUID;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The marker key of a layout, whose presence says its filters are on the server, and the
 * generation of it a client expects. The marker holds a generation id, new each time it is
 * created ({@link #markPresent}: only where it is missing), so a marker created again after a
 * wipe is told from the one a client saw. A client that has seen the marker (on connect, by
 * {@link #checkPresent}, or by storing) expects the filters: when the marker is gone (a restart
 * without persistence, {@code FLUSHALL}, eviction) its reads and puts raise {@link
 * FiltersMissingException} instead of answering "nothing seen" for users whose history was lost,
 * and its stores refuse unless the marker holds the generation it saw, so a store never
 * re-creates a marker. The commands check the marker in the same script or pipeline as the read
 * or write, so it costs no extra round trip.
 */
final class FiltersMarker {
  private final JedisPooled jedis;
  private final RedisLayout layout;
  private final String key;
  /** The generation this client expects (the marker's value it saw or wrote); null for none. */
  private volatile String generation;

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
    return generation != null;
  }

  /** The generation the client expects, or null. */
  String generation() {
    return generation;
  }

  /**
   * Looks for the marker on connect: if it is there, the client expects its generation.
   *
   * @throws JedisException as the {@code GET} command throws it (the caller names the server)
   */
  void lookUp() {
    generation = jedis.get(key);
  }

  /**
   * Adopts the marker's generation, or, if {@code required} is not null, checks the marker
   * holds it and expects it from then on.
   *
   * @throws FiltersMissingException if the marker is gone or holds another generation than
   *     {@code required}
   */
  void checkPresent(FilterCommands commands, String required) {
    String found;
    try {
      found = jedis.get(key);
    } catch (JedisException e) {
      throw commands.failure("checkPresent", key, e);
    }
    if (found == null) {
      throw commands.missing("checkPresent");
    }
    if (required != null && !required.equals(found)) {
      throw commands.replaced("checkPresent", found);
    }
    generation = found;
  }

  /**
   * Creates the marker with a new generation (the layout's description and a random id) if it
   * is missing, else keeps it; the client expects the generation it then holds. It never expires.
   *
   * @return that generation
   */
  String markPresent(FilterCommands commands, String op) {
    String created = layout + ", generation " + UUID.randomUUID();
    Object found;
    try {
      found = jedis.eval(RedisScripts.MARK, List.of(key), List.of(created));
    } catch (JedisException e) {
      throw commands.failure(op, key, e);
    }
    generation = (String) found;
    return generation;
  }

  /**
   * The generation a store requires: the one the client expects, or for a client that has seen
   * no marker, the one {@link #markPresent} finds or creates (one round trip, once).
   */
  String forStore(FilterCommands commands, String op) {
    String expected = generation;
    return expected != null ? expected : markPresent(commands, op);
  }
}
