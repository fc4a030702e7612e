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

  /** {@code keys[i]}, which must not be null. */
  static <K> K element(K[] keys, int i) {
    if (keys[i] == null) {
      throw new NullPointerException("keys[" + i + "] is null");
    }
    return keys[i];
  }

  /**
   * The end offset in a packed batch of its key {@code index}, after which the keys hold {@code
   * total} {@code units}: refused past the largest Java array.
   */
  static int packedEnd(long total, int index, String units) {
    if (total > FramedReader.MAX_ARRAY_LENGTH) {
      throw new IllegalArgumentException("keys: the first " + (index + 1) + " keys hold more than "
          + FramedReader.MAX_ARRAY_LENGTH + " " + units + "; pass them in smaller batches");
    }
    return (int) total;
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
