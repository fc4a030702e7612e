package io.sparkbloom.redis;

/**
 * The server has lost the filters this client expects: the layout's marker key ({@link
 * RedisBloom#markerKey()}), created by the first {@link RedisBloom#store store} or {@code
 * RedisPush} into a server without it, is gone, or, for a store, was created again since the
 * client saw it. Redis was restarted without persistence, flushed, or evicted keys. Every
 * per-user key may be missing, and a missing key reads as "nothing seen", so no answer is given
 * and no filter stored. React by rebuilding the filters (re-run the push; it creates the marker
 * again) or, to go on with what is left, by {@link RedisBloom#markPresent()}.
 */
public class FiltersMissingException extends RedisBloomException {
  private static final long serialVersionUID = 1L;

  private final String markerKey;

  /** The missing {@code markerKey}; the message names the server, the operation and the key. */
  public FiltersMissingException(String markerKey, String message) {
    super(message, null);
    this.markerKey = markerKey;
  }

  /** The marker key that was not found. */
  public String markerKey() {
    return markerKey;
  }
}
