package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@code putAll / mightContainAll / retainAbsent} over {@code String[]} and {@code byte[][]}:
 * the same bits and answers as one call per key, for every strategy, across the native side's
 * local-reference frames (1024 keys each).
 */
class StringBatchTest {
  static final int KEYS = 20_000;

  static String[] strings(long seed, int count) {
    SplittableRandom r = new SplittableRandom(seed);
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      StringBuilder s = new StringBuilder();
      for (int j = 0, n = r.nextInt(40); j < n; j++) {
        s.appendCodePoint(r.nextBoolean() ? 0x20 + r.nextInt(0x5f) : 0x80 + r.nextInt(0x1ff80));
      }
      out[i] = s.toString();
    }
    return out;
  }

  @Test
  void batchesEqualOneCallPerKeyForEveryStrategy() {
    for (Strategy strategy : Strategy.values()) {
      String[] put = strings(1, KEYS);
      String[] probe = strings(2, 3 * KEYS);
      try (BloomFilter batched = BloomFilter.create(KEYS, 0.01, strategy);
          BloomFilter single = BloomFilter.create(KEYS, 0.01, strategy)) {
        assertTrue(batched.putAll(put));
        for (String s : put) {
          single.put(s);
        }
        assertEquals(single, batched, strategy.toString());
        assertFalse(batched.putAll(put), "nothing changes the second time");

        boolean[] answers = batched.mightContainAll(probe);
        List<String> absent = new ArrayList<>();
        int positives = 0;
        for (int i = 0; i < probe.length; i++) {
          assertEquals(single.mightContain(probe[i]), answers[i], strategy + " key " + i);
          if (!answers[i]) {
            absent.add(probe[i]);
          } else {
            positives++;
          }
        }
        assertTrue(positives > 0 && positives < probe.length / 10, strategy + ": " + positives);
        assertArrayEquals(absent.toArray(new String[0]), batched.retainAbsent(probe));
        for (boolean present : batched.mightContainAll(put)) {
          assertTrue(present, "no false negative");
        }

        byte[][] bytes = new byte[probe.length][];
        for (int i = 0; i < probe.length; i++) {
          bytes[i] = probe[i].getBytes(StandardCharsets.UTF_8);
        }
        assertArrayEquals(answers, batched.mightContainAll(bytes), "byte[][] = UTF-8 String[]");
        assertEquals(absent.size(), batched.retainAbsent(bytes).length);
      }
    }
  }

  @Test
  void emptyAndNullInputs() {
    try (BloomFilter f = BloomFilter.create(100)) {
      assertFalse(f.putAll(new byte[0][]));
      assertEquals(0, f.mightContainAll(new String[0]).length);
      assertThrows(NullPointerException.class, () -> f.putAll((String[]) null));
      assertThrows(NullPointerException.class, () -> f.putAll(new String[] {"a", null}));
      NullPointerException e =
          assertThrows(NullPointerException.class, () -> f.putAll(new byte[][] {{1}, null}));
      assertTrue(e.getMessage().contains("keys[1]"), e.getMessage());
      assertThrows(NullPointerException.class, () -> f.mightContainAll(new byte[][] {null}));
      // Empty keys are keys too, hashed as put(new byte[0]).
      try (BloomFilter g = BloomFilter.create(100)) {
        g.put(new byte[0]);
        assertTrue(f.putAll(new byte[][] {{}, {}}));
        assertEquals(g, f);
      }
    }
  }
}
