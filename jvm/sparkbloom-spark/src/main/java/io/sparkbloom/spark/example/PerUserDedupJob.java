package io.sparkbloom.spark.example;

import com.google.common.hash.Funnels;
import io.sparkbloom.BloomFilter;
import io.sparkbloom.spark.LongArrayBuilder;
import io.sparkbloom.spark.PerKeyFilters;
import io.sparkbloom.spark.SparkBloomKryoRegistrator;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import scala.Tuple2;

/**
 * The per-user dedup job of the seed, run twice on the same data: once with sparkbloom and once
 * with Guava's {@code BloomFilter} exactly as the seed does, timing each stage and comparing bytes
 * on disk, false negatives and the observed false-positive rate against the exact ground truth.
 *
 * <p>Pipeline (both libraries): build one filter per user from the history &rarr;
 * {@code saveAsObjectFile} &rarr; {@code objectFile} &rarr; {@code leftOuterJoin} with the new
 * candidates &rarr; keep the candidates the user's filter has not seen.
 *
 * <p>Run it with {@code scripts/run-example.sh [flags]}; {@code --help} lists the flags.
 */
public final class PerUserDedupJob {
  private PerUserDedupJob() {}

  static final String USAGE = String.join("\n",
      "usage: scripts/run-example.sh [flags]",
      "  --users N           users to generate (default 100)",
      "  --records N         history records per user (default 200)",
      "  --candidates N      new candidates per user (default 1000)",
      "  --seen-fraction F   share of candidates taken from the user's history (default 0.5)",
      "  --n N               expected insertions per filter (default 10000)",
      "  --p P               target false-positive rate (default 0.001)",
      "  --seed S            data seed (default 666, as the seed's genRandomData)",
      "  --input PATH        rebuild from your own (user, item) CSV (with a header) or Parquet",
      "                      instead of generated data; columns 'user' and 'item', or the first two",
      "  --format csv|parquet  format of --input (default: from the path)",
      "  --write-input DIR   also write the generated history as a (user,item) CSV to DIR",
      "  --output DIR        where the objectFiles go (default out/per-user-dedup)",
      "  --partitions N      partitions of the input (default 4 x cores)",
      "  --serializer java|kryo  spark.serializer (default java; kryo adds the registrator)",
      "  --runs N            run both pipelines N times, alternating; report the best run of each (default 3)",
      "  --skip-guava        run only the sparkbloom pipeline",
      "  --plain-join        sparkbloom without the partitioned objectFile: the seed's join shape exactly",
      "  --no-warmup         skip the untimed warm-up run of both pipelines on ~500 of the users",
      "  --master URL        Spark master (default local[2])",
      "  --help");

  /** Parsed flags. */
  static final class Options {
    int users = 100;
    int records = 200;
    int candidates = 1000;
    double seenFraction = 0.5;
    long n = 10_000;
    double p = 0.001;
    long seed = 666;
    String input;
    String format;
    String writeInput;
    String output = "out/per-user-dedup";
    int partitions = -1;
    String serializer = "java";
    boolean skipGuava;
    boolean warmup = true;
    boolean plainJoin;
    int runs = 3;
    String master = "local[2]";

