package io.sparkbloom.redis;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.redis.spark.RedisPush;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import scala.Tuple2;

/**
 * The Redis benchmark, side by side in one run on a private local redis-server
 * (scripts/bench-redis.sh):
 *
 * <ol>
 *   <li>checking 1,000 candidates of one user: the helper's way (a GETBIT round trip per offset,
 *       stopping at a candidate's first clear bit), all GETBITs pipelined, and {@link
 *       RedisBloom#retainAbsent} (automatic, and each read mode pinned);
 *   <li>loading one user's history of 200 items: one SETBIT per bit vs one {@link RedisBloom#store};
 *   <li>10,000 users built in Spark (local[2]) and pushed with {@link RedisPush}: time and Redis
 *       {@code used_memory}.
 * </ol>
 *
 * Arguments: {@code [users] [repetitions]} (defaults 10000 and 30). Prints a Markdown table.
 */
public final class RedisBloomBenchmark {
  private static final RedisLayout LAYOUT = RedisLayout.helperCompatible(10_000, 0.001);

  public static void main(String[] args) throws Exception {
    int users = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int reps = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    try (RedisServer server = RedisServer.start();
        RedisBloom client = RedisBloom.connect(server.uri(), LAYOUT);
        Jedis jedis = server.raw()) {
      SplittableRandom random = new SplittableRandom(2024);
      long[] history = random.longs(200).toArray();
      long[] candidates = random.longs(1_000).toArray();
      // One candidate in ten was seen: recommendations are mostly new.
      for (int i = 0; i < candidates.length; i += 10) {
        candidates[i] = history[i % history.length];
      }
      client.putAll("bench:user", history);
      long[] expected = client.retainAbsent("bench:user", candidates);
      List<String[]> rows = new ArrayList<>();

      double helper = median(reps, () -> check(helperLoop(jedis, candidates), expected.length));
      double pipelined = median(reps, () -> check(pipelinedGetbits(jedis, candidates), expected.length));
      double auto = median(reps, () -> check(client.retainAbsent("bench:user", candidates).length, expected.length));
      rows.add(row("1,000 candidates: helper GETBIT per offset", helper, auto));
      rows.add(row("1,000 candidates: pipelined GETBITs (one round trip)", pipelined, auto));
      rows.add(row("1,000 candidates: retainAbsent (automatic mode)", auto, auto));
      for (ReadMode mode : new ReadMode[] {
          ReadMode.BITFIELD, ReadMode.SCRIPT, ReadMode.FETCH}) {
        client.readMode(mode);
        double t = median(reps, () -> check(client.retainAbsent("bench:user", candidates).length, expected.length));
        rows.add(row("1,000 candidates: retainAbsent, " + mode, t, auto));
        client.readMode(ReadMode.AUTO);
      }
      for (int n : new int[] {1, 10, 100}) {
        long[] few = Arrays.copyOf(candidates, n);
        int absent = client.retainAbsent("bench:user", few).length;
        for (ReadMode mode : ReadMode.values()) {
          client.readMode(mode);
          double t = median(reps, () -> check(client.retainAbsent("bench:user", few).length, absent));
          rows.add(row(n + " candidates: retainAbsent, " + mode, t, Double.NaN));
        }
        client.readMode(ReadMode.AUTO);
      }

      double setbits = median(Math.max(3, reps / 10), () -> {
        jedis.del("bench:load");
        for (long item : history) {
          for (long o : LAYOUT.offsets(item)) {
            jedis.setbit("bench:load", o, true);
          }
        }
        return 0;
      });
      BloomFilter filter = LAYOUT.newFilter();
      filter.putAll(history);
      double store = median(reps, () -> {
        client.store("bench:load", filter);
        return 0;
      });
      rows.add(row("history of 200 items: SETBIT per bit (2,000 round trips)", setbits, store));
      rows.add(row("history of 200 items: store (one script call, BITOP OR)", store, store));

      String push = pushFromSpark(server, users);
      System.out.println();
      System.out.println("| what | ms (median of " + reps + ") | × retainAbsent / store |");
      System.out.println("|---|---:|---:|");
      for (String[] r : rows) {
        System.out.println("| " + String.join(" | ", r) + " |");
      }
      System.out.println();
      System.out.println(push);
    }
  }

