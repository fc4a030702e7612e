package io.sparkbloom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisBitmaps#guavaHash128}, the hash clients such as the Redis module compute offsets
 * from, is real Guava's {@code Hashing.murmur3_128()} for longs and for byte strings of every
 * tail length.
 */
class GuavaHash128Test {

  private static long[] halves(HashCode code) {
    ByteBuffer b = ByteBuffer.wrap(code.asBytes()).order(ByteOrder.LITTLE_ENDIAN);
    return new long[] {b.getLong(), b.getLong()};
  }

  @Test
  void longsHashAsGuavasLongFunnel() {
    SplittableRandom random = new SplittableRandom(11);
    long[] out = new long[2];
    for (int i = 0; i < 10_000; i++) {
      long key = i < 3 ? i - 1 : random.nextLong();
      RedisBitmaps.guavaHash128(key, out);
      long[] guava = halves(Hashing.murmur3_128().hashLong(key));
      assertEquals(guava[0], out[0], "h1 of " + key);
      assertEquals(guava[1], out[1], "h2 of " + key);
    }
  }

  @Test
  void byteStringsOfEveryTailLengthHashAsGuavasBytes() {
    SplittableRandom random = new SplittableRandom(12);
    long[] out = new long[2];
    for (int length = 0; length <= 70; length++) {
      for (int trial = 0; trial < 50; trial++) {
        byte[] key = new byte[length];
        for (int i = 0; i < length; i++) {
          key[i] = (byte) random.nextInt(256);
        }
        RedisBitmaps.guavaHash128(key, out);
        long[] guava = halves(Hashing.murmur3_128().hashBytes(key));
        assertEquals(guava[0], out[0], "h1, length " + length);
        assertEquals(guava[1], out[1], "h2, length " + length);
      }
    }
    assertThrows(NullPointerException.class, () -> RedisBitmaps.guavaHash128((byte[]) null, out));
  }
}
