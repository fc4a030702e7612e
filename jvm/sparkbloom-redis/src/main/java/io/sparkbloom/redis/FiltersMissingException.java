package io.sparkbloom.redis;

/**
 * The server has lost the filters this client expects: the layout's marker key ({@link
 * RedisBloom#markerKey()}), written by every {@link RedisBloom#store store} and {@code
 * RedisPush}, is gone. Redis was restarted without persistence, flushed, or evicted keys. Every
 * per-user key may be missing, and a missing key reads as "nothing seen", so no answer is given.
 * React by rebuilding the filters (re-run the push; it writes the marker again) or, to go on
 * with what is left, by {@link RedisBloom#markPresent()}.
 */
public class FiltersMissingException extends RedisBloomException {
  private static final long serialVersionUID = 1L;

  private final String markerKey;

  /**
   * @param markerKey the missing marker key
   * @param message what is missing, naming the server, the operation and the marker key
   */
  public FiltersMissingException(String markerKey, String message) {
    super(message, null);
    this.markerKey = markerKey;
  }

  /** @return the marker key that was not found */
  public String markerKey() {
    return markerKey;
  }
}
