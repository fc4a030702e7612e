package io.sparkbloom;

import java.lang.reflect.Array;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Key arguments as the natives take them, checked the same way by every filter method. */
final class KeyArgs {
  private KeyArgs() {}

  /** A string key as its UTF-8 bytes (Guava's {@code Funnels.stringFunnel(UTF_8)}). */
  static byte[] utf8(String key) {
    Objects.requireNonNull(key, "key is null");
    return key.getBytes(StandardCharsets.UTF_8);
  }

  /** Checks that {@code keys[from..to)} is a slice of the array {@code keys}. */
  static void checkSlice(Object keys, int from, int to) {
    int length = Array.getLength(Objects.requireNonNull(keys, "keys is null"));
    if (from > to) {
      throw new IllegalArgumentException("invalid slice of keys: from " + from + " > to " + to);
    }
    if (from < 0 || to > length) {
      throw new IndexOutOfBoundsException(
          "invalid slice of keys: [" + from + ", " + to + ") is not within an array of length "
              + length);
    }
  }

  /** The keys whose {@code present} is false, in order. */
  static <K> List<K> absent(K[] keys, boolean[] present) {
    List<K> out = new ArrayList<>();
    for (int i = 0; i < keys.length; i++) {
      if (!present[i]) {
        out.add(keys[i]);
      }
    }
    return out;
  }
}
