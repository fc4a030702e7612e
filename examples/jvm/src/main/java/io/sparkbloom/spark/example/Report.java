package io.sparkbloom.spark.example;

import io.sparkbloom.spark.PerKeyFilters;
import io.sparkbloom.spark.SparkBloomExtensions;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.apache.spark.sql.SparkSession;

/**
 * The job's closing report: the setup, a table of sparkbloom beside Guava (time per stage, bytes
 * on disk, kept candidates, false negatives and positives, observed false-positive rate) with
 * Guava's figures over those of sparkbloom at Guava's n and p, and the verdict lines: the
 * like-for-like comparison with Guava, then what per-key sizing gains.
 */
final class Report {
  private static final String LABEL = "%-36s";
  private static final String CELL = " %18s";
  private static final String RATIO = " %14s";

  private final PrintStream out;
  private final Options o;
  private final DedupData.Prepared data;
  /** sparkbloom as the flags ask (per-key sizing by default). */
  private final PipelineResult sb;
  /** sparkbloom at Guava's fixed n and p beside a per-key {@code sb}; else null. */
  private final PipelineResult fixed;
  /** Null with {@code --skip-guava}. */
  private final PipelineResult gv;
  /** The run that answers like Guava's (same n and p): {@code fixed}, or {@code sb} with --sizing fixed. */
  private final PipelineResult like;

  Report(PrintStream out, Options o, DedupData.Prepared data, PipelineResult sb, PipelineResult fixed,
      PipelineResult gv) {
    this.out = out;
    this.o = o;
    this.data = data;
    this.sb = sb;
    this.fixed = fixed;
    this.gv = gv;
    this.like = gv == null ? null : fixed != null ? fixed : o.perKeySizing() ? null : sb;
  }

  /**
   * Prints the report; {@code differing} is the number of users whose answers differ between the
   * like-for-like run and Guava's, {@code differingPerKey} between per-key sizing's and Guava's
   * (-1 where not compared).
   */
  void print(SparkSession spark, long differing, long differingPerKey, Path outDir) {
    printSetup(spark);
    printTable();
    printVerdict(differing, differingPerKey);
    out.println("saved filters in " + outDir);
  }

  private void printSetup(SparkSession spark) {
    String serializer = o.serializer.equals("kryo") ? "Kryo (+ SparkBloomKryoRegistrator)" : "Java";
    out.println();
    out.println("== per-user dedup: sparkbloom vs Guava ==");
    out.printf(Locale.ROOT, "Spark %s, %s, spark.serializer=%s, %d partitions%n",
        spark.version(), spark.sparkContext().master(), serializer, sb.kept.getNumPartitions());
    out.println("data:       " + data.source);
    out.printf(Locale.ROOT, "candidates: %,d per user target, %,d total: %,d seen (in the user's history), %,d unseen%n",
        o.candidates, data.candidates, data.seen, data.unseen());
    out.printf(Locale.ROOT, "filters:    n=%,d, p=%s per user; data prepared in %.2f s (not timed below)%n",
        o.n, fmtP(o.p), data.seconds);
    out.println("sizing:     sparkbloom " + o.sizing() + (o.perKeySizing()
        ? " (each user's filter for its own distinct items)" : "") + "; "
        + (fixed == null ? "" : PerUserDedupJob.FIXED_NAME + " (like-for-like) " + o.withFixedSizing().sizing() + " and ")
        + "Guava n=" + o.n + ", p=" + fmtP(o.p));
    out.println("sparkbloom: " + (o.sqlApi()
        ? "SQL (spark.sql.extensions=" + SparkBloomExtensions.class.getName() + "): "
            + SqlPipeline.buildQuery(o, o.input == null)
            + " -> Parquet -> " + String.format(Locale.ROOT, SqlPipeline.QUERY_DEDUP, "<dir>")
        : o.plainJoin
        ? "the plain join shape: buildPerRecord -> saveAsObjectFile -> objectFile -> dedup (leftOuterJoin + retainAbsent)"
        : o.autoDedup()
            ? (o.input == null ? "buildPerRecord(history, sizing)" : "buildPerKey(pairs, sizing, partitions)")
                + " -> PerKeyFilters.saveAsObjectFile -> PerKeyFilters.dedup(jsc, path, candidates) (broadcasts the saved filter bytes when they fit "
                + PerKeyFilters.BROADCAST_MAX_BYTES_KEY + ", else joins); plan that ran: " + sb.plan
        : o.broadcastDedup()
            ? (o.input == null ? "buildPerRecord(history, sizing)" : "buildPerKey(pairs, sizing, partitions)")
                + " -> PerKeyFilters.saveAsObjectFile -> PerKeyFilters.dedupBroadcast(jsc, path, candidates) (the saved filter bytes broadcast, each user's filter decoded for its retainAbsent; the candidates do not move)"
            : (o.input == null ? "buildPerRecord(history, sizing, partitions)" : "buildPerKey(pairs, sizing, partitions)")
                + " -> PerKeyFilters.saveAsObjectFile (hash-partitioned) -> PerKeyFilters.objectFile -> dedup (left outer hash join + retainAbsent; only the candidates move)"));
    if (gv != null) out.println("Guava:      the classic pipeline: BloomFilter.create(Funnels.longFunnel(), n, p) + put per record -> saveAsObjectFile -> objectFile -> leftOuterJoin -> !mightContain");
    if (gv != null) {
      String shaded = GuavaOrigin.sparkShaded();
      out.println("Guava ran:  com.google.common " + GuavaOrigin.ran()
          + (shaded == null ? "" : "; Spark's own Guava (" + shaded + ") is not used by the Guava pipeline"));
    }
    out.printf(Locale.ROOT, "timing:     %s%s%n", o.runs == 1 ? "one run of each pipeline" : "best of " + o.runs + " alternating runs of each pipeline",
        o.warmup ? ", after an untimed warm-up of each" : ", no warm-up");
    out.println();
  }

