// Over 500 lines, most of them Javadoc: one method per item type and operation the client
// offers (long, String and byte[] alike), all over the same two server-side scripts.
package io.sparkbloom.redis;

import io.sparkbloom.BloomFilter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.params.SetParams;

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
 * command raises {@link RedisBloomException}; no method returns normally unless its command
 * succeeded. Writes are idempotent (setting bits, replacing a value), so retrying is safe.
 *
 * <p>Round trips. Every method is one round trip (a pipeline), except a retry after the server
 * lost its script cache. Puts run a Lua script that checks the key and sets the bits atomically.
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
  /** How bits are read (the benchmark compares them; {@link #AUTO} is the default). */
  enum ReadMode {
    /** {@code STRLEN} and {@code BITFIELD_RO key GET u1 o ...} for every offset, pipelined. */
    BITFIELD,
    /** A Lua script: {@code GETBIT} per offset, stopping at a candidate's first clear bit. */
    SCRIPT,
    /** {@code GET} the whole bitmap, test the offsets here. */
    FETCH,
    /**
     * Whichever moves fewer bytes: {@link #FETCH} when the script's offsets would take more bytes
     * than the bitmap (about 150 candidates at k = 10 and 17,972 bytes), else {@link #SCRIPT}.
     */
    AUTO
  }

  /**
   * Puts: checks the type and length, then SETBITs, atomically. KEYS[1] = key; ARGV = max bytes,
   * TTL in ms (0 = none), offsets. Returns {1 if a bit changed else 0}, {-1, type} for a wrong
   * type, {-2, length} for a string too long.
   */
  static final String WRITE_SCRIPT =
      "local t = redis.call('TYPE', KEYS[1]).ok\n"
          + "if t ~= 'string' and t ~= 'none' then return {-1, t} end\n"
          + "local len = redis.call('STRLEN', KEYS[1])\n"
          + "if len > tonumber(ARGV[1]) then return {-2, len} end\n"
          + "local changed = 0\n"
          + "for i = 3, #ARGV do\n"
          + "  if redis.call('SETBIT', KEYS[1], ARGV[i], 1) == 0 then changed = 1 end\n"
          + "end\n"
          + "if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\n"
          + "return {changed}\n";

  /**
   * Checks: KEYS[1] = key; ARGV = max bytes, k, then k offsets per candidate. Returns {0} for a
   * missing key, {1, absent candidate indexes...}, or the two errors of {@link #WRITE_SCRIPT}.
   */
  static final String CHECK_SCRIPT =
      "local t = redis.call('TYPE', KEYS[1]).ok\n"
          + "if t == 'none' then return {0} end\n"
          + "if t ~= 'string' then return {-1, t} end\n"
          + "local len = redis.call('STRLEN', KEYS[1])\n"
          + "if len > tonumber(ARGV[1]) then return {-2, len} end\n"
          + "local k = tonumber(ARGV[2])\n"
          + "local out = {1}\n"
          + "local n = (#ARGV - 2) / k\n"
          + "for j = 0, n - 1 do\n"
          + "  local base = 3 + j * k\n"
          + "  for i = 0, k - 1 do\n"
          + "    if redis.call('GETBIT', KEYS[1], ARGV[base + i]) == 0 then\n"
          + "      out[#out + 1] = j\n"
          + "      break\n"
          + "    end\n"
          + "  end\n"
          + "end\n"
          + "return out\n";

  /** Offsets per write-script call: bounds one atomic step; the calls share one pipeline. */
  private static final int WRITE_CHUNK = 65_536;

  /** Request bytes per offset of the check script ("$6\r\n143775\r\n", RESP-framed). */
  private static final int SCRIPT_BYTES_PER_OFFSET = 12;

  private static final String WRITE_SHA = sha1(WRITE_SCRIPT);
  private static final String CHECK_SHA = sha1(CHECK_SCRIPT);

  private final JedisPooled jedis;
  private final RedisLayout layout;
  private final long ttlMillis;
  /** host:port, for messages (never the password). */
  private final String server;
  private volatile ReadMode readMode = ReadMode.AUTO;

  private RedisBloom(JedisPooled jedis, RedisLayout layout, long ttlMillis, String server) {
    this.jedis = jedis;
    this.layout = layout;
    this.ttlMillis = ttlMillis;
    this.server = server;
  }

  /**
   * Connects to {@code redisUri} ({@code redis://[:password@]host:port[/db]}, {@code rediss://}
   * for TLS) with a connection pool, and checks the connection with a {@code PING}.
   *
   * @param redisUri the server
   * @param layout the layout of every key this client reads and writes
   * @throws IllegalArgumentException if the URI is not a redis:// or rediss:// URI
   * @throws RedisBloomException if the server cannot be reached or refuses the credentials
   * @return the client; close it to close the pool
   */
  public static RedisBloom connect(String redisUri, RedisLayout layout) {
    return connect(redisUri, layout, Duration.ZERO);
  }

  /**
   * Like {@link #connect(String, RedisLayout)}; every write also sets the key's time to live to
   * {@code ttl} (a user's filter expires {@code ttl} after their last activity).
   *
   * @param redisUri the server
   * @param layout the layout of every key
   * @param ttl time to live set by every write; {@link Duration#ZERO} for none
   * @return the client
   */
  public static RedisBloom connect(String redisUri, RedisLayout layout, Duration ttl) {
    Objects.requireNonNull(redisUri, "redisUri is null");
    Objects.requireNonNull(layout, "layout is null");
    Objects.requireNonNull(ttl, "ttl is null");
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("invalid argument ttl: " + ttl + " is negative");
    }
    URI uri;
    try {
      uri = new URI(redisUri);
    } catch (URISyntaxException e) {
      // The reason and position only: the input may hold a password.
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
    String server = uri.getHost() + ":" + (uri.getPort() < 0 ? 6379 : uri.getPort());
    JedisPooled jedis = new JedisPooled(uri);
    RedisBloom client = new RedisBloom(jedis, layout, ttl.toMillis(), server);
    try {
      jedis.ping();
    } catch (JedisException e) {
      jedis.close();
      throw new RedisBloomException("Redis at " + server + ": connect failed: " + e.getMessage(), e);
    }
    return client;
  }

  /** @return the layout of every key */
  public RedisLayout layout() {
    return layout;
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
   */
  public boolean put(String key, long item) {
    return write(key, layout.offsets(item));
  }

  /** {@link #put(String, long)} for a string item (hashed as its UTF-8 bytes). */
  public boolean put(String key, String item) {
    return write(key, layout.offsets(Objects.requireNonNull(item, "item is null")));
  }

  /** {@link #put(String, long)} for a byte-array item. */
  public boolean put(String key, byte[] item) {
    return write(key, layout.offsets(Objects.requireNonNull(item, "item is null")));
  }

  /** Adds every item, in one round trip. */
  public void putAll(String key, long[] items) {
    write(key, layout.offsetsOf(Objects.requireNonNull(items, "items is null")));
  }

  /** {@link #putAll(String, long[])} for string items. */
  public void putAll(String key, String[] items) {
    write(key, layout.offsetsOf(utf8(items)));
  }

  /** {@link #putAll(String, long[])} for byte-array items. */
  public void putAll(String key, byte[][] items) {
    write(key, layout.offsetsOf(Objects.requireNonNull(items, "items is null")));
  }

  /**
   * Replaces the user's filter with {@code filter}, in one {@code SET} of its bitmap (with the
   * TTL if one is set): loading a whole history costs one command instead of one {@code SETBIT}
   * per bit. Whatever the key held before is replaced.
   *
   * @throws IllegalArgumentException if the filter's shape or strategy is not the layout's
   */
  public void store(String key, BloomFilter filter) {
    Objects.requireNonNull(filter, "filter is null");
    checkFits(key, filter);
    byte[] bitmap = filter.toRedisBitmap();
    try {
      if (ttlMillis > 0) {
        jedis.set(bytes(key), bitmap, SetParams.setParams().px(ttlMillis));
      } else {
        jedis.set(bytes(key), bitmap);
      }
    } catch (JedisException e) {
      throw failure("store", key, e);
    }
  }

  /**
   * {@link #store} of many filters in one pipelined round trip: one {@code SET} per filter. Every
   * shape is checked before anything is sent.
   *
   * @param filters each key with its filter
   * @throws IllegalArgumentException if a filter's shape is not the layout's (nothing is written)
   * @throws RedisBloomException if the pipeline failed; some of the keys may have been written
   */
  public void storeAll(Map<String, BloomFilter> filters) {
    Objects.requireNonNull(filters, "filters is null");
    List<byte[]> keys = new ArrayList<>(filters.size());
    List<byte[]> values = new ArrayList<>(filters.size());
    for (Map.Entry<String, BloomFilter> e : filters.entrySet()) {
      BloomFilter filter = Objects.requireNonNull(e.getValue(), "filter is null");
      checkFits(e.getKey(), filter);
      keys.add(bytes(e.getKey()));
      values.add(filter.toRedisBitmap());
    }
    List<Response<String>> replies = new ArrayList<>(keys.size());
    try (Pipeline p = jedis.pipelined()) {
      for (int i = 0; i < keys.size(); i++) {
        replies.add(
            ttlMillis > 0
                ? p.set(keys.get(i), values.get(i), SetParams.setParams().px(ttlMillis))
                : p.set(keys.get(i), values.get(i)));
      }
      p.sync();
      for (Response<String> reply : replies) {
        reply.get();
      }
    } catch (JedisException e) {
      throw new RedisBloomException(
          "Redis at " + server + ": storeAll of " + keys.size() + " keys failed: " + e.getMessage(), e);
    }
  }

  private void checkFits(String key, BloomFilter filter) {
    Objects.requireNonNull(key, "key is null");
    if (!layout.fits(filter)) {
      throw new IllegalArgumentException(
          "invalid argument filter (key '"
              + key
              + "'): "
              + filter.bitSize()
              + " bits, k = "
              + filter.numHashFunctions()
              + ", "
              + filter.strategy()
              + " is not the shape of "
              + layout);
    }
  }

  /**
   * The user's filter as a {@link BloomFilter} of the layout's shape, or {@code null} if the key
   * does not exist.
   *
   * @throws RedisKeyException if the key holds another type, a longer string, or bits at or above
   *     the layout's bit count
   */
  public BloomFilter load(String key) {
    byte[] value;
    try {
      value = jedis.get(bytes(key));
    } catch (JedisException e) {
      throw failure("load", key, e);
    }
    if (value == null) {
      return null;
    }
    checkLength(key, value.length);
    try {
      return BloomFilter.fromRedisBitmap(
          value, layout.bitSize(), layout.numHashFunctions(), layout.strategy());
    } catch (IllegalArgumentException e) {
      throw new RedisKeyException(key, "key '" + key + "' is not a filter of " + layout + ": " + e.getMessage());
    }
  }

  // ---------------------------------------------------------------------------------------
  // Checks

  /**
   * Whether the user may have seen {@code item}: {@code false} means certainly not.
   *
   * @return false for a missing key
   */
  public boolean mightContain(String key, long item) {
    return absentIndexes(key, layout.offsets(item), 1).length == 0;
  }

  /** {@link #mightContain(String, long)} for a string item. */
  public boolean mightContain(String key, String item) {
    return absentIndexes(key, layout.offsets(Objects.requireNonNull(item, "item is null")), 1).length == 0;
  }

  /** {@link #mightContain(String, long)} for a byte-array item. */
  public boolean mightContain(String key, byte[] item) {
    return absentIndexes(key, layout.offsets(Objects.requireNonNull(item, "item is null")), 1).length == 0;
  }

  /**
   * The candidates the user's filter has certainly not seen, in their order, in one round trip.
   * No false negatives: a candidate that was put is always dropped; an unseen one is dropped with
   * probability about the layout's false-positive rate. A missing key keeps every candidate.
   *
   * @return a new array
   */
  public long[] retainAbsent(String key, long[] candidates) {
    Objects.requireNonNull(candidates, "candidates is null");
    int[] absent = absentIndexes(key, layout.offsetsOf(candidates), candidates.length);
    long[] out = new long[absent.length];
    for (int i = 0; i < absent.length; i++) {
      out[i] = candidates[absent[i]];
    }
    return out;
  }

  /** {@link #retainAbsent(String, long[])} for string candidates. */
  public String[] retainAbsent(String key, String[] candidates) {
    int[] absent = absentIndexes(key, layout.offsetsOf(utf8(candidates)), candidates.length);
    String[] out = new String[absent.length];
    for (int i = 0; i < absent.length; i++) {
      out[i] = candidates[absent[i]];
    }
    return out;
  }

  /** {@link #retainAbsent(String, long[])} for byte-array candidates. */
  public byte[][] retainAbsent(String key, byte[][] candidates) {
    Objects.requireNonNull(candidates, "candidates is null");
    int[] absent = absentIndexes(key, layout.offsetsOf(candidates), candidates.length);
    byte[][] out = new byte[absent.length][];
    for (int i = 0; i < absent.length; i++) {
      out[i] = candidates[absent[i]];
    }
    return out;
  }

  /**
   * {@link #retainAbsent(String, long[])} for many users in one pipelined round trip.
   *
   * @param candidatesByKey each user's key and candidates
   * @return each key (in the map's iteration order) with its absent candidates
   * @throws RedisKeyException for the first key (in that order) that is not a filter of the layout
   */
  public Map<String, long[]> retainAbsent(Map<String, long[]> candidatesByKey) {
    Objects.requireNonNull(candidatesByKey, "candidatesByKey is null");
    List<Supplier<int[]>> pending = new ArrayList<>(candidatesByKey.size());
    List<Map.Entry<String, long[]>> entries = new ArrayList<>(candidatesByKey.entrySet());
    try (Pipeline p = jedis.pipelined()) {
      for (Map.Entry<String, long[]> e : entries) {
        long[] candidates = Objects.requireNonNull(e.getValue(), "candidates is null");
        pending.add(queueCheck(p, e.getKey(), layout.offsetsOf(candidates), candidates.length));
      }
      p.sync();
    } catch (JedisException e) {
      throw new RedisBloomException(
          "Redis at " + server + ": retainAbsent of " + entries.size() + " keys failed: " + e.getMessage(), e);
    }
    Map<String, long[]> out = new LinkedHashMap<>();
    for (int u = 0; u < entries.size(); u++) {
      long[] candidates = entries.get(u).getValue();
      int[] absent = pending.get(u).get();
      long[] kept = new long[absent.length];
      for (int i = 0; i < absent.length; i++) {
        kept[i] = candidates[absent[i]];
      }
      out.put(entries.get(u).getKey(), kept);
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

  /** The indexes of the items (k offsets each in {@code offsets}) whose bits are not all set. */
  private int[] absentIndexes(String key, long[] offsets, int count) {
    Supplier<int[]> result;
    try (Pipeline p = jedis.pipelined()) {
      result = queueCheck(p, key, offsets, count);
      p.sync();
    } catch (JedisException e) {
      throw failure("check", key, e);
    }
    return result.get();
  }

  /** Queues the reads of one user's check; the supplier decodes them after the pipeline syncs. */
  private Supplier<int[]> queueCheck(Pipeline p, String key, long[] offsets, int count) {
    Objects.requireNonNull(key, "key is null");
    ReadMode mode = readMode;
    if (mode == ReadMode.AUTO) {
      mode =
          (long) offsets.length * SCRIPT_BYTES_PER_OFFSET >= layout.bitmapBytes()
              ? ReadMode.FETCH
              : ReadMode.SCRIPT;
    }
    int k = layout.numHashFunctions();
    switch (mode) {
      case FETCH:
        {
          Response<byte[]> value = p.get(bytes(key));
          return () -> {
            byte[] bitmap = get("check", key, value);
            if (bitmap == null) {
              return allIndexes(count);
            }
            checkLength(key, bitmap.length);
            return absentInBitmap(bitmap, offsets, count, k);
          };
        }
      case SCRIPT:
        {
          List<String> args = new ArrayList<>(offsets.length + 2);
          args.add(Long.toString(layout.bitmapBytes()));
          args.add(Integer.toString(k));
          for (long o : offsets) {
            args.add(Long.toString(o));
          }
          Response<Object> reply = p.evalsha(CHECK_SHA, List.of(key), args);
          return () -> {
            List<?> r = scriptReply(key, reply, CHECK_SCRIPT, args);
            long status = (Long) r.get(0);
            if (status == 0) {
              return allIndexes(count);
            }
            int[] absent = new int[r.size() - 1];
            for (int i = 0; i < absent.length; i++) {
              absent[i] = Math.toIntExact((Long) r.get(i + 1));
            }
            return absent;
          };
        }
      default:
        {
          Response<Long> length = p.strlen(key);
          // BITFIELD_RO key GET u1 o1 GET u1 o2 ...: three arguments per offset.
          String[] full = new String[offsets.length * 3];
          for (int i = 0; i < offsets.length; i++) {
            full[3 * i] = "GET";
            full[3 * i + 1] = "u1";
            full[3 * i + 2] = Long.toString(offsets[i]);
          }
          Response<List<Long>> bits = offsets.length == 0 ? null : p.bitfieldReadonly(key, full);
          return () -> {
            checkLength(key, get("check", key, length));
            if (bits == null) {
              return new int[0];
            }
            List<Long> values = get("check", key, bits);
            int[] absent = new int[count];
            int n = 0;
            for (int j = 0; j < count; j++) {
              for (int i = 0; i < k; i++) {
                if (values.get(j * k + i) == 0) {
                  absent[n++] = j;
                  break;
                }
              }
            }
            return Arrays.copyOf(absent, n);
          };
        }
    }
  }

  /** Sets the bits of {@code offsets} with the write script, chunked in one pipeline. */
  private boolean write(String key, long[] offsets) {
    Objects.requireNonNull(key, "key is null");
    List<List<String>> chunks = new ArrayList<>();
    for (int from = 0; from < offsets.length || from == 0; from += WRITE_CHUNK) {
      int to = Math.min(offsets.length, from + WRITE_CHUNK);
      List<String> args = new ArrayList<>(to - from + 2);
      args.add(Long.toString(layout.bitmapBytes()));
      args.add(Long.toString(ttlMillis));
      for (int i = from; i < to; i++) {
        args.add(Long.toString(offsets[i]));
      }
      chunks.add(args);
      if (offsets.length == 0) {
        break;
      }
    }
    List<Response<Object>> replies = new ArrayList<>(chunks.size());
    try (Pipeline p = jedis.pipelined()) {
      for (List<String> args : chunks) {
        replies.add(p.evalsha(WRITE_SHA, List.of(key), args));
      }
      p.sync();
    } catch (JedisException e) {
      throw failure("put", key, e);
    }
    boolean changed = false;
    for (int c = 0; c < chunks.size(); c++) {
      List<?> r = scriptReply(key, replies.get(c), WRITE_SCRIPT, chunks.get(c));
      changed |= (Long) r.get(0) == 1;
    }
    return changed;
  }

  /**
   * A script's reply, re-run with EVAL if the server lost its script cache (a restart or
   * SCRIPT FLUSH), with the key errors raised.
   */
  private List<?> scriptReply(String key, Response<Object> reply, String script, List<String> args) {
    Object value;
    try {
      value = reply.get();
    } catch (JedisNoScriptException e) {
      try {
        value = jedis.eval(script, List.of(key), args);
      } catch (JedisException again) {
        throw failure("script", key, again);
      }
    } catch (JedisException e) {
      throw failure("script", key, e);
    }
    List<?> r = (List<?>) value;
    long status = (Long) r.get(0);
    if (status == -1) {
      throw new RedisKeyException(
          key, "key '" + key + "' holds a Redis " + text(r.get(1)) + ", not a string bitmap of " + layout);
    }
    if (status == -2) {
      checkLength(key, (Long) r.get(1));
    }
    return r;
  }

  private <T> T get(String op, String key, Response<T> response) {
    try {
      return response.get();
    } catch (JedisException e) {
      throw failure(op, key, e);
    }
  }

  private void checkLength(String key, long length) {
    if (length > layout.bitmapBytes()) {
      throw new RedisKeyException(
          key,
          "key '"
              + key
              + "' holds a string of "
              + length
              + " bytes, longer than the "
              + layout.bitmapBytes()
              + "-byte bitmap of "
              + layout);
    }
  }

  private RedisBloomException failure(String op, String key, JedisException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof JedisDataException && message.startsWith("WRONGTYPE")) {
      return new RedisKeyException(
          key, "key '" + key + "' holds a Redis value that is not a string bitmap of " + layout + " (" + message + ")");
    }
    return new RedisBloomException(
        "Redis at " + server + ": " + op + " of key '" + key + "' failed: " + message, e);
  }

  private static int[] absentInBitmap(byte[] bitmap, long[] offsets, int count, int k) {
    int[] absent = new int[count];
    int n = 0;
    for (int j = 0; j < count; j++) {
      for (int i = 0; i < k; i++) {
        long o = offsets[j * k + i];
        int at = (int) (o >>> 3);
        if (at >= bitmap.length || (bitmap[at] & (0x80 >>> (o & 7))) == 0) {
          absent[n++] = j;
          break;
        }
      }
    }
    return Arrays.copyOf(absent, n);
  }

  private static int[] allIndexes(int count) {
    int[] all = new int[count];
    Arrays.setAll(all, i -> i);
    return all;
  }

  private static byte[][] utf8(String[] items) {
    Objects.requireNonNull(items, "items is null");
    byte[][] out = new byte[items.length][];
    for (int i = 0; i < items.length; i++) {
      out[i] = Objects.requireNonNull(items[i], "item is null").getBytes(StandardCharsets.UTF_8);
    }
    return out;
  }

  private static byte[] bytes(String key) {
    return Objects.requireNonNull(key, "key is null").getBytes(StandardCharsets.UTF_8);
  }

  private static String text(Object o) {
    return o instanceof byte[] ? new String((byte[]) o, StandardCharsets.UTF_8) : String.valueOf(o);
  }

  private static String sha1(String script) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : digest) {
        hex.append(String.format("%02x", b));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is part of every Java runtime", e);
    }
  }
}
