package io.sparkbloom.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.hash.Funnel;
import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;
import io.sparkbloom.BloomFilter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;

/**
 * {@link RedisLayout#helperCompatible} against an independent implementation of the widely copied
 * "BloomFilterHelper" written here with real Guava ({@code Hashing.murmur3_128}), on a real
 * redis-server: the helper's raw {@code SETBIT}/{@code GETBIT} and {@link RedisBloom} see the
 * same bits, in both directions, for long, string and byte-array items.
 */
class HelperCompatibilityTest {
  @RegisterExtension static final ServerPerClass server = new ServerPerClass();
  private static RedisBloom client;
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(10_000, 0.001);

  /** The helper as services run it: its sizing and offsets, and one SETBIT/GETBIT per offset. */
  static final class Helper<T> {
    final int bitSize;
    final int numHashFunctions;
    final Funnel<? super T> funnel;

    Helper(long expectedInsertions, double fpp, Funnel<? super T> funnel) {
      this.bitSize = (int) (-expectedInsertions * Math.log(fpp) / (Math.log(2) * Math.log(2)));
      this.numHashFunctions = Math.max(1, (int) Math.round((double) bitSize / expectedInsertions * Math.log(2)));
      this.funnel = funnel;
    }

    int[] offsets(T value) {
      int[] offset = new int[numHashFunctions];
      long hash64 = Hashing.murmur3_128().hashObject(value, funnel).asLong();
      int hash1 = (int) hash64;
      int hash2 = (int) (hash64 >>> 32);
      for (int i = 1; i <= numHashFunctions; i++) {
        int nextHash = hash1 + i * hash2;
        if (nextHash < 0) {
          nextHash = ~nextHash;
        }
        offset[i - 1] = nextHash % bitSize;
      }
      return offset;
    }

    void put(Jedis jedis, String key, T value) {
      for (int o : offsets(value)) {
        jedis.setbit(key, o, true);
      }
    }

    boolean mightContain(Jedis jedis, String key, T value) {
      for (int o : offsets(value)) {
        if (!jedis.getbit(key, o)) {
          return false;
        }
      }
      return true;
    }
  }

  @BeforeAll
  static void connect() {
    client = RedisBloom.connect(server.uri(), LAYOUT);
  }

  @AfterAll
  static void disconnect() {
    client.close();
  }

  @Test
  void sizingIsTheHelpers() {
    assertEquals(143_775, LAYOUT.bitSize());
    assertEquals(10, LAYOUT.numHashFunctions());
    assertEquals(17_972, LAYOUT.bitmapBytes());
    for (long n : new long[] {1, 7, 100, 1_000, 10_000, 123_457, 10_000_000}) {
      for (double p : new double[] {0.5, 0.1, 0.03, 0.01, 0.001, 1e-6}) {
        Helper<Long> helper = new Helper<>(n, p, Funnels.longFunnel());
        if (helper.bitSize == 0) {
          continue;
        }
        RedisLayout layout = RedisLayout.helperCompatible(n, p);
        assertEquals(helper.bitSize, layout.bitSize(), n + ", " + p);
        assertEquals(helper.numHashFunctions, layout.numHashFunctions(), n + ", " + p);
      }
    }
  }

