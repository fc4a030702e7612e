package io.sparkbloom.redis;

import io.sparkbloom.BloomFilter;
import java.lang.reflect.Array;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;

/**
 * Per-user Bloom filters in plain Redis strings, in a {@link RedisLayout}: the online half of
 * per-user dedup. Spark builds the filters from the full history and {@linkplain #store stores}
 * them ({@code io.sparkbloom.redis.spark.RedisPush}); the service checks a whole candidate list
 * in one round trip ({@link #retainAbsent(String, long[])}) and adds what the user saw ({@link
 * #put(String, long)}). Services that still call {@code SETBIT}/{@code GETBIT} per offset keep
 * working on the same keys when the layout is {@link RedisLayout#helperCompatible}.
 *
 * <p>Semantics. A key that does not exist is a user with no history: every candidate is kept.
 * A key of another Redis type, or a string longer than the layout's bitmap, raises {@link
 * RedisKeyException} naming the key, never an answer. A failed connection, authentication or
 * command raises {@link RedisBloomException} naming the operation; no method returns normally
 * unless its command succeeded. Every write only sets bits ({@link #store} ORs a filter into the
 * key), so retrying, re-running a push or pushing twice never erases an item; only {@link
 * #replace} overwrites.
 *
 * <p>A wiped server. The layout's {@linkplain #markerKey() marker key} holds a generation id,
 * created only where the marker is missing: by {@link #markPresent()} or the first store of a
 * client that has seen no marker. A client that has seen the marker (on {@link #connect}, by
 * {@link #checkPresent()}, or by storing) expects the filters: when the marker is gone (a restart
 * without persistence, {@code FLUSHALL}, eviction) every read and put raises {@link
 * FiltersMissingException} instead of answering "nothing seen" for users whose history was lost,
 * and {@link #store}, {@link #storeAll} and {@link #replace} refuse unless the marker holds the
 * generation the client saw: a store never re-creates a marker it saw, so a wipe during a push
 * fails the push. The marker check runs inside the same script or pipeline, at no extra round trip.
 *
 * <p>Round trips. Every method is one round trip (a pipeline), except a retry after the server
 * lost its script cache and {@code putAll} of more than {@link #PUT_ALL_ROUND_TRIP_OFFSETS}
 * offsets. Puts run a Lua script that checks the key and sets the bits atomically.
 * Checks run a Lua script ({@code GETBIT} per offset, stopping at a candidate's first clear bit,
 * returning only the absent candidates) or, for long candidate lists, fetch the whole bitmap with
 * one {@code GET} and test it here, whichever moves fewer bytes. Measured on a local server
 * ({@code scripts/bench-redis.sh}): for 1,000 candidates at k = 10 the fetch takes about 0.3 ms,
 * the script 4.5 ms, one {@code BITFIELD_RO ... GET u1 ...} with all 10,000 offsets 12 ms, the
 * helper's {@code GETBIT} round trip per offset 580 ms.
 *
 * <p>Thread-safe: one instance (one connection pool) serves all threads. {@link #close()}
 * closes the pool.
 */
public final class RedisBloom implements AutoCloseable {
  /**
   * Offsets {@code putAll} sends per round trip (four write-script calls): the client holds at
   * most this many offsets' arguments at once, however long the batch.
   */
  public static final int PUT_ALL_ROUND_TRIP_OFFSETS = 4 * FilterCommands.WRITE_CHUNK;

  private final JedisPooled jedis;
  private final RedisLayout layout;
  private final FiltersMarker marker;
  private final FilterCommands commands;
  private volatile ReadMode readMode = ReadMode.AUTO;

  private RedisBloom(JedisPooled jedis, RedisLayout layout, long ttlMillis, String server) {
    this.jedis = jedis;
    this.layout = layout;
    this.marker = new FiltersMarker(jedis, layout);
    this.commands = new FilterCommands(jedis, layout, ttlMillis, server, marker.key());
  }

