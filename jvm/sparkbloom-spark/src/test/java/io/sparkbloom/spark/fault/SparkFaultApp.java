package io.sparkbloom.spark.fault;

import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.PerKeyFilters;
import io.sparkbloom.spark.PerKeyOptions;
import io.sparkbloom.spark.Sizing;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * The per-user dedup pipeline (build one filter per user with {@link PerKeyFilters#buildPerKey},
 * {@link PerKeyFilters#saveAsObjectFile}, {@link PerKeyFilters#objectFile}, {@link
 * PerKeyFilters#dedup}) on a real multi-executor Spark, run by {@code scripts/test-spark-fault.sh}:
 *
 * <pre>
 * spark-submit --master 'local-cluster[2,1,1024]' --class io.sparkbloom.spark.fault.SparkFaultApp \
 *     --jars sparkbloom.jar,sparkbloom-spark.jar spark-fault-app.jar WORK_DIR [USERS]
 * </pre>
 *
 * <ol>
 *   <li>An undisturbed run.
 *   <li>The same run with an executor JVM killed part way through a task of the build stage and
 *       again part way through a task of the dedup stage ({@link ExecutorKiller}). Checked: the
 *       driver saw each executor go, the filters saved are equal to the undisturbed run's (one
 *       per user, none missing or doubled), and the dedup answers are exactly the undisturbed
 *       run's; both runs against the exact set-based dedup (no false negative, order kept, users
 *       without history keep everything, false positives within the binomial bound).
 *   <li>A filters objectFile with one part file truncated, or with bytes flipped, in the
 *       partitioned layout and in the plain one: reading it fails the job with a message that
 *       names the file.
 * </ol>
 *
 * Prints {@code SPARK-FAULT} lines and exits 0 only if every check held.
 */
public final class SparkFaultApp {
  private SparkFaultApp() {}

  static final int PARTITIONS = 8;
  static final double FPP = 0.01;
  /** The partition whose task halts its executor, in the build and in the dedup stage. */
  static final int BUILD_KILL_PARTITION = 3;
  static final int DEDUP_KILL_PARTITION = 5;
  static final String CORRUPT_PART = "part-00002";

  public static void main(String[] args) throws Exception {
    Path work = Paths.get(args[0]).toAbsolutePath();
    int users = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
    Files.createDirectories(work);
    JavaSparkContext jsc = new JavaSparkContext(new SparkConf().setAppName("sparkbloom-spark-fault"));
    jsc.setLogLevel("WARN");
    ExecutorLossListener listener = new ExecutorLossListener();
    jsc.sc().addSparkListener(listener);
    List<String> failures = new ArrayList<>();
    try {
      run(jsc, listener, work, users, failures);
    } catch (Throwable t) {
      t.printStackTrace();
      failures.add("unexpected " + t);
    } finally {
      jsc.stop();
    }
    if (failures.isEmpty()) {
      System.out.println("SPARK-FAULT PASSED");
    } else {
      for (String f : failures) {
        System.out.println("SPARK-FAULT FAILED " + f);
      }
    }
    System.exit(failures.isEmpty() ? 0 : 1);
  }

  private static void run(JavaSparkContext jsc, ExecutorLossListener listener, Path work, int users,
      List<String> failures) throws Exception {
    String master = jsc.master();
    check(master.startsWith("local-cluster") || master.startsWith("spark://"),
        "needs a multi-executor master (local-cluster[2,1,1024]), got " + master);
    int executors = waitForExecutors(jsc, 2);
    System.out.println("SPARK-FAULT master=" + master + " executors=" + executors + " users=" + users);

    // 1. undisturbed
    Path quiet = work.resolve("undisturbed");
    Map<String, long[]> expected = pipeline(jsc, quiet, users, null);
    Map<String, BloomFilter> expectedFilters = filters(jsc, quiet);
    checkAgainstExact(expected, users, "undisturbed");
    check(listener.removedCount() == 0, "an executor was lost in the undisturbed run: " + listener.summary());

    // 2. the same with an executor killed in the build stage and in the dedup stage
    Path faulty = work.resolve("faulty");
    Path markers = Files.createDirectories(work.resolve("kill-markers"));
    Map<String, long[]> kept = pipeline(jsc, faulty, users, markers.toString());
    String buildKill = ExecutorKiller.marker(markers.toString(), "build");
    String dedupKill = ExecutorKiller.marker(markers.toString(), "dedup");
    System.out.println("SPARK-FAULT killed in build: " + buildKill);
    System.out.println("SPARK-FAULT killed in dedup: " + dedupKill);
    check(buildKill != null && dedupKill != null, "the executors were not killed: build=" + buildKill + " dedup=" + dedupKill);
    check(!buildKill.contains("executor=driver") && !dedupKill.contains("executor=driver"), "a kill ran in the driver");
    // the listener bus is asynchronous: a safety net, not a timing assertion
    for (int i = 0; i < 600 && (listener.removedCount() < 2 || listener.tasksLostWithExecutor() < 2); i++) {
      Thread.sleep(100);
    }
    System.out.println("SPARK-FAULT listener: " + listener.summary());
    check(listener.removedCount() >= 2, "the driver did not see two executors go: " + listener.summary());
    check(listener.tasksLostWithExecutor() >= 2, "no task was lost with its executor: " + listener.summary());

    Map<String, BloomFilter> faultyFilters = filters(jsc, faulty);
    check(faultyFilters.keySet().equals(expectedFilters.keySet()), "the filters saved after the kill are for other users: "
        + faultyFilters.size() + " vs " + expectedFilters.size());
    int differ = 0;
    for (Map.Entry<String, BloomFilter> e : expectedFilters.entrySet()) {
      differ += e.getValue().equals(faultyFilters.get(e.getKey())) ? 0 : 1;
    }
    check(differ == 0, differ + " filters built across the executor loss differ from the undisturbed run's");
    checkAgainstExact(kept, users, "faulty");
    check(kept.keySet().equals(expected.keySet()), "users answered differ from the undisturbed run");
    int answersDiffer = 0;
    for (Map.Entry<String, long[]> e : expected.entrySet()) {
      answersDiffer += Arrays.equals(e.getValue(), kept.get(e.getKey())) ? 0 : 1;
    }
    check(answersDiffer == 0, answersDiffer + " users got other answers than in the undisturbed run");
    System.out.println("SPARK-FAULT answers after two executor losses equal the undisturbed run's: "
        + kept.size() + " users, " + expectedFilters.size() + " filters");

    // 3. corrupt part files name the file, in both layouts
    Path plain = work.resolve("plain-filters");
    JavaPairRDD<String, BloomFilter> unpartitioned = PerKeyFilters.<String>objectFile(jsc, quiet.resolve("filters").toString())
        .mapToPair(t -> t);
    unpartitioned.saveAsObjectFile(plain.toString());
    for (String layout : List.of("partitioned", "plain")) {
      Path source = layout.equals("plain") ? plain : faulty.resolve("filters");
      for (String damage : List.of("truncated", "flipped")) {
        Path copy = work.resolve("corrupt-" + layout + "-" + damage);
        copyDir(source, copy);
        damage(copy.resolve(CORRUPT_PART), damage);
        String message = readFailure(jsc, copy);
        boolean named = message != null && message.contains(copy.resolve(CORRUPT_PART).getFileName().toString());
        String verdict = message == null ? "READ WITHOUT ERROR" : named ? "names the file" : "DOES NOT NAME THE FILE";
        System.out.println("SPARK-FAULT corrupt " + layout + "/" + damage + " " + CORRUPT_PART + ": " + verdict
            + (message == null ? "" : ": " + firstLine(message)));
        if (message == null || !named) {
          failures.add("corrupt " + layout + "/" + damage + ": " + verdict
              + (message == null ? "" : "; the job failed with: " + firstLine(message)));
        }
      }
    }
  }

  /** The pipeline; kills executors when {@code markerDir} is set. Returns user → kept items. */
  private static Map<String, long[]> pipeline(JavaSparkContext jsc, Path dir, int users, String markerDir) {
    int perPartition = Math.max(1, users / PARTITIONS);
    JavaPairRDD<String, Long> history = jsc.parallelize(FaultData.users(users), PARTITIONS)
        .flatMapToPair(u -> Arrays.stream(FaultData.history(u))
            .mapToObj(v -> new Tuple2<>(FaultData.user(u), v)).iterator());
    JavaPairRDD<String, BloomFilter> filters = PerKeyFilters.buildPerKey(history, PerKeyOptions.of(Sizing.fixed(200, FPP)).withPartitions(PARTITIONS));
    if (markerDir != null) {
      filters = filters.mapPartitionsToPair(
          new ExecutorKiller<>(markerDir, "build", BUILD_KILL_PARTITION, perPartition / 3), true);
    }
    String filtersDir = dir.resolve("filters").toString();
    PerKeyFilters.saveAsObjectFile(filters, filtersDir);

    JavaPairRDD<String, BloomFilter> loaded = PerKeyFilters.objectFile(jsc, filtersDir);
    check(loaded.partitioner().isPresent(), "objectFile lost the filters' partitioning");
    JavaPairRDD<String, long[]> candidates = jsc.parallelize(FaultData.users(users), PARTITIONS - 2)
        .mapToPair(u -> new Tuple2<>(FaultData.user(u), FaultData.candidates(u)));
    JavaPairRDD<String, long[]> kept = PerKeyFilters.dedup(loaded, candidates);
    if (markerDir != null) {
      kept = kept.mapPartitionsToPair(
          new ExecutorKiller<>(markerDir, "dedup", DEDUP_KILL_PARTITION, perPartition / 2), true);
    }
    List<Tuple2<String, long[]>> out = kept.collect();
    Map<String, long[]> byUser = new HashMap<>();
    for (Tuple2<String, long[]> t : out) {
      check(byUser.put(t._1(), t._2()) == null, "user " + t._1() + " answered twice");
    }
    return byUser;
  }

  private static Map<String, BloomFilter> filters(JavaSparkContext jsc, Path dir) {
    List<Tuple2<String, BloomFilter>> all = PerKeyFilters.<String>objectFile(jsc, dir.resolve("filters").toString()).collect();
    Map<String, BloomFilter> byUser = new HashMap<>();
    for (Tuple2<String, BloomFilter> t : all) {
      check(byUser.put(t._1(), t._2()) == null, "user " + t._1() + " has two filters in " + dir);
    }
    return byUser;
  }

  /**
   * Against the exact set-based dedup: every user answered once; no seen item kept (no false
   * negative); kept items are the exact answer minus false positives, in order; users without
   * history keep everything; false positives within p plus 4 binomial standard deviations.
   */
  private static void checkAgainstExact(Map<String, long[]> kept, int users, String run) {
    check(kept.size() == users, run + ": " + kept.size() + " users answered of " + users);
    long unseen = 0;
    long dropped = 0;
    for (int u = 0; u < users; u++) {
      long[] answer = kept.get(FaultData.user(u));
      check(answer != null, run + ": no answer for " + FaultData.user(u));
      long[] exact = FaultData.exactUnseen(u);
      int j = 0;
      for (long v : answer) {
        while (j < exact.length && exact[j] != v) {
          j++;
        }
        check(j < exact.length, run + ": " + FaultData.user(u) + " kept " + v
            + ", which it has seen (a false negative), or out of order");
        j++;
      }
      if (!FaultData.hasHistory(u)) {
        check(Arrays.equals(answer, FaultData.candidates(u)), run + ": a user without history lost candidates");
      }
      unseen += exact.length;
      dropped += exact.length - answer.length;
    }
    double bound = FPP * unseen + 4 * Math.sqrt(unseen * FPP * (1 - FPP)) + 1;
    check(dropped <= bound, run + ": " + dropped + " of " + unseen + " unseen candidates dropped; bound " + bound);
    System.out.println("SPARK-FAULT " + run + ": exact dedup agrees: " + users + " users, " + unseen
        + " unseen candidates, " + dropped + " false positives (bound " + Math.round(bound) + "), 0 false negatives");
  }

  /** The message of the job that reads {@code dir}'s filters, with its causes; null if it read. */
  private static String readFailure(JavaSparkContext jsc, Path dir) {
    try {
      long n = PerKeyFilters.<String>objectFile(jsc, dir.toString()).count();
      System.out.println("SPARK-FAULT " + dir.getFileName() + ": read " + n + " filters without error");
      return null;
    } catch (Exception e) {
      StringBuilder all = new StringBuilder();
      for (Throwable c = e; c != null; c = c.getCause()) {
        all.append(c).append('\n');
      }
      return all.toString();
    }
  }

  private static void damage(Path file, String how) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long length = f.length();
      if (how.equals("truncated")) {
        f.setLength(length / 2);
      } else {
        // 16 bytes in the middle of the file: inside a record, past the SequenceFile header
        f.seek(length / 2);
        byte[] b = new byte[16];
        f.readFully(b);
        for (int i = 0; i < b.length; i++) {
          b[i] ^= (byte) 0x5A;
        }
        f.seek(length / 2);
        f.write(b);
      }
    }
    // Hadoop's local file system checks the .crc beside the file: drop it, as a copy without
    // checksums (or a store that has none) would be, so the damage reaches the reader
    Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
  }

  private static void copyDir(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        Files.copy(p, to.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static int waitForExecutors(JavaSparkContext jsc, int n) throws InterruptedException {
    // a safety net while the workers start their executors, not a timing assertion
    for (int i = 0; i < 1200; i++) {
      int registered = jsc.sc().getExecutorMemoryStatus().size() - 1; // minus the driver
      if (registered >= n) {
        return registered;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("fewer than " + n + " executors registered");
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    return line.length() > 400 ? line.substring(0, 400) + "..." : line;
  }

  private static void check(boolean ok, String message) {
    if (!ok) {
      throw new AssertionError(message);
    }
  }
}
