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
 * the ratios, and the verdict lines.
 */
final class Report {
  private static final String FMT = "%-34s %18s %18s %14s%n";

  private final PrintStream out;
  private final Options o;
  private final DedupData.Prepared data;
  private final PipelineResult sb;
  /** Null with {@code --skip-guava}. */
  private final PipelineResult gv;

  Report(PrintStream out, Options o, DedupData.Prepared data, PipelineResult sb, PipelineResult gv) {
    this.out = out;
    this.o = o;
    this.data = data;
    this.sb = sb;
    this.gv = gv;
  }

  /** Prints the report; {@code differing} is the number of users whose answers differ (Guava run). */
  void print(SparkSession spark, long differing, Path outDir) {
    printSetup(spark);
    printTable();
    printVerdict(differing);
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
        ? " (each user's filter for its own distinct items)" : "") + "; Guava n=" + o.n + ", p=" + fmtP(o.p));
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
        o.warmup ? ", after an untimed warm-up of both" : ", no warm-up");
    out.println();
  }

  private void printTable() {
    out.printf(Locale.ROOT, FMT, "", "sparkbloom", gv == null ? "" : "Guava " + guavaVersion(),
        gv == null ? "" : "Guava/sparkbloom");
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

  private void printVerdict(long differing) {
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
    if (gv != null) {
      if (o.perKeySizing()) {
        // other filter shapes, other false positives: only the false positives may differ
        out.printf(Locale.ROOT, "answers vs Guava's: %,d users differ (per-key sizing: other filters, other false positives)%n",
            differing);
      } else {
        out.printf(Locale.ROOT, "answers identical to Guava's: %s%n",
            differing == 0 ? "yes, for every user" : "no, " + differing + " users differ");
      }
      double speed = gv.jobSeconds() / sb.jobSeconds();
      out.printf(Locale.ROOT, "sparkbloom vs Guava: build+save %s, load+dedup %s, job %s, %s fewer bytes on disk%n",
          ratio(gv.buildSaveSeconds, sb.buildSaveSeconds), ratio(gv.loadDedupSeconds, sb.loadDedupSeconds),
          speed >= 1 ? String.format(Locale.ROOT, "%.1fx faster", speed)
              : String.format(Locale.ROOT, "%.1fx slower", 1 / speed),
          ratio(gv.bytesOnDisk, sb.bytesOnDisk));
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

  /** A row of counts; with {@code withRatio}, Guava's count over sparkbloom's. */
  private void count(String label, ToLongFunction<PipelineResult> value, boolean withRatio) {
    row(label, r -> String.format(Locale.ROOT, "%,d", value.applyAsLong(r)),
        withRatio ? r -> (double) value.applyAsLong(r) : null);
  }

  /** A row of seconds, with Guava's time over sparkbloom's. */
  private void seconds(String label, ToDoubleFunction<PipelineResult> value) {
    row(label, r -> String.format(Locale.ROOT, "%.2f s", value.applyAsDouble(r)), value);
  }

  private void row(String label, Function<PipelineResult, String> cell,
      ToDoubleFunction<PipelineResult> ratioOf) {
    String guava = gv == null ? "" : cell.apply(gv);
    String r = gv == null || ratioOf == null ? "" : ratio(ratioOf.applyAsDouble(gv), ratioOf.applyAsDouble(sb));
    out.printf(Locale.ROOT, FMT, label, cell.apply(sb), guava, r);
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