  /**
   * Connects to {@code redisUri} ({@code redis://[:password@]host:port[/db]}, {@code rediss://}
   * for TLS) with a connection pool, checks the connection with a {@code PING}, and looks for
   * the layout's {@linkplain #markerKey() marker}: if it is there, this client expects the
   * filters from then on. {@code layout} is the layout of every key this client reads and
   * writes; close the client to close the pool.
   *
   * @throws IllegalArgumentException if the URI is not a redis:// or rediss:// URI
   * @throws RedisBloomException if the server cannot be reached or refuses the credentials
   */
  public static RedisBloom connect(String redisUri, RedisLayout layout) {
    return connect(redisUri, layout, Duration.ZERO);
  }

  /**
   * Like {@link #connect(String, RedisLayout)}; every write also sets the key's time to live to
   * {@code ttl} (a user's filter expires {@code ttl} after their last activity; {@link
   * Duration#ZERO} for none).
   *
   * @throws IllegalArgumentException as {@link #ttlMillis(Duration)}, or for a bad URI
   */
  public static RedisBloom connect(String redisUri, RedisLayout layout, Duration ttl) {
    Objects.requireNonNull(redisUri, "redisUri is null");
    Objects.requireNonNull(layout, "layout is null");
    long ttlMillis = ttlMillis(ttl);
    URI uri = RedisEndpoint.uri(redisUri);
    String server = RedisEndpoint.server(uri);
    JedisPooled jedis = new JedisPooled(uri);
    RedisBloom client = new RedisBloom(jedis, layout, ttlMillis, server);
    try {
      jedis.ping();
      client.marker.lookUp();
    } catch (JedisException e) {
      jedis.close();
      throw new RedisBloomException("Redis at " + server + ": connect failed: " + e.getMessage(), e);
    }
    return client;
  }

  /**
   * A time to live as the milliseconds every write sets ({@code PX}/{@code PEXPIRE}): whole
   * milliseconds, a sub-millisecond remainder dropped; {@link Duration#ZERO} (0) for none.
   *
   * @throws IllegalArgumentException if {@code ttl} is negative, under 1 ms (Redis would get no
   *     expiry at all) or too long for a Redis expiry in milliseconds
   */
  public static long ttlMillis(Duration ttl) {
    return RedisEndpoint.ttlMillis(ttl);
  }

  /** @return the layout of every key */
  public RedisLayout layout() {
    return layout;
  }

  /**
   * The key whose presence says the filters of this layout are on the server: {@code
   * sparkbloom:marker:<bits>/<k>/<strategy>}, holding the layout's description and a generation
   * id, never expiring. Created, where it is missing, by {@link #markPresent()} and the first
   * store of a client that has seen no marker.
   */
  public String markerKey() {
    return marker.key();
  }

  /**
   * Checks that the filters are on the server (the marker key exists); from then on this client
   * expects them, and its stores the marker's current generation. Call it at start-up when
   * filters should already be there (a service that connects to an already wiped server has no
   * marker to miss), or to store into filters rebuilt since this client saw the marker.
   *
   * @throws FiltersMissingException if the marker is gone
   */
  public void checkPresent() {
    marker.checkPresent(commands, null);
  }

  /**
   * {@link #checkPresent()} of one generation: the marker must hold {@code generation}, which
   * this client's stores then require. A job's tasks write so into the data set its driver found
   * ({@link #markerGeneration()}) at the job's start; a task retried after a wipe refuses.
   *
   * @throws FiltersMissingException if the marker is gone or holds another generation
   */
  public void checkPresent(String generation) {
    marker.checkPresent(commands, Objects.requireNonNull(generation, "generation is null"));
  }

  /** @return the marker's generation this client expects (seen or written), null if none */
  public String markerGeneration() {
    return marker.generation();
  }

  /**
   * Creates the marker key with a new generation if it is missing (an existing marker is kept):
   * says the filters are present. For a deployment whose filters are only ever {@linkplain #put
   * put} (no {@link #store}), once at set-up; or, after {@link FiltersMissingException}, to go on
   * with whatever is left (items whose history was lost will be shown again) instead of rebuilding.
   */
  public void markPresent() {
    marker.markPresent(commands, "markPresent");
  }

  /** Benchmarks and tests pin a read mode; {@link ReadMode#AUTO} by default. */
  void readMode(ReadMode mode) {
    this.readMode = Objects.requireNonNull(mode);
  }

  // ---------------------------------------------------------------------------------------
  // Writes