    static Options parse(String[] args) {
      Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        String a = args[i];
        String flag = a;
        String value = null;
        int eq = a.indexOf('=');
        if (a.startsWith("--") && eq > 0) {
          flag = a.substring(0, eq);
          value = a.substring(eq + 1);
        }
        if (flag.equals("--help") || flag.equals("-h")) {
          System.out.println(USAGE);
          System.exit(0);
        }
        if (flag.equals("--skip-guava")) {
          o.skipGuava = true;
          continue;
        }
        if (flag.equals("--plain-join")) {
          o.plainJoin = true;
          continue;
        }
        if (flag.equals("--no-warmup")) {
          o.warmup = false;
          continue;
        }
        if (value == null) {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException("flag " + flag + " needs a value\n" + USAGE);
          }
          value = args[++i];
        }
        try {
          switch (flag) {
            case "--users": o.users = positiveInt(flag, value); break;
            case "--records": o.records = positiveInt(flag, value); break;
            case "--candidates": o.candidates = Integer.parseInt(value); break;
            case "--seen-fraction": o.seenFraction = Double.parseDouble(value); break;
            case "--n": o.n = Long.parseLong(value.replace("_", "")); break;
            case "--p": o.p = Double.parseDouble(value); break;
            case "--seed": o.seed = Long.parseLong(value); break;
            case "--input": o.input = value; break;
            case "--format": o.format = value.toLowerCase(Locale.ROOT); break;
            case "--write-input": o.writeInput = value; break;
            case "--output": o.output = value; break;
            case "--partitions": o.partitions = positiveInt(flag, value); break;
            case "--runs": o.runs = positiveInt(flag, value); break;
            case "--serializer": o.serializer = value.toLowerCase(Locale.ROOT); break;
            case "--master": o.master = value; break;
            default: throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("bad number for " + flag + ": " + value);
        }
      }
      if (!(o.seenFraction >= 0 && o.seenFraction <= 1)) {
        throw new IllegalArgumentException("--seen-fraction must be in [0, 1], got " + o.seenFraction);
      }
      if (o.candidates < 0) {
        throw new IllegalArgumentException("--candidates must be >= 0, got " + o.candidates);
      }
      if (!o.serializer.equals("java") && !o.serializer.equals("kryo")) {
        throw new IllegalArgumentException("--serializer must be java or kryo, got " + o.serializer);
      }
      if (o.format != null && !o.format.equals("csv") && !o.format.equals("parquet")) {
        throw new IllegalArgumentException("--format must be csv or parquet, got " + o.format);
      }
      return o;
    }

