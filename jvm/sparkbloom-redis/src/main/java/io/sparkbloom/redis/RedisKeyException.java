package io.sparkbloom.redis;

/**
 * A key does not hold a filter of the client's {@link RedisLayout}: it holds another Redis type
 * (a list, a hash, ...), or a string longer than the layout's bitmap, or a bitmap with bits set
 * at or above the layout's bit count. The message names the key. Answers from such a key would
 * be wrong, so none are given.
 */
public class RedisKeyException extends RedisBloomException {
  private static final long serialVersionUID = 1L;

  private final String key;

  /** The offending {@code key}, and why, the message naming the key. */
  public RedisKeyException(String key, String message) {
    super(message, null);
    this.key = key;
  }

  /** The offending key. */
  public String key() {
    return key;
  }
}