  private void printTable() {
    String guava = "Guava " + guavaVersion();
    if (fixed != null) {
      String n = String.format(Locale.ROOT, "fixed n=%,d", o.n);
      header("sparkbloom", "sparkbloom", guava, "Guava/fixed n");
      header("per-key sizing", n, n, "");
    } else if (gv != null) {
      header("sparkbloom", guava, "Guava/sparkbloom");
    } else {
      header("sparkbloom");
    }
    long users = Math.max(1, data.users);
    long unseen = data.unseen();
    count("users (filters)", r -> r.filters, false);
    // with --api sql sparkbloom's filters are a Parquet table; Guava's stay objectFiles
    seconds(o.sqlApi() ? "build + save (Parquet / objectFile)" : "build + saveAsObjectFile", r -> r.buildSaveSeconds);
    seconds(o.sqlApi() ? "load + join + keep unseen" : "objectFile + join + keep unseen", r -> r.loadDedupSeconds);
    seconds("job total", PipelineResult::jobSeconds);
    seconds("job CPU (all JVM threads)", PipelineResult::jobCpuSeconds);
    count(o.sqlApi() ? "bytes on disk (Parquet / objectFile)" : "bytes on disk (objectFile)", r -> r.bytesOnDisk, true);
    count("bytes on disk per user", r -> r.bytesOnDisk / users, false);
    count("shuffle written, build + save", r -> r.buildSaveShuffleBytes, false);
    count("shuffle written, load + dedup", r -> r.loadDedupShuffleBytes, false);
    count("candidates kept", r -> r.keptTotal, false);
    count("false negatives (must be 0)", r -> r.falseNegatives, false);
    count("false positives (unseen dropped)", r -> unseen - r.unseenKept, false);
    row("observed FPP (target " + fmtP(o.p) + ")", r -> fpp(unseen - r.unseenKept, unseen), null);
    out.println();
  }

  private void printVerdict(long differing, long differingPerKey) {
    long unseen = data.unseen();
    double bound = o.p + 3 * Math.sqrt(o.p * (1 - o.p) / Math.max(1, unseen));
    boolean within = (unseen - sb.unseenKept) <= bound * unseen;
    out.printf(Locale.ROOT, "sparkbloom: %s false negatives; observed FPP %s the target + 3 sigma (%s)%s%n",
        sb.falseNegatives == 0 ? "no" : "FAIL: " + sb.falseNegatives,
        within ? "within" : "ABOVE", fmtP(bound),
        // Each user's filter has Guava's shape for its count, and Guava's double hashing adds
        // about 1/m to the textbook rate that sizing meets: Guava's own filters measure so too.
        within || !o.perKeySizing() ? ""
            : ": per-key sizing gives each user Guava's filter for its count, whose double hashing"
                + " adds about 1/m (README, Per-key sizing)");
    if (like != null) {
      out.printf(Locale.ROOT, "like-for-like (sparkbloom at Guava's n=%,d, p=%s): answers identical to Guava's: %s;"
              + " job %s, %s on disk%n",
          o.n, fmtP(o.p),
          differing == 0 ? "yes, for every user" : String.format(Locale.ROOT, "no, %,d users differ", differing),
          times(gv.jobSeconds(), like.jobSeconds(), "faster", "slower"),
          times(gv.bytesOnDisk, like.bytesOnDisk, "fewer bytes", "more bytes"));
    }
    if (fixed != null) {
      // per-key filters are other filters than Guava's: they keep other false positives (at the
      // target rate, where filters for n items that hold fewer keep almost none)
      out.printf(Locale.ROOT, "per-key sizing: %s than sparkbloom at Guava's fixed n, %s than Guava; job %s than Guava%n",
          times(fixed.bytesOnDisk, sb.bytesOnDisk, "fewer bytes", "more bytes"),
          times(gv.bytesOnDisk, sb.bytesOnDisk, "fewer", "more"),
          times(gv.jobSeconds(), sb.jobSeconds(), "faster", "slower"));
      out.printf(Locale.ROOT, "per-key sizing: observed FPP %s against the target %s (at the fixed n: %s); %s%n",
          fpp(unseen - sb.unseenKept, unseen), fmtP(o.p), fpp(unseen - fixed.unseenKept, unseen),
          sb.falseNegatives == 0 && gv.falseNegatives == 0
              ? String.format(Locale.ROOT,
                  "only false positives may differ from Guava's answers (they do for %,d of %,d users)",
                  differingPerKey, data.users)
              : String.format(Locale.ROOT, "%,d users' answers differ from Guava's", differingPerKey));
    }
  }