  /**
   * Adds {@code item} to the user's filter ({@code SETBIT} of its k offsets, atomically with the
   * key checks), creating the key if missing.
   *
   * @return true if a bit changed (the item was certainly new), as Guava's {@code put}
   * @throws FiltersMissingException if this client expects filters and the marker is gone
   */
  public boolean put(String key, long item) {
    return writeChunk("put", key, layout.offsets(item));
  }

  /** {@link #put(String, long)} for a string item (hashed as its UTF-8 bytes). */
  public boolean put(String key, String item) {
    return writeChunk("put", key, layout.offsets(Objects.requireNonNull(item, "item is null")));
  }

  /** {@link #put(String, long)} for a byte-array item. */
  public boolean put(String key, byte[] item) {
    return writeChunk("put", key, layout.offsets(Objects.requireNonNull(item, "item is null")));
  }

  /**
   * Adds every item: one round trip per {@link #PUT_ALL_ROUND_TRIP_OFFSETS} offsets, computed
   * chunk by chunk, so the memory used does not grow with the batch. Each chunk is atomic; a
   * failure part way may leave the earlier chunks' bits set (setting them again is harmless).
   */
  public void putAll(String key, long[] items) {
    Objects.requireNonNull(items, "items is null");
    writeItems("putAll", key, items.length, (from, to) -> layout.offsetsOf(items, from, to));
  }

  /** {@link #putAll(String, long[])} for string items. */
  public void putAll(String key, String[] items) {
    requireNoNull(items);
    writeItems("putAll", key, items.length, (from, to) -> layout.offsetsOf(items, from, to));
  }

  /** {@link #putAll(String, long[])} for byte-array items. */
  public void putAll(String key, byte[][] items) {
    requireNoNull(items);
    writeItems("putAll", key, items.length, (from, to) -> layout.offsetsOf(items, from, to));
  }

  /**
   * Adds every item of {@code filter} to the user's filter: ORs its bitmap into the key
   * atomically ({@code BITOP OR} in one script), or creates the key. Items the service {@link
   * #put} since an earlier store are kept, so a retried, re-run or repeated push is harmless.
   * Sets the TTL if one is configured (without one, the key is left without expiry, as {@code
   * SET} leaves it). Writes only while the {@linkplain #markerKey() marker} holds the generation
   * this client expects; a client that has seen none first {@linkplain #markPresent() marks}.
   *
   * @throws IllegalArgumentException if the filter's shape or strategy is not the layout's
   * @throws RedisKeyException if the key holds another type, a string longer than the layout's
   *     bitmap or bits at or above its bit count: a filter of another layout (left untouched)
   * @throws FiltersMissingException if the marker is gone or was created again since this client
   *     saw it (nothing is written)
   */
  public void store(String key, BloomFilter filter) {
    storeOne("store", key, filter, "or");
  }

  /**
   * Overwrites the key with {@code filter}'s bitmap ({@code SET}, whatever the key held),
   * erasing items put since: for rebuilding a filter from scratch, e.g. to drop history. Sets the
   * TTL if configured; checks the marker as {@link #store}.
   *
   * @throws IllegalArgumentException if the filter's shape or strategy is not the layout's
   */
  public void replace(String key, BloomFilter filter) {
    storeOne("replace", key, filter, "replace");
  }

  /**
   * {@link #store} of many filters in one pipelined round trip. Every shape is checked before
   * anything is sent.
   *
   * @throws IllegalArgumentException if a filter's shape is not the layout's (nothing is written)
   * @throws RedisKeyException for the first key (in the map's order) not of the layout; the
   *     others were stored
   * @throws RedisBloomException if the pipeline failed; some of the keys may have been written
   * @throws FiltersMissingException as {@link #store}: the keys before the wipe were written
   */
  public void storeAll(Map<String, BloomFilter> filters) {
    Objects.requireNonNull(filters, "filters is null");
    List<String> keys = new ArrayList<>(filters.size());
    List<BloomFilter> values = new ArrayList<>(filters.size());
    for (Map.Entry<String, BloomFilter> e : filters.entrySet()) {
      BloomFilter filter = Objects.requireNonNull(e.getValue(), "filter is null");
      commands.checkFits(e.getKey(), filter);
      keys.add(e.getKey());
      values.add(filter);
    }
    if (keys.isEmpty()) {
      return;
    }
    commands.storeAll("storeAll", keys, values, marker.forStore(commands, "storeAll"));
  }

