package io.sparkbloom.bench;

/**
 * The state of single-key queries: a filter holding n keys and two cursors, each cycling through
 * a pool of keys (hits: keys put; misses: keys never put).
 */
public abstract class Queried extends FilterState {
  private int nextHit;
  private int nextMiss;

  /** The index of the next of {@code count} hits: 0, 1, ..., count - 1, 0, ... */
  int nextHit(int count) {
    int i = nextHit == count ? 0 : nextHit;
    nextHit = i + 1;
    return i;
  }

  /** The index of the next of {@code count} misses, as {@link #nextHit}. */
  int nextMiss(int count) {
    int i = nextMiss == count ? 0 : nextMiss;
    nextMiss = i + 1;
    return i;
  }
}
