package io.sparkbloom.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/** Shared test plumbing: a local[2] session, seeded data and the exact set-based dedup oracle. */
final class SparkTests {
  private SparkTests() {}

  /** A local[2] session on 127.0.0.1 without UI; {@code conf} are extra key/value pairs. */
  static SparkSession session(String app, String... conf) {
    SparkSession.Builder b = SparkSession.builder()
        .master("local[2]")
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4");
    for (int i = 0; i + 1 < conf.length; i += 2) {
      b.config(conf[i], conf[i + 1]);
    }
    SparkSession spark = b.getOrCreate();
    // The module's test classes share one JVM, one after another (pom.xml): a context an earlier
    // class left running would be reused, with its settings instead of these.
    SparkConf made = spark.sparkContext().getConf();
    assertEquals(app, made.get("spark.app.name", null), "a SparkContext left running by another class");
    for (int i = 0; i + 1 < conf.length; i += 2) {
      assertEquals(conf[i + 1], made.get(conf[i], null), "the SparkContext's " + conf[i]);
    }
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }

  /** Kryo with sparkbloom's registrator, as {@link #session}'s key/value pairs. */
  static final String[] KRYO_WITH_REGISTRATOR = {
    "spark.serializer", "org.apache.spark.serializer.KryoSerializer",
    "spark.kryo.registrator", SparkBloomKryoRegistrator.class.getName()
  };

  /** (user, history) for users 0..users-1: random longs from one seeded generator. */
  static List<Tuple2<String, long[]>> history(int users, int records) {
    Random r = new Random(666);
    List<Tuple2<String, long[]>> out = new ArrayList<>(users);
    for (int u = 0; u < users; u++) {
      out.add(new Tuple2<>(Integer.toString(u), r.longs(records).toArray()));
    }
    return out;
  }

  /**
   * (user, candidates): half drawn from the user's history (seen), half random longs not in it
   * (unseen), from a generator seeded per user; plus users with no history (all unseen).
   */
  static List<Tuple2<String, long[]>> candidates(List<Tuple2<String, long[]>> history, int perUser,
      int extraUsersWithoutHistory) {
    List<Tuple2<String, long[]>> out = new ArrayList<>();
    for (Tuple2<String, long[]> h : history) {
      out.add(new Tuple2<>(h._1(), candidates(h._1(), h._2(), perUser)));
    }
    for (int i = 0; i < extraUsersWithoutHistory; i++) {
      String user = "new-" + i;
      out.add(new Tuple2<>(user, candidates(user, new long[0], perUser)));
    }
    return out;
  }

  private static long[] candidates(String user, long[] history, int count) {
    Random r = new Random(7L * 1_000_003L + user.hashCode());
    Set<Long> seen = new HashSet<>();
    Arrays.stream(history).forEach(seen::add);
    long[] out = new long[count];
    for (int i = 0; i < count; i++) {
      if (history.length > 0 && i % 2 == 0) {
        out[i] = history[r.nextInt(history.length)];
      } else {
        long v;
        do {
          v = r.nextLong();
        } while (seen.contains(v));
        out[i] = v;
      }
    }
    return out;
  }

  /** (key, items) records as a map from key to items (one record per key). */
  static Map<String, long[]> byKey(List<Tuple2<String, long[]>> records) {
    Map<String, long[]> m = new HashMap<>();
    records.forEach(t -> m.put(t._1(), t._2()));
    return m;
  }

  /** Two dedups' answers are the same: the same keys, the same items in the same order. */
  static void assertSameAnswers(Map<String, long[]> expected, Map<String, long[]> actual) {
    assertEquals(expected.keySet(), actual.keySet());
    expected.forEach((key, items) -> assertArrayEquals(items, actual.get(key), "user " + key));
  }

  /** Counts of the comparison against the exact dedup. */
  static final class Check {
    long seenCandidates;
    long unseenCandidates;
    long unseenDropped;

    double observedFpp() {
      return unseenCandidates == 0 ? 0 : (double) unseenDropped / unseenCandidates;
    }
  }

  /**
   * Compares {@code kept} (per user) with the exact set-based dedup: a seen candidate never passes
   * (no false negatives), every unseen candidate passes or is a false positive, order is kept,
   * users without history keep everything, and every candidate user has an answer.
   */
  static Check checkAgainstExact(Map<String, long[]> history, Map<String, long[]> candidates,
      Map<String, long[]> kept) {
    Check c = new Check();
    assertEquals(candidates.keySet(), kept.keySet(), "every user with candidates gets an answer");
    for (Map.Entry<String, long[]> e : candidates.entrySet()) {
      String user = e.getKey();
      Set<Long> seen = new HashSet<>();
      for (long v : history.getOrDefault(user, new long[0])) {
        seen.add(v);
      }
      long[] keptItems = kept.get(user);
      // exact dedup: the unseen candidates, in order
      long[] exact = Arrays.stream(e.getValue()).filter(v -> !seen.contains(v)).toArray();
      for (long v : e.getValue()) {
        if (seen.contains(v)) {
          c.seenCandidates++;
        } else {
          c.unseenCandidates++;
        }
      }
      for (long v : keptItems) {
        assertTrue(!seen.contains(v), "false negative: user " + user + " was shown seen item " + v);
      }
      // kept is a subsequence of exact (order kept, only false positives missing)
      int j = 0;
      for (long v : keptItems) {
        while (j < exact.length && exact[j] != v) {
          j++;
        }
        assertTrue(j < exact.length, "user " + user + ": kept item " + v + " out of order or not a candidate");
        j++;
      }
      c.unseenDropped += exact.length - keptItems.length;
      if (!history.containsKey(user)) {
        assertEquals(e.getValue().length, keptItems.length, "a user with no filter keeps all candidates");
      }
    }
    return c;
  }

  /** The false-positive bound: p plus 4 binomial standard deviations (plus one item). */
  static void assertFppWithin(Check c, double p) {
    double n = c.unseenCandidates;
    double bound = p * n + 4 * Math.sqrt(n * p * (1 - p)) + 1;
    assertTrue(c.unseenDropped <= bound, "dropped " + c.unseenDropped + " of " + c.unseenCandidates
        + " unseen candidates; bound for p=" + p + " is " + bound);
  }
}
