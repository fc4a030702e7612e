package io.sparkbloom.redis;

import io.sparkbloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * The Redis commands behind {@link RedisBloom} for one layout's keys: the {@link RedisScripts}
 * with their fallback when the server lost its script cache, the three ways of reading bits,
 * and the exceptions, each naming the server, the operation and the key.
 */
final class FilterCommands {
  /** Offsets per write-script call: bounds one atomic step and the arguments held in memory. */
  static final int WRITE_CHUNK = 65_536;

  /** Request bytes per offset of the check script ("$6\r\n143775\r\n", RESP-framed). */
  private static final int SCRIPT_BYTES_PER_OFFSET = 12;

  /** Appended to a key for the scratch key of {@link RedisScripts#STORE}. */
  private static final String SCRATCH_SUFFIX = "\u0000sparkbloom-store";

  private final JedisPooled jedis;
  private final RedisLayout layout;
  private final long ttlMillis;
  /** host:port, for messages (never the password). */
  private final String server;
  private final String markerKey;

  FilterCommands(JedisPooled jedis, RedisLayout layout, long ttlMillis, String server, String markerKey) {
    this.jedis = jedis;
    this.layout = layout;
    this.ttlMillis = ttlMillis;
    this.server = server;
    this.markerKey = markerKey;
  }

  /**
   * Runs the store script for one filter ({@code mode} {@code or} or {@code replace}), which
   * writes only if the marker holds {@code generation}.
   */
  void store(String op, String key, BloomFilter filter, String mode, String generation) {
    List<byte[]> args = storeArgs(filter, mode, generation);
    scriptReply(op, key, () -> jedis.evalsha(bytes(RedisScripts.STORE_SHA), storeKeys(key), args),
        () -> jedis.eval(bytes(RedisScripts.STORE), storeKeys(key), args));
  }

