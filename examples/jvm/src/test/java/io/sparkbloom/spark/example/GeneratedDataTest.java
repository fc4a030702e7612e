package io.sparkbloom.spark.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The example's data generator equals one sequential Random, per user computed by a jump. */
class GeneratedDataTest {
  @Test
  void historyEqualsOneSequentialRandom() {
    // one Random(666), 200 nextLong() per user in user order
    Random r = new Random(666);
    for (int user = 0; user < 50; user++) {
      long[] expected = new long[200];
      for (int i = 0; i < expected.length; i++) {
        expected[i] = r.nextLong();
      }
      assertArrayEquals(expected, GeneratedData.history(666, user, 200), "user " + user);
    }
    Random r2 = new Random(666);
    for (long i = 0; i < 2L * 37 * 12_345; i++) {
      r2.nextInt();
    }
    assertEquals(r2.nextLong(), GeneratedData.history(666, 12_345, 37)[0]);
  }

  @Test
  void candidatesAreTheRequestedMix() {
    long[] history = GeneratedData.history(666, 3, 200);
    Set<Long> seen = new HashSet<>();
    Arrays.stream(history).forEach(seen::add);
    long[] c = GeneratedData.candidates(1, "3", history, 1000, 0.3);
    assertEquals(1000, c.length);
    assertEquals(300, Arrays.stream(c).filter(seen::contains).count());
    assertArrayEquals(c, GeneratedData.candidates(1, "3", history, 1000, 0.3));
  }
}
