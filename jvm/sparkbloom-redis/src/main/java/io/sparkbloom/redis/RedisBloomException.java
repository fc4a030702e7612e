package io.sparkbloom.redis;

/**
 * A Redis operation of {@link RedisBloom} failed: the server could not be reached, the
 * connection broke, authentication failed, or the server answered with an error. Nothing was
 * reported as done: a write that raised this may or may not have reached the server (Redis
 * writes here are idempotent: retrying is safe).
 */
public class RedisBloomException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** {@code message} names the server and the key; {@code cause} is the client's exception, if any. */
  public RedisBloomException(String message, Throwable cause) {
    super(message, cause);
  }
}
