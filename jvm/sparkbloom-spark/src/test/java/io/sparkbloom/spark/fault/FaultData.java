package io.sparkbloom.spark.fault;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The fault test's data, a pure function of the user number: a task that is run again after an
 * executor died regenerates exactly the records it lost, and the driver computes the exact
 * answer from the same functions.
 *
 * <p>User {@code u} ({@code 0 <= u < users}) has 20 to 199 history items from a small item
 * space (so users share items) and {@value #CANDIDATES} candidates: about half of them from
 * its history, the rest drawn from the whole space (some of those are in its history too).
 * Every tenth user has no history: its candidates must all be kept.
 */
final class FaultData {
  private FaultData() {}

  static final int CANDIDATES = 60;
  private static final long ITEM_SPACE = 2_000_000;

  static String user(int u) {
    return "user-" + u;
  }

  static boolean hasHistory(int u) {
    return u % 10 != 7;
  }

  static long[] history(int u) {
    if (!hasHistory(u)) {
      return new long[0];
    }
    long[] state = {mix(0x5EED_0001L ^ u)};
    long[] items = new long[20 + (int) Long.remainderUnsigned(next(state), 180)];
    for (int i = 0; i < items.length; i++) {
      items[i] = Long.remainderUnsigned(next(state), ITEM_SPACE);
    }
    return items;
  }

  static long[] candidates(int u) {
    long[] history = history(u);
    long[] state = {mix(0xCA4D_0002L ^ u)};
    long[] items = new long[CANDIDATES];
    for (int i = 0; i < items.length; i++) {
      long r = next(state);
      items[i] = history.length > 0 && (r & 1) == 0
          ? history[(int) Long.remainderUnsigned(r >>> 1, history.length)]
          : Long.remainderUnsigned(r >>> 1, ITEM_SPACE);
    }
    return items;
  }

  /** The exact dedup: the candidates not in the history, in order. */
  static long[] exactUnseen(int u) {
    Set<Long> seen = new HashSet<>();
    for (long v : history(u)) {
      seen.add(v);
    }
    return Arrays.stream(candidates(u)).filter(v -> !seen.contains(v)).toArray();
  }

  static List<Integer> users(int users) {
    List<Integer> out = new ArrayList<>(users);
    for (int u = 0; u < users; u++) {
      out.add(u);
    }
    return out;
  }

  private static long next(long[] state) {
    return mix(state[0] += 0x9E3779B97F4A7C15L);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
