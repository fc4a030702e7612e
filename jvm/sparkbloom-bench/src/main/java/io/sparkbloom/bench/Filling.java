package io.sparkbloom.bench;

/**
 * The state of puts: an empty filter of one implementation and shape, for long or String keys,
 * replaced by an empty one each time the puts have gone through the pool of keys
 * ({@link #nextKey}), so they land in a filter that is filling up.
 */
public abstract class Filling extends FilterState {
  private String impl;
  private Shape shape;
  private boolean stringKeys;
  private int next;

  /** The first empty filter. */
  void start(String impl, Shape shape, boolean stringKeys) {
    this.impl = impl;
    this.shape = shape;
    this.stringKeys = stringKeys;
    filter = Impl.create(impl, shape, stringKeys);
  }

  /** Closes the filter and starts over in an empty one. */
  private void restart() {
    filter.close();
    filter = Impl.create(impl, shape, stringKeys);
  }

  /**
   * Where the next {@code keys} keys to put start in a pool of {@code pool} keys (a multiple of
   * {@code keys}): 0, keys, 2 keys, ..., then 0 again in a new filter ({@link #filter} is read
   * after this call).
   */
  int nextFrom(int pool, int keys) {
    if (next == pool) {
      restart();
      next = 0;
    }
    int from = next;
    next += keys;
    return from;
  }
}
