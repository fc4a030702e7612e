package io.sparkbloom.spark.example;

import java.util.Arrays;
import java.util.Random;

/**
 * The example's data: the users' browsing history exactly as one sequential generator makes it
 * (one {@link java.util.Random} (or {@code scala.util.Random}) seeded once, {@code recordNum}
 * {@code nextLong()} per user in user order, user ids {@code "0"}, {@code "1"}, ...), but
 * computed per user inside Spark tasks: the generator state of user {@code u} is reached by
 * jumping the 48-bit LCG ahead by {@code 2 * recordNum * u} steps, so no driver ever holds the
 * whole data set.
 *
 * <p>Candidates (the new recommendations to dedup) are a known mix: {@code round(candidates *
 * seenFraction)} items drawn from the user's own history (seen; drawn with replacement) and the
 * rest fresh random longs that are not in the history (unseen), shuffled, from a per-user seeded
 * generator.
 */
public final class GeneratedData {
  private GeneratedData() {}

  private static final long MULTIPLIER = 0x5DEECE66DL;
  private static final long ADDEND = 0xBL;
  private static final long MASK = (1L << 48) - 1;

  /**
   * The records of user {@code user}: the {@code recordsPerUser} longs after the first {@code
   * recordsPerUser * user} of {@code new Random(seed)}.
   */
  public static long[] history(long seed, int user, int recordsPerUser) {
    Random r = randomAfter(seed, 2L * recordsPerUser * user);
    long[] out = new long[recordsPerUser];
    for (int i = 0; i < recordsPerUser; i++) {
      out[i] = r.nextLong();
    }
    return out;
  }

  /**
   * A {@link Random} in the state that {@code new Random(seed)} reaches after {@code steps} calls of
   * {@code next(int)} ({@code nextLong()} makes two).
   */
  static Random randomAfter(long seed, long steps) {
    long state = (seed ^ MULTIPLIER) & MASK;
    // compose the affine step x -> a*x + c with itself 'steps' times (mod 2^48)
    long a = 1;
    long c = 0;
    long baseA = MULTIPLIER;
    long baseC = ADDEND;
    long k = steps;
    while (k > 0) {
      if ((k & 1) != 0) {
        a = (baseA * a) & MASK;
        c = (baseA * c + baseC) & MASK;
      }
      baseC = (baseA * baseC + baseC) & MASK;
      baseA = (baseA * baseA) & MASK;
      k >>>= 1;
    }
    state = (a * state + c) & MASK;
    Random r = new Random();
    r.setSeed(state ^ MULTIPLIER); // setSeed scrambles with the multiplier; this undoes it
    return r;
  }

  /**
   * New candidates for one user: {@code numSeen} items from {@code history} and the rest unseen
   * (not in {@code history}), shuffled. Deterministic in (seed, user key).
   */
  public static long[] candidates(long seed, String user, long[] history, int count, double seenFraction) {
    int numSeen = history.length == 0 ? 0 : (int) Math.round(count * seenFraction);
    numSeen = Math.min(numSeen, count);
    Random r = new Random(seed * 0x9E3779B97F4A7C15L + user.hashCode() * 1_000_003L + 17);
    long[] sorted = history.clone();
    Arrays.sort(sorted);
    long[] out = new long[count];
    for (int i = 0; i < numSeen; i++) {
      out[i] = history[r.nextInt(history.length)];
    }
    for (int i = numSeen; i < count; i++) {
      long v;
      do {
        v = r.nextLong();
      } while (Arrays.binarySearch(sorted, v) >= 0);
      out[i] = v;
    }
    for (int i = count - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      long t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
    return out;
  }
}
