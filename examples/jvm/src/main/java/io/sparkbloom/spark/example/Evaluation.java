package io.sparkbloom.spark.example;

import java.util.Arrays;
import org.apache.spark.api.java.JavaPairRDD;

/**
 * Exact checks against the history: a candidate is seen iff it is in the user's history, so a
 * kept seen candidate is a false negative and a dropped unseen one a false positive.
 */
final class Evaluation {
  private Evaluation() {}

  /** {history records, candidates, candidates in the history}, summed over the users. */
  static long[] groundTruth(JavaPairRDD<String, long[]> history, JavaPairRDD<String, long[]> candidates) {
    return history.join(candidates).values()
        .map(hc -> new long[] {hc._1().length, hc._2().length, countIn(hc._1(), hc._2())})
        .reduce(Evaluation::sum);
  }

  /** Fills the kept, false-negative and unseen-kept counts of {@code r} from its kept candidates. */
  static void evaluate(PipelineResult r, JavaPairRDD<String, long[]> history) {
    // users with candidates but no history cannot exist here (candidates derive from history)
    long[] s = history.join(r.kept).values()
        .map(hk -> new long[] {hk._2().length, countIn(hk._1(), hk._2())})
        .fold(new long[2], Evaluation::sum);
    r.keptTotal = s[0];
    r.falseNegatives = s[1];
    r.unseenKept = s[0] - s[1];
  }

  /** Users whose kept candidates differ between the two pipelines. */
  static long differingUsers(PipelineResult a, PipelineResult b) {
    return a.kept.fullOuterJoin(b.kept).values().map(ab -> {
      long[] x = ab._1().orElse(new long[0]);
      long[] y = ab._2().orElse(new long[0]);
      return Arrays.equals(x, y) ? 0L : 1L;
    }).reduce(Long::sum);
  }

  /** How many of {@code items} are in {@code history}. */
  private static long countIn(long[] history, long[] items) {
    long[] sorted = history.clone();
    Arrays.sort(sorted);
    long in = 0;
    for (long c : items) {
      if (Arrays.binarySearch(sorted, c) >= 0) {
        in++;
      }
    }
    return in;
  }

  private static long[] sum(long[] a, long[] b) {
    long[] s = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      s[i] = a[i] + b[i];
    }
    return s;
  }
}