  /** Runs the store script ({@code or} mode, expecting {@code generation}) for every filter, in one pipeline. */
  void storeAll(String op, List<String> keys, List<BloomFilter> filters, String generation) {
    List<List<byte[]>> args = new ArrayList<>(keys.size());
    for (BloomFilter filter : filters) {
      args.add(storeArgs(filter, "or", generation));
    }
    List<Response<Object>> replies = new ArrayList<>(keys.size());
    try (Pipeline p = jedis.pipelined()) {
      for (int i = 0; i < keys.size(); i++) {
        replies.add(p.evalsha(bytes(RedisScripts.STORE_SHA), storeKeys(keys.get(i)), args.get(i)));
      }
      p.sync();
    } catch (JedisException e) {
      throw failure(op, keys.size(), e);
    }
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      List<byte[]> a = args.get(i);
      scriptReply(op, key, replies.get(i)::get, () -> jedis.eval(bytes(RedisScripts.STORE), storeKeys(key), a));
    }
  }

  /** @throws IllegalArgumentException if {@code filter} is not of the layout's shape and strategy */
  void checkFits(String key, BloomFilter filter) {
    Objects.requireNonNull(key, "key is null");
    if (!layout.fits(filter)) {
      throw new IllegalArgumentException("invalid argument filter (key '" + key + "'): "
          + filter.bitSize() + " bits, k = " + filter.numHashFunctions() + ", " + filter.strategy()
          + " is not the shape of " + layout);
    }
  }

  private List<byte[]> storeKeys(String key) {
    return List.of(bytes(key), bytes(markerKey), bytes(key + SCRATCH_SUFFIX));
  }

  private List<byte[]> storeArgs(BloomFilter filter, String mode, String generation) {
    return List.of(
        bytes(Long.toString(layout.bitmapBytes())),
        bytes(Long.toString(ttlMillis)),
        bytes(mode),
        filter.toRedisBitmap(),
        bytes(generation),
        bytes(Long.toString(layout.bitSize())));
  }

  /**
   * Queues the reads of one user's check; the supplier decodes them after the pipeline syncs.
   * With {@code expect}, a missing marker key raises {@link FiltersMissingException}.
   */
  Supplier<int[]> queueCheck(
      Pipeline p, String op, String key, long[] offsets, int count, ReadMode readMode, boolean expect) {
    Objects.requireNonNull(key, "key is null");
    ReadMode mode = readMode != ReadMode.AUTO ? readMode
        : (long) offsets.length * SCRIPT_BYTES_PER_OFFSET >= layout.bitmapBytes() ? ReadMode.FETCH
        : ReadMode.SCRIPT;
    int k = layout.numHashFunctions();
    if (mode == ReadMode.SCRIPT) {
      List<String> args = scriptArgs(k, offsets, expect);
      List<String> keys = List.of(key, markerKey);
      Response<Object> reply = p.evalsha(RedisScripts.CHECK_SHA, keys, args);
      return () -> {
        List<?> r = scriptReply(op, key, reply::get, () -> jedis.eval(RedisScripts.CHECK, keys, args));
        if ((Long) r.get(0) == 0) {
          return allIndexes(count);
        }
        int[] absent = new int[r.size() - 1];
        for (int i = 0; i < absent.length; i++) {
          absent[i] = Math.toIntExact((Long) r.get(i + 1));
        }
        return absent;
      };
    }
    // The marker is read before the key, in the same pipeline.
    Response<Boolean> marker = expect ? p.exists(markerKey) : null;
    Supplier<int[]> read =
        mode == ReadMode.FETCH
            ? queueFetch(p, op, key, offsets, count)
            : queueBitfield(p, op, key, offsets, count);
    return () -> {
      if (marker != null && !get(op, key, marker)) {
        throw missing(op);
      }
      return read.get();
    };
  }

  private Supplier<int[]> queueFetch(Pipeline p, String op, String key, long[] offsets, int count) {
    Response<byte[]> value = p.get(bytes(key));
    return () -> {
      byte[] bitmap = get(op, key, value);
      if (bitmap == null) {
        return allIndexes(count);
      }
      checkLength(op, key, bitmap.length);
      return absentInBitmap(bitmap, offsets, count, layout.numHashFunctions());
    };
  }

  private Supplier<int[]> queueBitfield(Pipeline p, String op, String key, long[] offsets, int count) {
    int k = layout.numHashFunctions();
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
      checkLength(op, key, get(op, key, length));
      if (bits == null) {
        return new int[0];
      }
      List<Long> values = get(op, key, bits);
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

  /** The write script's arguments for {@code offsets}. */
  List<String> writeArgs(long[] offsets, boolean expect) {
    return scriptArgs(ttlMillis, offsets, expect);
  }

  /**
   * A script's arguments: the bitmap's bytes, {@code second} (the check script's k, the write
   * script's TTL), whether the marker is expected, then the offsets.
   */
  private List<String> scriptArgs(long second, long[] offsets, boolean expect) {
    List<String> args = new ArrayList<>(offsets.length + 3);
    args.add(Long.toString(layout.bitmapBytes()));
    args.add(Long.toString(second));
    args.add(expect ? "1" : "0");
    for (long o : offsets) {
      args.add(Long.toString(o));
    }
    return args;
  }

  /** Runs the write script once per argument list, in one pipeline. */
  boolean runWrites(String op, String key, List<List<String>> chunks) {
    List<String> keys = List.of(key, markerKey);
    List<Response<Object>> replies = new ArrayList<>(chunks.size());
    try (Pipeline p = jedis.pipelined()) {
      for (List<String> args : chunks) {
        replies.add(p.evalsha(RedisScripts.WRITE_SHA, keys, args));
      }
      p.sync();
    } catch (JedisException e) {
      throw failure(op, key, e);
    }
    boolean changed = false;
    for (int c = 0; c < chunks.size(); c++) {
      List<String> args = chunks.get(c);
      List<?> r = scriptReply(op, key, replies.get(c)::get, () -> jedis.eval(RedisScripts.WRITE, keys, args));
      changed |= (Long) r.get(0) == 1;
    }
    return changed;
  }

  /**
   * A script's reply (EVALSHA's, or a pipelined one's), re-run with EVAL if the server lost its
   * script cache (a restart or SCRIPT FLUSH), with the key and marker errors raised.
   */
  private List<?> scriptReply(String op, String key, Supplier<Object> reply, Supplier<Object> eval) {
    Object value;
    try {
      value = reply.get();
    } catch (JedisNoScriptException e) {
      try {
        value = eval.get();
      } catch (JedisException again) {
        throw failure(op, key, again);
      }
    } catch (JedisException e) {
      throw failure(op, key, e);
    }
    List<?> r = (List<?>) value;
    checkStatus(op, key, r);
    return r;
  }

  private void checkStatus(String op, String key, List<?> r) {
    long status = (Long) r.get(0);
    if (status == RedisScripts.WRONG_TYPE) {
      throw new RedisKeyException(
          key, op + ": key '" + key + "' holds a Redis " + text(r.get(1)) + ", not a string bitmap of " + layout);
    }
    if (status == RedisScripts.TOO_LONG) {
      checkLength(op, key, (Long) r.get(1));
    }
    if (status == RedisScripts.BITS_PAST_END) {
      throw new RedisKeyException(
          key,
          op + ": key '" + key + "' has bits set at or above bit " + layout.bitSize()
              + ": a filter of another layout than " + layout + " (left untouched)");
    }
    if (status == RedisScripts.MARKER_MISSING) {
      throw missing(op);
    }
    if (status == RedisScripts.MARKER_REPLACED) {
      throw replaced(op, text(r.get(1)));
    }
  }

  <T> T get(String op, String key, Response<T> response) {
    try {
      return response.get();
    } catch (JedisException e) {
      throw failure(op, key, e);
    }
  }

  void checkLength(String op, String key, long length) {
    if (length > layout.bitmapBytes()) {
      throw new RedisKeyException(
          key,
          op + ": key '" + key + "' holds a string of " + length + " bytes, longer than the "
              + layout.bitmapBytes() + "-byte bitmap of " + layout);
    }
  }

  FiltersMissingException missing(String op) {
    return new FiltersMissingException(
        markerKey,
        "Redis at " + server + ": " + op + " refused: the filters of " + layout
            + " are gone (marker key '" + markerKey + "' is missing): the server lost its data"
            + " (a restart without persistence, FLUSHALL or eviction), and a missing filter would"
            + " read as \"nothing seen\". Rebuild the filters (push them again) or call markPresent()"
            + " to go on without them");
  }

  /** A store into a data set that was lost: the marker was created again since the client saw it. */
  FiltersMissingException replaced(String op, String found) {
    return new FiltersMissingException(
        markerKey,
        "Redis at " + server + ": " + op + " refused: the marker key '" + markerKey + "' of " + layout
            + " was created again since this client saw it (it now holds '" + found + "'): the server"
            + " lost its data meanwhile, with the filters written before. Rebuild the filters (push them"
            + " again) or call checkPresent() to go on with the current ones");
  }

  /** A failed pipeline of many keys' commands. */
  RedisBloomException failure(String op, int keys, JedisException e) {
    return new RedisBloomException(
        "Redis at " + server + ": " + op + " of " + keys + " keys failed: " + e.getMessage(), e);
  }

  RedisBloomException failure(String op, String key, JedisException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    if (e instanceof JedisDataException && message.startsWith("WRONGTYPE")) {
      return new RedisKeyException(
          key,
          op + ": key '" + key + "' holds a Redis value that is not a string bitmap of " + layout
              + " (" + message + ")");
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

  static byte[] bytes(String key) {
    return Objects.requireNonNull(key, "key is null").getBytes(StandardCharsets.UTF_8);
  }

  private static String text(Object o) {
    return o instanceof byte[] ? new String((byte[]) o, StandardCharsets.UTF_8) : String.valueOf(o);
  }
}

