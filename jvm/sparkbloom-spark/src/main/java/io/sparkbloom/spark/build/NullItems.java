package io.sparkbloom.spark.build;

import java.util.Arrays;
import java.util.Objects;

/**
 * The null policy of {@code PerKeyFilters}, in one place: a null item or a null element of an
 * item array is no item (skipped when building, dropped from candidates); a null item array is
 * empty when building; null candidates stay null; a null filter is no filter.
 */
public final class NullItems {
  private NullItems() {}

  private static final long[] NO_LONGS = new long[0];
  private static final String[] NO_STRINGS = new String[0];

  /** {@code items}, or an empty array for null. */
  public static long[] orEmpty(long[] items) {
    return items == null ? NO_LONGS : items;
  }

  /** {@code items} without its null elements (itself if it has none); empty for null. */
  public static String[] withoutNulls(String[] items) {
    if (items == null) {
      return NO_STRINGS;
    }
    for (String s : items) {
      if (s == null) {
        return Arrays.stream(items).filter(Objects::nonNull).toArray(String[]::new);
      }
    }
    return items;
  }
}
