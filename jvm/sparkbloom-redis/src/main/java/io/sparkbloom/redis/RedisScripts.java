package io.sparkbloom.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The Lua scripts {@link RedisBloom} runs on the server, and the statuses they return. Each
 * checks the key before touching it, so a key of another type or size is refused whole, never
 * half written. KEYS[2] is always the layout's marker key ({@link RedisBloom#markerKey()}), checked
 * before anything is read or written: reads and puts, when ARGV[3] is {@code 1} (the client
 * expects stored filters), refuse a missing marker with {@link #MARKER_MISSING}; stores refuse
 * unless it holds the generation the client expects ({@link #MARKER_MISSING}, {@link
 * #MARKER_REPLACED}). Only {@link #MARK} writes the marker.
 */
final class RedisScripts {
  /** Reply status: the key holds another Redis type; element 2 is the type. */
  static final long WRONG_TYPE = -1;
  /** Reply status: the string is longer than the layout's bitmap; element 2 is its length. */
  static final long TOO_LONG = -2;
  /** Reply status: the client expects filters but the marker key is gone (a wiped server). */
  static final long MARKER_MISSING = -3;
  /** Reply status: the string has bits set at or above the layout's bit count. */
  static final long BITS_PAST_END = -4;
  /**
   * Reply status: the marker holds another generation than the client expects (it was created
   * again since: the data set the client wrote into was lost); element 2 is the marker's value.
   */
  static final long MARKER_REPLACED = -5;

  private static final String MARKER_AND_KEY_CHECKS =
      "if ARGV[3] == '1' and redis.call('EXISTS', KEYS[2]) == 0 then return {-3} end\n"
          + "local t = redis.call('TYPE', KEYS[1]).ok\n";

  /**
   * Puts: SETBIT of every offset, atomically with the checks. ARGV = max bytes, TTL in ms (0 =
   * none), expect marker, offsets. Returns {1 if a bit changed else 0} or an error status.
   */
  static final String WRITE =
      MARKER_AND_KEY_CHECKS
          + "if t ~= 'string' and t ~= 'none' then return {-1, t} end\n"
          + "local len = redis.call('STRLEN', KEYS[1])\n"
          + "if len > tonumber(ARGV[1]) then return {-2, len} end\n"
          + "local changed = 0\n"
          + "for i = 4, #ARGV do\n"
          + "  if redis.call('SETBIT', KEYS[1], ARGV[i], 1) == 0 then changed = 1 end\n"
          + "end\n"
          + "if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\n"
          + "return {changed}\n";

  /**
   * Checks: ARGV = max bytes, k, expect marker, then k offsets per candidate. Returns {0} for a
   * missing key, {1, absent candidate indexes...}, or an error status.
   */
  static final String CHECK =
      MARKER_AND_KEY_CHECKS
          + "if t == 'none' then return {0} end\n"
          + "if t ~= 'string' then return {-1, t} end\n"
          + "local len = redis.call('STRLEN', KEYS[1])\n"
          + "if len > tonumber(ARGV[1]) then return {-2, len} end\n"
          + "local k = tonumber(ARGV[2])\n"
          + "local out = {1}\n"
          + "local n = (#ARGV - 3) / k\n"
          + "for j = 0, n - 1 do\n"
          + "  local base = 4 + j * k\n"
          + "  for i = 0, k - 1 do\n"
          + "    if redis.call('GETBIT', KEYS[1], ARGV[base + i]) == 0 then\n"
          + "      out[#out + 1] = j\n"
          + "      break\n"
          + "    end\n"
          + "  end\n"
          + "end\n"
          + "return out\n";

  /**
   * Stores a whole bitmap if the marker holds the expected generation. KEYS[3] is a scratch key,
   * set and deleted within the script (no client ever sees it). ARGV = max bytes, TTL in ms, mode
   * ({@code or}: OR into an existing bitmap of the layout with BITOP; {@code replace}: SET over
   * whatever the key held), the bitmap, the expected generation, the layout's bit count. Returns
   * {1} or an error status; in {@code or} mode a key that is not a bitmap of the layout is left
   * untouched.
   */
  static final String STORE =
      "local g = redis.call('GET', KEYS[2])\n"
          + "if not g then return {-3} end\n"
          + "if g ~= ARGV[5] then return {-5, g} end\n"
          + "local t = redis.call('TYPE', KEYS[1]).ok\n"
          + "if ARGV[3] == 'or' and t ~= 'none' then\n"
          + "  if t ~= 'string' then return {-1, t} end\n"
          + "  local max = tonumber(ARGV[1])\n"
          + "  local len = redis.call('STRLEN', KEYS[1])\n"
          + "  if len > max then return {-2, len} end\n"
          + "  local tail = tonumber(ARGV[6]) % 8\n"
          + "  if len == max and tail ~= 0 then\n"
          + "    local last = string.byte(redis.call('GETRANGE', KEYS[1], max - 1, max - 1))\n"
          // Redis numbers bits from the most significant: bits tail..7 of the last byte are
          // past the end, the low 8 - tail bits.
          + "    if bit.band(last, 2 ^ (8 - tail) - 1) ~= 0 then return {-4} end\n"
          + "  end\n"
          + "  redis.call('SET', KEYS[3], ARGV[4])\n"
          + "  redis.call('BITOP', 'OR', KEYS[1], KEYS[1], KEYS[3])\n"
          + "  redis.call('DEL', KEYS[3])\n"
          + "else\n"
          + "  redis.call('SET', KEYS[1], ARGV[4])\n"
          + "end\n"
          + "if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end\n"
          + "return {1}\n";

  /**
   * Creates the marker (KEYS[1]) with the new generation ARGV[1], without expiry, if it is
   * missing; returns the generation it holds.
   */
  static final String MARK =
      "local g = redis.call('GET', KEYS[1])\n"
          + "if g then return g end\n"
          + "redis.call('SET', KEYS[1], ARGV[1])\n"
          + "return ARGV[1]\n";

  static final String WRITE_SHA = sha1(WRITE);
  static final String CHECK_SHA = sha1(CHECK);
  static final String STORE_SHA = sha1(STORE);

  private RedisScripts() {}

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
