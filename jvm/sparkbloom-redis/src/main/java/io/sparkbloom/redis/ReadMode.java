package io.sparkbloom.redis;

/**
 * How {@link RedisBloom} reads a filter's bits for a check ({@code scripts/bench-redis.sh}
 * compares them; {@link #AUTO} is the default, the others are pinned by tests and benchmarks).
 */
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