  private interface Op {
    int run() throws Exception;
  }

  private static int check(int got, int expected) {
    if (got != expected) {
      throw new IllegalStateException("answered " + got + " absent, expected " + expected);
    }
    return got;
  }

  /** The helper's mightContain per candidate: GETBIT round trips until the first clear bit. */
  private static int helperLoop(Jedis jedis, long[] candidates) {
    int absent = 0;
    for (long c : candidates) {
      for (long o : LAYOUT.offsets(c)) {
        if (!jedis.getbit("bench:user", o)) {
          absent++;
          break;
        }
      }
    }
    return absent;
  }

  /** Every GETBIT of every candidate in one pipeline. */
  private static int pipelinedGetbits(Jedis jedis, long[] candidates) {
    int k = LAYOUT.numHashFunctions();
    List<Response<Boolean>> bits = new ArrayList<>(candidates.length * k);
    try (Pipeline p = jedis.pipelined()) {
      for (long c : candidates) {
        for (long o : LAYOUT.offsets(c)) {
          bits.add(p.getbit("bench:user", o));
        }
      }
      p.sync();
    }
    int absent = 0;
    for (int j = 0; j < candidates.length; j++) {
      for (int i = 0; i < k; i++) {
        if (!bits.get(j * k + i).get()) {
          absent++;
          break;
        }
      }
    }
    return absent;
  }

  private static double median(int reps, Op op) throws Exception {
    for (int i = 0; i < Math.max(2, reps / 5); i++) {
      op.run();
    }
    double[] ms = new double[reps];
    for (int i = 0; i < reps; i++) {
      long start = System.nanoTime();
      op.run();
      ms[i] = (System.nanoTime() - start) / 1e6;
    }
    Arrays.sort(ms);
    return ms[reps / 2];
  }

  private static String[] row(String what, double ms, double reference) {
    return new String[] {
      what,
      String.format(Locale.ROOT, "%.3f", ms),
      Double.isNaN(reference) ? "" : String.format(Locale.ROOT, "%.1f", ms / reference)
    };
  }

  /** 10,000 users × 200 items built with the helper's layout in Spark local[2] and pushed. */
  private static String pushFromSpark(RedisServer server, int users) throws Exception {
    SparkSession spark = SparkSession.builder()
        .master("local[2]")
        .appName("RedisBloomBenchmark")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try (Jedis jedis = server.raw()) {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      List<Integer> ids = new ArrayList<>();
      for (int u = 0; u < users; u++) {
        ids.add(u);
      }
      JavaPairRDD<String, BloomFilter> filters = RedisPush.buildPerKey(
              jsc.parallelize(ids, 8).flatMapToPair(u -> {
                SplittableRandom r = new SplittableRandom(u);
                List<Tuple2<String, Long>> out = new ArrayList<>(200);
                for (int i = 0; i < 200; i++) {
                  out.add(new Tuple2<>("u" + u, r.nextLong()));
                }
                return out.iterator();
              }),
              LAYOUT)
          .cache();
      long built = filters.count();
      long memoryBefore = usedMemory(jedis);
      long start = System.nanoTime();
      long pushed = RedisPush.push(filters, server.uri(), LAYOUT, "push:");
      double seconds = (System.nanoTime() - start) / 1e9;
      long memoryAfter = usedMemory(jedis);
      return String.format(Locale.ROOT,
          "Spark push (local[2], %d users × 200 items, %s): %d keys in %.2f s (%.0f keys/s); Redis used_memory +%.1f MiB (%.0f bytes per key; bitmap %d bytes)",
          built, LAYOUT, pushed, seconds, pushed / seconds,
          (memoryAfter - memoryBefore) / 1048576.0, (memoryAfter - memoryBefore) / (double) pushed, LAYOUT.bitmapBytes());
    } finally {
      spark.stop();
    }
  }

  private static long usedMemory(Jedis jedis) {
    for (String line : jedis.info("memory").split("\r?\n")) {
      if (line.startsWith("used_memory:")) {
        return Long.parseLong(line.substring("used_memory:".length()).trim());
      }
    }
    throw new IllegalStateException("no used_memory in INFO memory");
  }
}