  private void storeOne(String op, String key, BloomFilter filter, String mode) {
    Objects.requireNonNull(filter, "filter is null");
    commands.checkFits(key, filter);
    commands.store(op, key, filter, mode, marker.forStore(commands, op));
  }

  /**
   * The user's filter as a {@link BloomFilter} of the layout's shape, or {@code null} if the key
   * does not exist.
   *
   * @throws RedisKeyException if the key holds another type, a longer string, or bits at or above
   *     the layout's bit count
   * @throws FiltersMissingException if this client expects filters and the marker is gone
   */
  public BloomFilter load(String key) {
    Response<Boolean> present = null;
    Response<byte[]> read;
    try (Pipeline p = jedis.pipelined()) {
      if (marker.expected()) {
        present = p.exists(marker.key());
      }
      read = p.get(FilterCommands.bytes(key));
      p.sync();
    } catch (JedisException e) {
      throw commands.failure("load", key, e);
    }
    if (present != null && !commands.get("load", key, present)) {
      throw commands.missing("load");
    }
    byte[] value = commands.get("load", key, read);
    if (value == null) {
      return null;
    }
    commands.checkLength("load", key, value.length);
    try {
      return BloomFilter.fromRedisBitmap(
          value, layout.bitSize(), layout.numHashFunctions(), layout.strategy());
    } catch (IllegalArgumentException e) {
      throw new RedisKeyException(key, "load: key '" + key + "' is not a filter of " + layout + ": " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------------
  // Checks

  /**
   * Whether the user may have seen {@code item}: {@code false} means certainly not (as for a
   * missing key).
   *
   * @throws FiltersMissingException if this client expects filters and the marker is gone
   */
  public boolean mightContain(String key, long item) {
    return absentIndexes("mightContain", key, layout.offsets(item), 1).length == 0;
  }

  /** {@link #mightContain(String, long)} for a string item. */
  public boolean mightContain(String key, String item) {
    long[] offsets = layout.offsets(Objects.requireNonNull(item, "item is null"));
    return absentIndexes("mightContain", key, offsets, 1).length == 0;
  }

  /** {@link #mightContain(String, long)} for a byte-array item. */
  public boolean mightContain(String key, byte[] item) {
    long[] offsets = layout.offsets(Objects.requireNonNull(item, "item is null"));
    return absentIndexes("mightContain", key, offsets, 1).length == 0;
  }

  /**
   * The candidates the user's filter has certainly not seen, in their order, in one round trip.
   * No false negatives: a candidate that was put is always dropped; an unseen one is dropped with
   * probability about the layout's false-positive rate. A missing key keeps every candidate.
   *
   * @throws FiltersMissingException if this client expects filters and the marker is gone
   */
  public long[] retainAbsent(String key, long[] candidates) {
    Objects.requireNonNull(candidates, "candidates is null");
    return kept(candidates, absentIndexes("retainAbsent", key, layout.offsetsOf(candidates, 0, candidates.length), candidates.length));
  }

  /** {@link #retainAbsent(String, long[])} for string candidates. */
  public String[] retainAbsent(String key, String[] candidates) {
    Objects.requireNonNull(candidates, "candidates is null");
    long[] offsets = layout.offsetsOf(candidates, 0, candidates.length);
    return kept(candidates, absentIndexes("retainAbsent", key, offsets, candidates.length));
  }

  /** {@link #retainAbsent(String, long[])} for byte-array candidates. */
  public byte[][] retainAbsent(String key, byte[][] candidates) {
    Objects.requireNonNull(candidates, "candidates is null");
    return kept(candidates, absentIndexes("retainAbsent", key, layout.offsetsOf(candidates, 0, candidates.length), candidates.length));
  }

  /**
   * {@link #retainAbsent(String, long[])} for many users in one pipelined round trip: each key
   * (in the map's iteration order) with its absent candidates.
   *
   * @throws RedisKeyException for the first key (in that order) that is not a filter of the layout
   * @throws FiltersMissingException if this client expects filters and the marker is gone
   */
  public Map<String, long[]> retainAbsent(Map<String, long[]> candidatesByKey) {
    Objects.requireNonNull(candidatesByKey, "candidatesByKey is null");
    List<Supplier<int[]>> pending = new ArrayList<>(candidatesByKey.size());
    List<Map.Entry<String, long[]>> entries = new ArrayList<>(candidatesByKey.entrySet());
    try (Pipeline p = jedis.pipelined()) {
      for (Map.Entry<String, long[]> e : entries) {
        long[] candidates = Objects.requireNonNull(e.getValue(), "candidates is null");
        long[] offsets = layout.offsetsOf(candidates, 0, candidates.length);
        pending.add(
            commands.queueCheck(p, "retainAbsent", e.getKey(), offsets, candidates.length, readMode, marker.expected()));
      }
      p.sync();
    } catch (JedisException e) {
      throw commands.failure("retainAbsent", entries.size(), e);
    }
    Map<String, long[]> out = new LinkedHashMap<>();
    for (int u = 0; u < entries.size(); u++) {
      out.put(entries.get(u).getKey(), kept(entries.get(u).getValue(), pending.get(u).get()));
    }
    return out;
  }

  /** Closes the connection pool. */
  @Override
  public void close() {
    jedis.close();
  }

  // ---------------------------------------------------------------------------------------
  // Internals

  /** The offsets of {@code items[from..to)}, for writing a batch chunk by chunk. */
  private interface ChunkOffsets {
    long[] of(int from, int to);
  }

  /**
   * The candidates at {@code indexes}, in order, in a new array of their type ({@code long[]},
   * {@code String[]} or {@code byte[][]}), copied without boxing.
   */
  @SuppressWarnings("unchecked")
  private static <A> A kept(A candidates, int[] indexes) {
    A out = (A) Array.newInstance(candidates.getClass().getComponentType(), indexes.length);
    for (int i = 0; i < indexes.length; i++) {
      System.arraycopy(candidates, indexes[i], out, i, 1);
    }
    return out;
  }

  /** Refuses a null item before any chunk of the batch is written. */
  private static void requireNoNull(Object[] items) {
    Objects.requireNonNull(items, "items is null");
    for (Object item : items) {
      Objects.requireNonNull(item, "item is null");
    }
  }

  /** The indexes of the items (k offsets each in {@code offsets}) whose bits are not all set. */
  private int[] absentIndexes(String op, String key, long[] offsets, int count) {
    Supplier<int[]> result;
    try (Pipeline p = jedis.pipelined()) {
      result = commands.queueCheck(p, op, key, offsets, count, readMode, marker.expected());
      p.sync();
    } catch (JedisException e) {
      throw commands.failure(op, key, e);
    }
    return result.get();
  }

  /**
   * Writes {@code count} items chunk by chunk: {@link FilterCommands#WRITE_CHUNK} offsets per script call,
   * four calls per pipelined round trip, each chunk's offsets computed only when it is sent.
   */
  private void writeItems(String op, String key, int count, ChunkOffsets offsetsOf) {
    Objects.requireNonNull(key, "key is null");
    int perChunk = Math.max(1, FilterCommands.WRITE_CHUNK / layout.numHashFunctions());
    int perRoundTrip = PUT_ALL_ROUND_TRIP_OFFSETS / FilterCommands.WRITE_CHUNK;
    int from = 0;
    do {
      List<List<String>> chunks = new ArrayList<>(perRoundTrip);
      while (chunks.size() < perRoundTrip && (from < count || chunks.isEmpty())) {
        int to = (int) Math.min(count, (long) from + perChunk);
        chunks.add(commands.writeArgs(offsetsOf.of(from, to), marker.expected()));
        from = to;
      }
      commands.runWrites(op, key, chunks);
    } while (from < count);
  }

  /** Sets the bits of {@code offsets} with one write-script call. */
  private boolean writeChunk(String op, String key, long[] offsets) {
    Objects.requireNonNull(key, "key is null");
    return commands.runWrites(op, key, List.of(commands.writeArgs(offsets, marker.expected())));
  }
}