  /**
   * Where the helper's int arithmetic breaks (its m saturates at Integer.MAX_VALUE and k follows
   * the saturated m) the layout is refused, naming the limit; just under it the sizing is still
   * the helper's.
   */
  @Test
  void sizesPastTheHelpersIntArithmeticAreRefused() {
    for (long n : new long[] {1_000_000_000L, 10_000_000_000L}) {
      Helper<Long> broken = new Helper<>(n, 0.001, Funnels.longFunnel());
      assertEquals(Integer.MAX_VALUE, broken.bitSize, "the helper's own cast saturates");
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(n, 0.001));
      assertTrue(e.getMessage().contains("2147483647"), e.getMessage());
    }
    IllegalArgumentException m =
        assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(1_000_000_000L, 0.001));
    assertTrue(m.getMessage().contains("14377587566 bits") && m.getMessage().contains("Integer.MAX_VALUE"), m.getMessage());
    // m = 2^31 exactly at n = 2^31 · ln²2 / ln(1/fpp): the first n past it is refused.
    java.util.function.LongPredicate fits =
        n -> -n * Math.log(0.01) / (Math.log(2) * Math.log(2)) < RedisLayout.HELPER_MAX_BITS + 1.0;
    long start = (long) ((RedisLayout.HELPER_MAX_BITS + 1.0) * Math.log(2) * Math.log(2) / -Math.log(0.01));
    long fitting = start;
    while (!fits.test(fitting)) {
      fitting--;
    }
    while (fits.test(fitting + 1)) {
      fitting++;
    }
    long lastFitting = fitting;
    Helper<Long> helper = new Helper<>(lastFitting, 0.01, Funnels.longFunnel());
    RedisLayout layout = RedisLayout.helperCompatible(lastFitting, 0.01);
    assertEquals(helper.bitSize, layout.bitSize());
    assertEquals(helper.numHashFunctions, layout.numHashFunctions());
    assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(lastFitting + 1, 0.01));
    // The helper takes n as an int.
    IllegalArgumentException n =
        assertThrows(IllegalArgumentException.class, () -> RedisLayout.helperCompatible(1L << 31, 0.9));
    assertTrue(n.getMessage().contains("expectedInsertions") && n.getMessage().contains("2147483647"), n.getMessage());
  }

  /** Every offset of every item, for many shapes: the layout's offsets are the helper's. */
  @Test
  void offsetsAreTheHelpers() {
    SplittableRandom random = new SplittableRandom(12);
    int checked = 0;
    for (long n : new long[] {1, 100, 10_000, 1_000_000}) {
      for (double p : new double[] {0.1, 0.01, 0.001}) {
        RedisLayout layout = RedisLayout.helperCompatible(n, p);
        Helper<Long> longs = new Helper<>(n, p, Funnels.longFunnel());
        Helper<CharSequence> strings = new Helper<>(n, p, Funnels.stringFunnel(StandardCharsets.UTF_8));
        Helper<byte[]> bytes = new Helper<>(n, p, Funnels.byteArrayFunnel());
        for (int i = 0; i < 2_000; i++) {
          long item = random.nextLong();
          assertArrayEquals(toLong(longs.offsets(item)), layout.offsets(item));
          String s = "item-" + item + (i % 3 == 0 ? "-héllo-日本" : "");
          assertArrayEquals(toLong(strings.offsets(s)), layout.offsets(s));
          byte[] b = new byte[i % 40];
          random.nextBytes(b);
          assertArrayEquals(toLong(bytes.offsets(b)), layout.offsets(b));
          checked += 3 * layout.numHashFunctions();
        }
      }
    }
    System.out.println("helper offsets checked: " + checked);
    assertTrue(checked > 400_000, checked + " offsets");
  }

  /** RedisBloom's writes, read by the helper's raw GETBIT on every offset, and byte for byte. */
  @Test
  void redisBloomWritesTheHelpersBits() {
    Helper<Long> helper = new Helper<>(10_000, 0.001, Funnels.longFunnel());
    SplittableRandom random = new SplittableRandom(7);
    long[] items = random.longs(1_000).toArray();
    String key = "user:written-by-redisbloom";
    client.putAll(key, Arrays.copyOf(items, 500));
    for (int i = 500; i < 600; i++) {
      client.put(key, items[i]);
    }
    byte[] expected = new byte[(int) LAYOUT.bitmapBytes()];
    int maxByte = -1;
    int getbits = 0;
    try (Jedis jedis = server.raw()) {
      for (int i = 0; i < 600; i++) {
        for (int o : helper.offsets(items[i])) {
          assertTrue(jedis.getbit(key, o), "offset " + o + " of item " + i);
          getbits++;
          expected[o >>> 3] |= (byte) (0x80 >>> (o & 7));
          maxByte = Math.max(maxByte, o >>> 3);
        }
      }
      // The whole value is exactly what the helper's SETBITs would build.
      assertArrayEquals(Arrays.copyOf(expected, maxByte + 1), jedis.get(key.getBytes(StandardCharsets.UTF_8)));
      int helperAnswers = 0;
      for (int i = 600; i < 1_000; i++) {
        assertEquals(helper.mightContain(jedis, key, items[i]), client.mightContain(key, items[i]));
        helperAnswers++;
      }
      System.out.println("raw GETBITs on RedisBloom's key: " + getbits + "; answers compared: " + helperAnswers);
    }
    // An offline filter of the layout has the same bits.
    try (BloomFilter offline = LAYOUT.newFilter()) {
      offline.putAll(Arrays.copyOf(items, 600));
      assertArrayEquals(expected, offline.toRedisBitmap());
    }
  }

  /** Keys the helper filled with raw SETBIT are read by RedisBloom, in every read mode. */
  @Test
  void helperKeysAreFoundByRedisBloom() {
    Helper<Long> longs = new Helper<>(10_000, 0.001, Funnels.longFunnel());
    Helper<CharSequence> strings = new Helper<>(10_000, 0.001, Funnels.stringFunnel(StandardCharsets.UTF_8));
    Helper<byte[]> bytes = new Helper<>(10_000, 0.001, Funnels.byteArrayFunnel());
    SplittableRandom random = new SplittableRandom(99);
    long[] seen = random.longs(300).toArray();
    long[] candidates = random.longs(2_000).toArray();
    // Half the candidates were seen.
    for (int i = 0; i < candidates.length; i += 2) {
      candidates[i] = seen[i % seen.length];
    }
    try (Jedis jedis = server.raw()) {
      for (long item : seen) {
        longs.put(jedis, "helper:longs", item);
        strings.put(jedis, "helper:strings", "s" + item);
        bytes.put(jedis, "helper:bytes", Long.toString(item).getBytes(StandardCharsets.UTF_8));
      }
      List<Long> expected = new ArrayList<>();
      for (long c : candidates) {
        if (!longs.mightContain(jedis, "helper:longs", c)) {
          expected.add(c);
        }
      }
      long[] expectedArray = expected.stream().mapToLong(Long::longValue).toArray();
      assertTrue(expectedArray.length < candidates.length / 2 + 10 && expectedArray.length > candidates.length / 2 - 10);
      for (ReadMode mode : ReadMode.values()) {
        client.readMode(mode);
        try {
          assertArrayEquals(expectedArray, client.retainAbsent("helper:longs", candidates), mode.name());
          for (long item : seen) {
            assertTrue(client.mightContain("helper:longs", item), mode.name());
            assertTrue(client.mightContain("helper:strings", "s" + item), mode.name());
            assertTrue(client.mightContain("helper:bytes", Long.toString(item).getBytes(StandardCharsets.UTF_8)));
          }
          String[] stringCandidates = Arrays.stream(candidates).mapToObj(c -> "s" + c).toArray(String[]::new);
          String[] absentStrings = client.retainAbsent("helper:strings", stringCandidates);
          List<String> expectedStrings = new ArrayList<>();
          for (String s : stringCandidates) {
            if (!strings.mightContain(jedis, "helper:strings", s)) {
              expectedStrings.add(s);
            }
          }
          assertEquals(expectedStrings, Arrays.asList(absentStrings), mode.name());
        } finally {
          client.readMode(ReadMode.AUTO);
        }
      }
      // load() of the helper's key answers like the key.
      try (BloomFilter loaded = client.load("helper:longs")) {
        for (long c : candidates) {
          assertEquals(longs.mightContain(jedis, "helper:longs", c), loaded.mightContain(c));
        }
      }
      assertFalse(client.mightContain("helper:longs", candidates[1]) && expected.contains(candidates[1]));
    }
  }

  private static long[] toLong(int[] a) {
    return Arrays.stream(a).asLongStream().toArray();
  }
}