    private static int positiveInt(String flag, String value) {
      int v = Integer.parseInt(value.replace("_", ""));
      if (v <= 0) {
        throw new IllegalArgumentException(flag + " must be positive, got " + v);
      }
      return v;
    }
  }

  /** The measurements of one pipeline. */
  static final class Result {
    final String name;
    double buildSaveSeconds;
    double loadDedupSeconds;
    long filters;
    long bytesOnDisk;
    long keptTotal;
    long falseNegatives;
    long unseenKept;
    JavaPairRDD<String, long[]> kept;

    Result(String name) {
      this.name = name;
    }

    double jobSeconds() {
      return buildSaveSeconds + loadDedupSeconds;
    }
  }

  public static void main(String[] args) throws Exception {
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    SparkConf conf = new SparkConf()
        .setAppName("sparkbloom per-user dedup")
        .setIfMissing("spark.master", o.master)
        .setIfMissing("spark.ui.enabled", "false")
        .setIfMissing("spark.ui.showConsoleProgress", "false");
    if (o.master.startsWith("local")) {
      conf.setIfMissing("spark.driver.host", "127.0.0.1")
          .setIfMissing("spark.driver.bindAddress", "127.0.0.1");
    }
    if (o.serializer.equals("kryo")) {
      conf.set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
          .set("spark.kryo.registrator", SparkBloomKryoRegistrator.class.getName());
    }
    SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
    int exit = 0;
    try {
      exit = run(spark, o, System.out);
    } finally {
      spark.stop();
    }
    System.exit(exit);
  }

  /** Runs both pipelines and prints the report; returns 0, or 1 if a false negative was seen. */
  static int run(SparkSession spark, Options o, PrintStream out) throws IOException {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    jsc.setLogLevel("WARN");
    int partitions = o.partitions > 0 ? o.partitions : 4 * jsc.defaultParallelism();
    Path outDir = Paths.get(o.output).toAbsolutePath();
    Files.createDirectories(outDir);
    Path sbDir = outDir.resolve("sparkbloom-filters");
    Path guavaDir = outDir.resolve("guava-filters");
    deleteRecursively(sbDir);
    deleteRecursively(guavaDir);

    try (Progress progress = new Progress(jsc, out)) {
      // ---- data ------------------------------------------------------------------------------
      progress.stage("prepare data");
      long t0 = System.nanoTime();
      JavaPairRDD<String, long[]> history;
      JavaPairRDD<String, Long> pairs = null;
      String source;
      if (o.input == null) {
        long seed = o.seed;
        int recordsPerUser = o.records;
        List<Integer> users = new ArrayList<>(o.users);
        for (int u = 0; u < o.users; u++) {
          users.add(u);
        }
        history = jsc.parallelize(users, partitions)
            .mapToPair(u -> new Tuple2<>(Integer.toString(u), SeedData.history(seed, u, recordsPerUser)));
        source = String.format(Locale.ROOT, "generated as the seed's genRandomData (seed %d): %,d users x %,d records",
            o.seed, o.users, o.records);
      } else {
        pairs = readPairs(spark, o, partitions);
        history = pairs
            .aggregateByKey(new LongArrayBuilder(), partitions, LongArrayBuilder::add, LongArrayBuilder::addAll)
            .mapValues(LongArrayBuilder::toArray);
        source = "read from " + o.input;
      }
      history = history.persist(StorageLevel.MEMORY_ONLY());
      long numUsers = history.count();
      long seed = o.seed;
      int numCandidates = o.candidates;
      double seenFraction = o.seenFraction;
      JavaPairRDD<String, long[]> candidates = history
          .mapToPair(kv -> new Tuple2<>(kv._1(),
              SeedData.candidates(seed, kv._1(), kv._2(), numCandidates, seenFraction)))
          .persist(StorageLevel.MEMORY_ONLY());
      // ground truth, exact: a candidate is seen iff it is in the user's history
      long[] truth = history.join(candidates).values().map(hc -> {
        long[] sorted = hc._1().clone();
        Arrays.sort(sorted);
        long seen = 0;
        for (long c : hc._2()) {
          if (Arrays.binarySearch(sorted, c) >= 0) {
            seen++;
          }
        }
        return new long[] {hc._1().length, hc._2().length, seen};
      }).reduce(PerUserDedupJob::sum);
      if (pairs != null) {
        pairs.unpersist(false);
      }
      if (o.writeInput != null) {
        writeCsv(spark, history, o.writeInput);
      }
      double prepareSeconds = seconds(t0);
      long totalRecords = truth[0];
      long totalCandidates = truth[1];
      long seenCandidates = truth[2];
      long unseenCandidates = totalCandidates - seenCandidates;
      out.printf(Locale.ROOT, "[data] %,d users, %,d history records, %,d candidates (%,d seen, %,d unseen) in %.1f s%n",
          numUsers, totalRecords, totalCandidates, seenCandidates, unseenCandidates, prepareSeconds);

      // ---- warm-up: both pipelines once on ~500 users, untimed ------------------------------------
      // The first Spark jobs of a JVM run cold (class loading, JIT); without this, whichever
      // pipeline runs first pays for it.
      if (o.warmup) {
        // about 500 users (all of them below 1,000)
        int every = (int) Math.max(1, numUsers / 500);
        progress.stage("warm-up (both pipelines on 1/" + every + " of the users, not timed)");
        t0 = System.nanoTime();
        JavaPairRDD<String, long[]> wHistory = history.filter(kv -> Math.floorMod(kv._1().hashCode(), every) == 0);
        JavaPairRDD<String, long[]> wCandidates = candidates.filter(kv -> Math.floorMod(kv._1().hashCode(), every) == 0);
        Path wDir = outDir.resolve("warmup");
        deleteRecursively(wDir);
        Result w = runSparkbloom(jsc, o, wHistory, null, wCandidates, wDir.resolve("sparkbloom"), progress, "warm-up");
        w.kept.unpersist(false);
        if (!o.skipGuava) {
          w = runGuava(jsc, o, wHistory, null, wCandidates, wDir.resolve("guava"), progress, "warm-up");
          w.kept.unpersist(false);
        }
        deleteRecursively(wDir);
        out.printf(Locale.ROOT, "[warm-up] %.1f s%n", seconds(t0));
      }

      // ---- the two pipelines, alternating, --runs times; the report keeps each one's best run ----
      JavaPairRDD<String, Long> inputPairs = o.input == null ? null : readPairs(spark, o, partitions);
      Result sb = null;
      Result gv = null;
      for (int run = 1; run <= o.runs; run++) {
        String tag = o.runs == 1 ? "" : " (run " + run + "/" + o.runs + ")";
        Result r = runSparkbloom(jsc, o, history, inputPairs, candidates, sbDir, progress, "sparkbloom" + tag);
        out.printf(Locale.ROOT, "[sparkbloom%s] build+save %.2f s, load+dedup %.2f s, job %.2f s, %,d bytes on disk%n",
            tag, r.buildSaveSeconds, r.loadDedupSeconds, r.jobSeconds(), r.bytesOnDisk);
        sb = best(sb, r);
        if (!o.skipGuava) {
          r = runGuava(jsc, o, history, inputPairs, candidates, guavaDir, progress, "Guava" + tag);
          out.printf(Locale.ROOT, "[Guava%s] build+save %.2f s, load+dedup %.2f s, job %.2f s, %,d bytes on disk%n",
              tag, r.buildSaveSeconds, r.loadDedupSeconds, r.jobSeconds(), r.bytesOnDisk);
          gv = best(gv, r);
        }
      }
      progress.stage("sparkbloom: evaluate");
      evaluate(sb, history);
      if (gv != null) {
        progress.stage("Guava: evaluate");
        evaluate(gv, history);
      }

      long differing = -1;
      if (gv != null) {
        progress.stage("compare answers");
        differing = sb.kept.fullOuterJoin(gv.kept).values().map(ab -> {
          long[] a = ab._1().orElse(new long[0]);
          long[] b = ab._2().orElse(new long[0]);
          return Arrays.equals(a, b) ? 0L : 1L;
        }).reduce(Long::sum);
      }
      progress.stage(null);

      report(out, spark, o, source, numUsers, totalCandidates, seenCandidates, unseenCandidates,
          prepareSeconds, sb, gv, differing, outDir);
      return sb.falseNegatives == 0 && (gv == null || gv.falseNegatives == 0) ? 0 : 1;
    }
  }

  /**
   * sparkbloom: build one filter per user (one {@code putAll} per user, or {@code buildPerKey} from
   * the input's pairs) &rarr; saveAsObjectFile &rarr; objectFile &rarr; leftOuterJoin &rarr;
   * {@code retainAbsent}.
   */
  static Result runSparkbloom(JavaSparkContext jsc, Options o, JavaPairRDD<String, long[]> history,
      JavaPairRDD<String, Long> pairs, JavaPairRDD<String, long[]> candidates, Path dir,
      Progress progress, String label) throws IOException {
    Result r = new Result("sparkbloom");
    deleteRecursively(dir);
    long n = o.n;
    double p = o.p;
    progress.stage(label + ": build + saveAsObjectFile");
    long t0 = System.nanoTime();
    int partitions = history.getNumPartitions();
    JavaPairRDD<String, BloomFilter> filters;
    if (o.plainJoin) {
      // the seed's shape exactly: unpartitioned filters, so the join shuffles them again
      filters = pairs == null
          ? PerKeyFilters.buildPerRecord(history, n, p)
          : PerKeyFilters.buildPerKey(pairs, n, p, partitions).mapToPair(t -> t);
      filters.saveAsObjectFile(dir.toUri().toString());
    } else {
      // hash-partitioned filters (the history records are shuffled, not the filters), saved with
      // their partitioning: the join below then moves only the candidates
      filters = pairs == null
          ? PerKeyFilters.buildPerRecord(history, n, p, partitions)
          : PerKeyFilters.buildPerKey(pairs, n, p, partitions);
      PerKeyFilters.saveAsObjectFile(filters, dir.toUri().toString());
    }
    r.buildSaveSeconds = seconds(t0);
    progress.stage(label + ": objectFile + leftOuterJoin + keep unseen");
    t0 = System.nanoTime();
    JavaPairRDD<String, BloomFilter> loaded = PerKeyFilters.objectFile(jsc, dir.toUri().toString());
    r.kept = PerKeyFilters.dedup(loaded, candidates).persist(StorageLevel.MEMORY_ONLY());
    r.kept.count();
    r.loadDedupSeconds = seconds(t0);
    r.filters = loaded.count(); // not timed
    r.bytesOnDisk = directorySize(dir);
    return r;
  }

  /**
   * Guava, as the seed: {@code BloomFilter.create(Funnels.longFunnel(), n, p)} and one
   * {@code put} per record &rarr; saveAsObjectFile &rarr; objectFile &rarr;
   * {@code leftOuterJoin(candidates)} &rarr; keep {@code !bf.mightContain(item)}.
   */
  static Result runGuava(JavaSparkContext jsc, Options o, JavaPairRDD<String, long[]> history,
      JavaPairRDD<String, Long> pairs, JavaPairRDD<String, long[]> candidates, Path dir,
      Progress progress, String label) throws IOException {
    Result r = new Result("Guava");
    deleteRecursively(dir);
    int guavaN = (int) Math.min(Integer.MAX_VALUE, o.n);
    double p = o.p;
    progress.stage(label + ": build + saveAsObjectFile");
    long t0 = System.nanoTime();
    JavaPairRDD<String, com.google.common.hash.BloomFilter<Long>> filters = pairs == null
        ? history.mapValues(records -> {
            com.google.common.hash.BloomFilter<Long> bf =
                com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), guavaN, p);
            for (long rec : records) {
              bf.put(rec);
            }
            return bf;
          })
        : pairs.groupByKey(history.getNumPartitions()).mapValues(items -> {
            com.google.common.hash.BloomFilter<Long> bf =
                com.google.common.hash.BloomFilter.create(Funnels.longFunnel(), guavaN, p);
            for (Long rec : items) {
              bf.put(rec);
            }
            return bf;
          });
    filters.saveAsObjectFile(dir.toUri().toString());
    r.buildSaveSeconds = seconds(t0);
    progress.stage(label + ": objectFile + leftOuterJoin + keep unseen");
    t0 = System.nanoTime();
    JavaPairRDD<String, com.google.common.hash.BloomFilter<Long>> loaded = JavaPairRDD.fromJavaRDD(
        jsc.<Tuple2<String, com.google.common.hash.BloomFilter<Long>>>objectFile(dir.toUri().toString()));
    r.kept = loaded.leftOuterJoin(candidates).mapValues(fc -> {
      com.google.common.hash.BloomFilter<Long> bf = fc._1();
      long[] cands = fc._2().orElse(new long[0]);
      long[] keep = new long[cands.length];
      int k = 0;
      for (long c : cands) {
        if (!bf.mightContain(c)) {
          keep[k++] = c;
        }
      }
      return Arrays.copyOf(keep, k);
    }).persist(StorageLevel.MEMORY_ONLY());
    r.kept.count();
    r.loadDedupSeconds = seconds(t0);
    r.filters = loaded.count(); // not timed
    r.bytesOnDisk = directorySize(dir);
    return r;
  }

  /** The run with the shorter job; the other run's cached output is dropped. */
  private static Result best(Result a, Result b) {
    if (a == null) {
      return b;
    }
    Result keep = b.jobSeconds() < a.jobSeconds() ? b : a;
    Result drop = keep == a ? b : a;
    drop.kept.unpersist(false);
    return keep;
  }

  private static void evaluate(Result r, JavaPairRDD<String, long[]> history) {
    long[] s = history.join(r.kept).values().map(hk -> {
      long[] sorted = hk._1().clone();
      Arrays.sort(sorted);
      long fn = 0;
      for (long c : hk._2()) {
        if (Arrays.binarySearch(sorted, c) >= 0) {
          fn++;
        }
      }
      return new long[] {hk._2().length, fn, 0};
    }).fold(new long[3], PerUserDedupJob::sum);
    // users with candidates but no history cannot exist here (candidates derive from history)
    r.keptTotal = s[0];
    r.falseNegatives = s[1];
    r.unseenKept = s[0] - s[1];
  }

  private static void report(PrintStream out, SparkSession spark, Options o, String source,
      long users, long candidates, long seen, long unseen, double prepareSeconds,
      Result sb, Result gv, long differing, Path outDir) {
    String serializer = o.serializer.equals("kryo") ? "Kryo (+ SparkBloomKryoRegistrator)" : "Java";
    out.println();
    out.println("== per-user dedup: sparkbloom vs Guava ==");
    out.printf(Locale.ROOT, "Spark %s, %s, spark.serializer=%s, %d partitions%n",
        spark.version(), spark.sparkContext().master(), serializer,
        sb.kept.getNumPartitions());
    out.println("data:       " + source);
    out.printf(Locale.ROOT, "candidates: %,d per user target, %,d total: %,d seen (in the user's history), %,d unseen%n",
        o.candidates, candidates, seen, unseen);
    out.printf(Locale.ROOT, "filters:    n=%,d, p=%s per user; data prepared in %.2f s (not timed below)%n",
        o.n, fmtP(o.p), prepareSeconds);
    out.println("sparkbloom: " + (o.plainJoin
        ? "the seed's shape: buildPerRecord -> saveAsObjectFile -> objectFile -> dedup (leftOuterJoin + retainAbsent)"
        : (o.input == null ? "buildPerRecord(history, n, p, partitions)" : "buildPerKey(pairs, n, p, partitions)")
            + " -> PerKeyFilters.saveAsObjectFile (hash-partitioned) -> PerKeyFilters.objectFile -> dedup (left outer hash join + retainAbsent; only the candidates move)"));
    out.println("Guava:      the seed's code: BloomFilter.create(Funnels.longFunnel(), n, p) + put per record -> saveAsObjectFile -> objectFile -> leftOuterJoin -> !mightContain");
    out.printf(Locale.ROOT, "timing:     %s%s%n", o.runs == 1 ? "one run of each pipeline" : "best of " + o.runs + " alternating runs of each pipeline",
        o.warmup ? ", after an untimed warm-up of both" : ", no warm-up");
    out.println();
    String guavaName = "Guava " + guavaVersion();
    String fmt = "%-34s %18s %18s %14s%n";
    out.printf(Locale.ROOT, fmt, "", "sparkbloom", gv == null ? "" : guavaName, gv == null ? "" : "Guava/sparkbloom");
    row(out, fmt, "users (filters)", String.format(Locale.ROOT, "%,d", sb.filters),
        gv == null ? null : String.format(Locale.ROOT, "%,d", gv.filters), null);
    row(out, fmt, "build + saveAsObjectFile", secs(sb.buildSaveSeconds),
        gv == null ? null : secs(gv.buildSaveSeconds), gv == null ? null : ratio(gv.buildSaveSeconds, sb.buildSaveSeconds));
    row(out, fmt, "objectFile + join + keep unseen", secs(sb.loadDedupSeconds),
        gv == null ? null : secs(gv.loadDedupSeconds), gv == null ? null : ratio(gv.loadDedupSeconds, sb.loadDedupSeconds));
    row(out, fmt, "job total", secs(sb.jobSeconds()),
        gv == null ? null : secs(gv.jobSeconds()), gv == null ? null : ratio(gv.jobSeconds(), sb.jobSeconds()));
    row(out, fmt, "bytes on disk (objectFile)", String.format(Locale.ROOT, "%,d", sb.bytesOnDisk),
        gv == null ? null : String.format(Locale.ROOT, "%,d", gv.bytesOnDisk),
        gv == null ? null : ratio(gv.bytesOnDisk, sb.bytesOnDisk));
    row(out, fmt, "bytes on disk per user", String.format(Locale.ROOT, "%,d", sb.bytesOnDisk / Math.max(1, users)),
        gv == null ? null : String.format(Locale.ROOT, "%,d", gv.bytesOnDisk / Math.max(1, users)), null);
    row(out, fmt, "candidates kept", String.format(Locale.ROOT, "%,d", sb.keptTotal),
        gv == null ? null : String.format(Locale.ROOT, "%,d", gv.keptTotal), null);
    row(out, fmt, "false negatives (must be 0)", String.format(Locale.ROOT, "%,d", sb.falseNegatives),
        gv == null ? null : String.format(Locale.ROOT, "%,d", gv.falseNegatives), null);
    row(out, fmt, "false positives (unseen dropped)", String.format(Locale.ROOT, "%,d", unseen - sb.unseenKept),
        gv == null ? null : String.format(Locale.ROOT, "%,d", unseen - gv.unseenKept), null);
    row(out, fmt, "observed FPP (target " + fmtP(o.p) + ")", fpp(unseen - sb.unseenKept, unseen),
        gv == null ? null : fpp(unseen - gv.unseenKept, unseen), null);
    out.println();
    double bound = o.p + 3 * Math.sqrt(o.p * (1 - o.p) / Math.max(1, unseen));
    out.printf(Locale.ROOT, "sparkbloom: %s false negatives; observed FPP %s the target + 3 sigma (%s)%n",
        sb.falseNegatives == 0 ? "no" : "FAIL: " + sb.falseNegatives,
        (unseen - sb.unseenKept) <= bound * unseen ? "within" : "ABOVE", fmtP(bound));
    if (gv != null) {
      out.printf(Locale.ROOT, "answers identical to Guava's: %s%n",
          differing == 0 ? "yes, for every user" : "no, " + differing + " users differ");
      double speed = gv.jobSeconds() / sb.jobSeconds();
      out.printf(Locale.ROOT, "sparkbloom vs Guava: job %s, %s fewer bytes on disk%n",
          speed >= 1 ? String.format(Locale.ROOT, "%.1fx faster", speed)
              : String.format(Locale.ROOT, "%.1fx slower", 1 / speed),
          ratio(gv.bytesOnDisk, sb.bytesOnDisk));
    }
    out.println("objectFiles in " + outDir);
  }

  private static void row(PrintStream out, String fmt, String label, String a, String b, String r) {
    out.printf(Locale.ROOT, fmt, label, a, b == null ? "" : b, r == null ? "" : r);
  }

  private static String secs(double s) {
    return String.format(Locale.ROOT, "%.2f s", s);
  }

  private static String ratio(double a, double b) {
    return b <= 0 ? "-" : String.format(Locale.ROOT, "%.1fx", a / b);
  }

  private static String fpp(long fp, long total) {
    return total == 0 ? "-" : String.format(Locale.ROOT, "%.6f", (double) fp / total);
  }

  private static String fmtP(double p) {
    return String.format(Locale.ROOT, "%.6g", p).replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  private static String guavaVersion() {
    Package pkg = com.google.common.hash.BloomFilter.class.getPackage();
    String v = pkg == null ? null : pkg.getImplementationVersion();
    if (v == null) {
      // Guava's jar manifest carries Bundle-Version; fall back to the jar name
      String loc = String.valueOf(com.google.common.hash.BloomFilter.class.getProtectionDomain()
          .getCodeSource().getLocation());
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("guava-([^/]+)\\.jar").matcher(loc);
      v = m.find() ? m.group(1) : "?";
    }
    return v;
  }

  private static long[] sum(long[] a, long[] b) {
    long[] s = new long[a.length];
    for (int i = 0; i < a.length; i++) {
      s[i] = a[i] + b[i];
    }
    return s;
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** (user, item) pairs from the user's CSV (header) or Parquet file. */
  static JavaPairRDD<String, Long> readPairs(SparkSession spark, Options o, int partitions) {
    String format = o.format;
    if (format == null) {
      format = looksLikeCsv(o.input) ? "csv" : "parquet";
    }
    Dataset<Row> df = format.equals("csv")
        ? spark.read().option("header", "true").csv(o.input)
        : spark.read().parquet(o.input);
    List<String> cols = Arrays.asList(df.columns());
    String userCol = cols.contains("user") ? "user" : cols.get(0);
    String itemCol = cols.contains("item") ? "item" : cols.get(1);
    return df.select(df.col(userCol).cast("string"), df.col(itemCol).cast("long"))
        .javaRDD()
        .filter(r -> !r.isNullAt(0) && !r.isNullAt(1))
        .mapToPair(r -> new Tuple2<>(r.getString(0), r.getLong(1)))
        .repartition(partitions);
  }

  private static boolean looksLikeCsv(String path) {
    if (path.toLowerCase(Locale.ROOT).endsWith(".csv")) {
      return true;
    }
    File f = new File(path);
    String[] names = f.isDirectory() ? f.list() : null;
    return names != null && Arrays.stream(names).anyMatch(s -> s.toLowerCase(Locale.ROOT).endsWith(".csv"));
  }

  private static void writeCsv(SparkSession spark, JavaPairRDD<String, long[]> history, String dir) {
    JavaRDD<Row> rows = history.flatMap(kv -> {
      List<Row> out = new ArrayList<>(kv._2().length);
      for (long v : kv._2()) {
        out.add(RowFactory.create(kv._1(), v));
      }
      return out.iterator();
    });
    StructType schema = new StructType()
        .add("user", DataTypes.StringType, false)
        .add("item", DataTypes.LongType, false);
    spark.createDataFrame(rows, schema).write().mode("overwrite").option("header", "true").csv(dir);
  }

  static long directorySize(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path f : (Iterable<Path>) s.sorted((a, b) -> b.compareTo(a))::iterator) {
        Files.delete(f);
      }
    }
  }

  /** Prints the running stage's task progress every few seconds while a stage is long. */
  static final class Progress implements AutoCloseable {
    private final JavaSparkContext jsc;
    private final PrintStream out;
    private final Thread thread;
    private volatile String label;
    private volatile long since = System.nanoTime();

    Progress(JavaSparkContext jsc, PrintStream out) {
      this.jsc = jsc;
      this.out = out;
      this.thread = new Thread(this::loop, "sparkbloom-progress");
      this.thread.setDaemon(true);
      this.thread.start();
    }

    void stage(String label) {
      this.label = label;
      this.since = System.nanoTime();
      if (label != null) {
        jsc.setJobDescription(label);
      }
    }

    private void loop() {
      try {
        while (true) {
          Thread.sleep(5000);
          String l = label;
          double running = (System.nanoTime() - since) / 1e9;
          if (l == null || running < 4.5) {
            continue;
          }
          StringBuilder tasks = new StringBuilder();
          for (int id : jsc.statusTracker().getActiveStageIds()) {
            SparkStageInfo info = jsc.statusTracker().getStageInfo(id);
            if (info != null) {
              tasks.append(String.format(Locale.ROOT, " [spark stage %d: %d/%d tasks]",
                  id, info.numCompletedTasks(), info.numTasks()));
            }
          }
          out.printf(Locale.ROOT, "[progress] %s: %.0f s%s%n", l, running, tasks);
        }
      } catch (InterruptedException e) {
        // closed
      }
    }

    @Override
    public void close() {
      thread.interrupt();
    }
  }
}