  /**
   * The SQL pipeline beside the RDD one ({@code --api both}): its stages, bytes and errors, and
   * its job time over the RDD path's and under Guava's, the runs alternating in one JVM;
   * {@code shufflePartitions} is the session's {@code spark.sql.shuffle.partitions}.
   */
  void printSql(PipelineResult sql, String shufflePartitions) {
    long unseen = data.unseen();
    out.printf(Locale.ROOT, "%s (SQL functions, Parquet table, %s=%s): build+save %.2f s, load+dedup %.2f s,"
            + " job %.2f s (CPU %.2f s), %,d bytes on disk, false negatives %,d, observed FPP %s%n",
        sql.name, PerUserDedupJob.SHUFFLE_PARTITIONS, shufflePartitions, sql.buildSaveSeconds,
        sql.loadDedupSeconds, sql.jobSeconds(), sql.jobCpuSeconds(),
        sql.bytesOnDisk, sql.falseNegatives, fpp(unseen - sql.unseenKept, unseen));
    out.printf(Locale.ROOT, "SQL vs RDD: the SQL job takes %.2fx the RDD job's time (CPU %.2fx)%s%n",
        sql.jobSeconds() / sb.jobSeconds(), sql.jobCpuSeconds() / sb.jobCpuSeconds(),
        gv == null ? "" : String.format(Locale.ROOT, "; Guava's job takes %.2fx the SQL job's time",
            gv.jobSeconds() / sql.jobSeconds()));
  }

  /** A row of counts; with {@code withRatio}, Guava's count over the like-for-like run's. */
  private void count(String label, ToLongFunction<PipelineResult> value, boolean withRatio) {
    row(label, r -> String.format(Locale.ROOT, "%,d", value.applyAsLong(r)),
        withRatio ? r -> (double) value.applyAsLong(r) : null);
  }

  /** A row of seconds, with Guava's time over the like-for-like run's. */
  private void seconds(String label, ToDoubleFunction<PipelineResult> value) {
    row(label, r -> String.format(Locale.ROOT, "%.2f s", value.applyAsDouble(r)), value);
  }

  /** A row: the label, a cell per run (sparkbloom, the fixed run, Guava), the ratio. */
  private void row(String label, Function<PipelineResult, String> cell,
      ToDoubleFunction<PipelineResult> ratioOf) {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, LABEL, label));
    for (PipelineResult r : new PipelineResult[] {sb, fixed, gv}) {
      if (r != null) {
        line.append(String.format(Locale.ROOT, CELL, cell.apply(r)));
      }
    }
    if (like != null && ratioOf != null) {
      line.append(String.format(Locale.ROOT, RATIO, ratio(ratioOf.applyAsDouble(gv), ratioOf.applyAsDouble(like))));
    }
    out.println(line.toString().stripTrailing());
  }

  /** A header row: a cell per run of the table, then the ratio's header if there is a ratio. */
  private void header(String... cells) {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, LABEL, ""));
    for (int i = 0; i < cells.length; i++) {
      line.append(String.format(Locale.ROOT, i == cells.length - 1 && like != null ? RATIO : CELL, cells[i]));
    }
    out.println(line.toString().stripTrailing());
  }

  /** {@code a / b} as "N.Nx faster" (or fewer...), or its inverse as "N.Nx slower" when below 1. */
  private static String times(double a, double b, String more, String less) {
    if (a <= 0 || b <= 0) {
      return "-";
    }
    return a >= b ? String.format(Locale.ROOT, "%.1fx %s", a / b, more)
        : String.format(Locale.ROOT, "%.1fx %s", b / a, less);
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
    return GuavaOrigin.version(com.google.common.hash.BloomFilter.class);
  }
}
