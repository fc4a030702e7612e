package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnels;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
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

  /**
   * {@code count} keys in runs of one kind: 32 ASCII chars (whole batches of them take the
   * native side's narrowing and the eight-lane hash), ASCII of random lengths, and mixed
   * non-ASCII with non-BMP chars and unpaired surrogates (the full encoder).
   */
  static String[] oracleKeys(long seed, int count) {
    SplittableRandom r = new SplittableRandom(seed);
    String[] out = new String[count];
    for (int i = 0; i < count; i++) {
      int kind = (i / 4096) % 3;
      StringBuilder s = new StringBuilder();
      int len = kind == 0 ? 32 : r.nextInt(48);
      for (int j = 0; j < len; j++) {
        if (kind < 2 || r.nextInt(4) > 0) {
          s.append((char) (0x20 + r.nextInt(0x5f)));
        } else if (r.nextInt(8) == 0) {
          s.append((char) (0xd800 + r.nextInt(0x800))); // a lone surrogate: '?' in UTF-8
        } else {
          s.appendCodePoint(0x80 + r.nextInt(0x10ff80 - 0x800 * 2) % 0x10ff80);
        }
      }
      out[i] = s.toString();
    }
    return out;
  }

  /**
   * 10^6 keys put in batches of 4096 (and probed with 10^6 others) against real Guava's {@code
   * stringFunnel(UTF_8)} filter, one key at a time: the same bytes in Guava's stream and the same
   * answer for every probe, for {@code String[]} and for {@code byte[][]} of the UTF-8 bytes.
   */
  @Test
  void batchesAnswerAsGuavaOnAMillionKeys() throws IOException {
    int n = 1_000_000;
    String[] put = oracleKeys(11, n);
    String[] probe = oracleKeys(12, n);
    com.google.common.hash.BloomFilter<CharSequence> guava =
        com.google.common.hash.BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), n, 0.01);
    try (BloomFilter strings = BloomFilter.create(n, 0.01);
        BloomFilter bytes = BloomFilter.create(n, 0.01)) {
      for (int from = 0; from < n; from += 4096) {
        String[] batch = java.util.Arrays.copyOfRange(put, from, Math.min(n, from + 4096));
        strings.putAll(batch);
        bytes.putAll(utf8(batch));
      }
      for (String s : put) {
        guava.put(s);
      }
      ByteArrayOutputStream guavaBytes = new ByteArrayOutputStream();
      guava.writeTo(guavaBytes);
      assertArrayEquals(guavaBytes.toByteArray(), strings.toGuavaByteArray(), "String[] batches");
      assertArrayEquals(guavaBytes.toByteArray(), bytes.toGuavaByteArray(), "byte[][] batches");
      java.util.Set<String> wasPut = new java.util.HashSet<>(java.util.Arrays.asList(put));
      int positives = 0;
      int neverPut = 0;
      for (int from = 0; from < n; from += 4096) {
        String[] batch = java.util.Arrays.copyOfRange(probe, from, Math.min(n, from + 4096));
        boolean[] answers = strings.mightContainAll(batch);
        assertArrayEquals(answers, bytes.mightContainAll(utf8(batch)));
        for (int i = 0; i < batch.length; i++) {
          assertEquals(guava.mightContain(batch[i]), answers[i], "probe " + (from + i));
          if (!wasPut.contains(batch[i])) {
            neverPut++;
            positives += answers[i] ? 1 : 0;
          }
        }
      }
      // About 1 % of the (short keys aside, all) never-put probes: an all-true answer fails.
      double rate = positives / (double) neverPut;
      assertTrue(neverPut > 900_000 && rate > 0.005 && rate < 0.02, positives + " / " + neverPut);
    }
  }

  static byte[][] utf8(String[] keys) {
    byte[][] out = new byte[keys.length][];
    for (int i = 0; i < keys.length; i++) {
      out[i] = keys[i].getBytes(StandardCharsets.UTF_8);
    }
    return out;
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

  /**
   * String batches cross as UTF-16 and are encoded to UTF-8 on the native side: every shape of
   * surrogate (paired, unpaired high or low, reversed, at either end of a key, split across two
   * keys) must give exactly the bytes of Java's own {@code getBytes(UTF_8)}, one key at a time.
   */
  @Test
  void batchesEncodeSurrogatesAsJavaDoes() {
    String[] keys = {
      "", "a", "\u00e9", "\u07ff", "\u0800", "\uffff", "\ud83d\ude00", "\ud800", "\udc00",
      "a\ud800", "\ud800a", "\udc00\ud800", "\ud800\ud800\udc00", "x\udbff", "\udbff", "\udfff",
      "\ud83d", "\ude00", "caf\u00e9 \u65e5\u672c \ud83d\ude00 \ud800!", "?", "??"
    };
    // plus many random chars, surrogates over-represented
    SplittableRandom r = new SplittableRandom(7);
    String[] all = java.util.Arrays.copyOf(keys, keys.length + 5_000);
    for (int i = keys.length; i < all.length; i++) {
      char[] c = new char[r.nextInt(9)];
      for (int j = 0; j < c.length; j++) {
        c[j] = (char) (r.nextBoolean() ? 0xd800 + r.nextInt(0x800) : r.nextInt(0x10000));
      }
      all[i] = new String(c);
    }
    for (String[] batch : new String[][] {keys, all}) {
      try (BloomFilter batched = BloomFilter.create(batch.length, 0.001);
          BloomFilter single = BloomFilter.create(batch.length, 0.001)) {
        batched.putAll(batch);
        for (String s : batch) {
          single.put(s.getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(single, batched);
        // each key alone: its bits are exactly those of Java's UTF-8 bytes
        for (String s : keys) {
          try (BloomFilter one = BloomFilter.create(10, 0.001);
              BloomFilter bytes = BloomFilter.create(10, 0.001)) {
            one.putAll(new String[] {s});
            bytes.put(s.getBytes(StandardCharsets.UTF_8));
            assertEquals(bytes, one, () -> "key " + java.util.Arrays.toString(s.chars().toArray()));
            assertArrayEquals(new boolean[] {true}, bytes.mightContainAll(new String[] {s}));
          }
        }
      }
    }
  }

  /**
   * The native fast paths, each against one call per key: runs of equal-length keys (hashed
   * sixteen or eight at a time in vector lanes) of every length class (empty, shorter than a
   * word, not a multiple of 8 or 16, several blocks), one odd-length key breaking a run, and one
   * non-ASCII char in the batch's last key (the ASCII narrowing must give up at its last chunk).
   * Each batch is put into a filter that already holds every third of its keys (dense puts query
   * first and set only the absent keys), then put again (nothing changes) and probed.
   */
  @Test
  void fastPathsEqualOneCallPerKey() {
    SplittableRandom r = new SplittableRandom(11);
    for (int len : new int[] {0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 36, 40, 64, 100}) {
      for (String variant : new String[] {"equal", "one longer", "non-ASCII last"}) {
        String[] batch = new String[4096];
        for (int i = 0; i < batch.length; i++) {
          char[] c = new char[len + (variant.equals("one longer") && i == 2049 ? 1 : 0)];
          for (int j = 0; j < c.length; j++) {
            c[j] = (char) ('a' + r.nextInt(26));
          }
          batch[i] = new String(c);
        }
        if (variant.equals("non-ASCII last")) {
          batch[batch.length - 1] = batch[batch.length - 1] + "é";
        }
        String what = len + " chars, " + variant;
        try (BloomFilter batched = BloomFilter.create(10_000, 0.01);
            BloomFilter single = BloomFilter.create(10_000, 0.01)) {
          for (int i = 0; i < batch.length; i += 3) {
            batched.put(batch[i]);
            single.put(batch[i]);
          }
          boolean anyNew = false;
          for (String s : batch) {
            anyNew |= single.put(s);
          }
          assertEquals(anyNew, batched.putAll(batch), what);
          assertEquals(single, batched, what);
          assertFalse(batched.putAll(batch), what + ": nothing changes the second time");
          String[] probe = strings(len, 4096);
          boolean[] answers = batched.mightContainAll(probe);
          for (int i = 0; i < probe.length; i++) {
            assertEquals(single.mightContain(probe[i]), answers[i], what + ", probe " + i);
          }
          for (boolean present : batched.mightContainAll(batch)) {
            assertTrue(present, what + ": no false negative");
          }
        }
      }
    }
  }

  /**
   * Batches whose chars outgrow this thread's reused buffer chunk by chunk ({@code PackedChars}
   * grows it as it packs): one of more than {@code REUSED_CHARS} chars (not kept), then small ones
   * that reuse the buffer, each answering as one call per key.
   */
  @Test
  void batchesBeyondTheReusedBufferPackEveryKey() {
    SplittableRandom r = new SplittableRandom(5);
    String[] large = new String[PackedChars.REUSED_CHARS / 20];
    for (int i = 0; i < large.length; i++) {
      char[] c = new char[r.nextInt(45)];
      for (int j = 0; j < c.length; j++) {
        c[j] = (char) ('a' + r.nextInt(26));
      }
      large[i] = new String(c);
    }
    long chars = 0;
    for (String s : large) {
      chars += s.length();
    }
    assertTrue(chars > PackedChars.REUSED_CHARS, "the batch outgrows the reused buffer");
    try (BloomFilter batched = BloomFilter.create(large.length, 0.01);
        BloomFilter single = BloomFilter.create(large.length, 0.01)) {
      String[] small = strings(9, 300);
      batched.putAll(small);
      batched.putAll(large);
      for (String s : small) {
        single.put(s);
      }
      for (String s : large) {
        single.put(s);
      }
      assertEquals(single, batched);
      for (String[] batch : new String[][] {large, small, strings(10, 5000)}) {
        boolean[] answers = batched.mightContainAll(batch);
        for (int i = 0; i < batch.length; i++) {
          assertEquals(single.mightContain(batch[i]), answers[i], "key " + i);
        }
      }
    }
  }

  /**
   * The packed batches' end offsets are built by {@code PackedChars} / {@code PackedKeys}, but the
   * native side checks them anyway: falling, negative or past the data is an {@code
   * IllegalArgumentException} naming the first bad end, never a read outside the arrays.
   */
  @Test
  void malformedEndsAreIllegalArguments() {
    long handle = NativeFilter.nCreate(NativeFilter.PLAIN, 1_000, 0.01, Strategy.MURMUR128_MITZ_64.ordinal());
    try {
      char[] chars = "abcdefgh".toCharArray();
      byte[] bytes = "abcdefgh".getBytes(StandardCharsets.US_ASCII);
      int[][] bad = {{-1}, {3, 2}, {9}, {2, 4, 4, 9}, {0, 0, -5}};
      String[] firstBad = {"ends[0] = -1", "ends[1] = 2", "ends[0] = 9", "ends[3] = 9", "ends[2] = -5"};
      for (int i = 0; i < bad.length; i++) {
        int[] ends = bad[i];
        for (Runnable call :
            new Runnable[] {
              () -> BloomFilterNative.nPutAllUtf16(handle, chars, ends),
              () -> BloomFilterNative.nMightContainAllUtf16(
                  handle, chars, ends, new boolean[ends.length]),
              () -> BloomFilterNative.nPutAllPacked(handle, bytes, ends),
              () -> BloomFilterNative.nMightContainAllPacked(
                  handle, bytes, ends, new boolean[ends.length])
            }) {
          IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
          assertTrue(e.getMessage().contains(firstBad[i]), e.getMessage());
        }
      }
      // Rising within the data (ending before its end, empty keys) is fine.
      assertTrue(BloomFilterNative.nPutAllUtf16(handle, chars, new int[] {0, 3, 3, 7}));
      boolean[] out = new boolean[4];
      BloomFilterNative.nMightContainAllPacked(handle, bytes, new int[] {0, 3, 3, 7}, out);
      assertArrayEquals(new boolean[] {true, true, true, true}, out);
    } finally {
      NativeFilter.nFree(NativeFilter.PLAIN, handle);
    }
  }
}
