package io.sparkbloom.spark.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkbloom.spark.SparkBloomExtensions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example job end to end on small data: generated, then rebuilt from CSV and Parquet; and
 * sparkbloom's SQL path ({@code --api sql}) in a session with the SQL extension, as the job's
 * {@code main} starts it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PerUserDedupJobTest {
  private SparkSession spark;

  @BeforeAll
  void start() {
    spark = SparkSession.builder().master("local[2]").appName("PerUserDedupJobTest")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.extensions", SparkBloomExtensions.class.getName())
        .getOrCreate();
  }

  @AfterAll
  void stop() {
    spark.stop();
  }

  private String run(String... args) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int rc;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      rc = PerUserDedupJob.run(spark, Options.parse(args), out);
    }
    String report = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, rc, report);
    return report;
  }

  private static String row(String report, String label) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(label) + "\\s+(.*)$").matcher(report);
    assertTrue(m.find(), "no row '" + label + "' in\n" + report);
    return m.group(1).trim();
  }

  @Test
  void generatedDataReport(@TempDir Path tmp) throws Exception {
    String csv = tmp.resolve("history-csv").toString();
    String report = run("--users", "40", "--records", "200", "--candidates", "300", "--sizing", "fixed",
        "--output", tmp.resolve("out").toString(), "--write-input", csv, "--no-warmup", "--runs", "2");
    assertTrue(report.matches("(?s).*false negatives \\(must be 0\\)\\s+0\\s+0\\s.*"), report);
    // --sizing fixed: sparkbloom's own run is the like-for-like one, not run a second time
    assertTrue(report.contains("like-for-like (sparkbloom at Guava's n=10,000, p=0.001): answers identical"
        + " to Guava's: yes, for every user; job "), report);
    assertTrue(!report.contains("[" + PerUserDedupJob.FIXED_NAME) && !report.contains("per-key sizing:"), report);
    // which Guava ran (the job's own 33.x here; Spark 4 keeps its shaded copy apart)
    assertTrue(report.contains("Guava ran:  com.google.common " + System.getProperty("sparkbloom.guava.version") + " (guava-"), report);
    assertTrue(row(report, "users (filters)").startsWith("40"), report);
    assertTrue(report.contains("candidates: 300 per user target, 12,000 total: 6,000 seen"), report);
    // --dedup auto (the default): 40 filters of ~2 KB fit the broadcast limit, and the report says so
    assertTrue(report.contains("PerKeyFilters.dedup(jsc, path, candidates)"), report);
    assertTrue(report.contains("plan that ran: broadcast (saved filters "), report);
    assertTrue(report.contains(", dedup plan: broadcast"), report);
    // a filter of 200 items in a (10000, 0.001) filter takes far less than Guava's 18 KB
    String[] perUser = row(report, "bytes on disk per user").replace(",", "").split("\\s+");
    assertTrue(Long.parseLong(perUser[0]) * 4 < Long.parseLong(perUser[1]), report);

    // offline rebuild from the CSV the run wrote: same users, same answers (and the join's dedup)
    String fromCsv = run("--input", csv, "--candidates", "300", "--output", tmp.resolve("out2").toString(),
        "--no-warmup", "--sizing", "fixed", "--dedup", "join");
    assertTrue(fromCsv.contains("dedup (left outer hash join"), fromCsv);
    assertTrue(fromCsv.contains("data:       read from " + csv), fromCsv);
    assertTrue(row(fromCsv, "users (filters)").startsWith("40"), fromCsv);
    assertTrue(fromCsv.matches("(?s).*false negatives \\(must be 0\\)\\s+0\\s+0\\s.*"), fromCsv);
    assertTrue(fromCsv.contains("answers identical to Guava's: yes"), fromCsv);

    // and from Parquet, sparkbloom only
    String parquet = tmp.resolve("history.parquet").toString();
    spark.read().option("header", "true").csv(csv).selectExpr("user", "CAST(item AS BIGINT) AS item")
        .write().parquet(parquet);
    String fromParquet = run("--input", parquet, "--candidates", "100", "--skip-guava",
        "--output", tmp.resolve("out3").toString(), "--no-warmup", "--dedup", "broadcast");
    assertTrue(fromParquet.contains("PerKeyFilters.dedupBroadcast(jsc, path, candidates)"), fromParquet);
    assertTrue(row(fromParquet, "users (filters)").startsWith("40"), fromParquet);
    assertTrue(fromParquet.contains("sparkbloom: no false negatives"), fromParquet);
    // --skip-guava skips the fixed-n run beside per-key sizing too
    assertTrue(!fromParquet.contains("[" + PerUserDedupJob.FIXED_NAME) && !fromParquet.contains("like-for-like"), fromParquet);
  }

  /**
   * Per-key sizing (the default): each user's filter sized for its 200 items at p = 0.001 is
   * 420 FORMAT bytes (3,136 bits), so at most 492 bytes per user on disk, 35x fewer than Guava's
   * filters for 10,000 items and 3x fewer than sparkbloom's at that n (sparse, about 2,000
   * bytes); the observed FPP stays within the target + 3 sigma. sparkbloom also runs at Guava's
   * fixed n, and that run's answers are Guava's for every user.
   */
  @Test
  void perKeySizingReport(@TempDir Path tmp) throws Exception {
    String report = run("--users", "300", "--records", "200", "--candidates", "1000",
        "--output", tmp.resolve("out").toString(), "--no-warmup", "--runs", "1");
    assertTrue(report.contains("sizing:     sparkbloom Sizing.perKeyCount(0.001)"), report);
    assertTrue(report.matches("(?s).*false negatives \\(must be 0\\)\\s+0\\s+0\\s+0\\s.*"), report);
    assertTrue(report.contains("observed FPP within the target + 3 sigma"), report);
    // the table: per-key, fixed n, Guava, and Guava over the fixed run
    assertTrue(report.matches("(?s).*\\s+sparkbloom\\s+sparkbloom\\s+Guava \\S+\\s+Guava/fixed n\\n"
        + "\\s+per-key sizing\\s+fixed n=10,000\\s+fixed n=10,000\\n.*"), report);
    assertTrue(report.contains("[" + PerUserDedupJob.FIXED_NAME + "] build+save "), report);
    String[] perUser = row(report, "bytes on disk per user").replace(",", "").split("\\s+");
    assertTrue(Long.parseLong(perUser[0]) <= 492, report);
    assertTrue(Long.parseLong(perUser[0]) * 3 <= Long.parseLong(perUser[1]), report);
    assertTrue(Long.parseLong(perUser[0]) * 35 <= Long.parseLong(perUser[2]), report);
    // like for like: sparkbloom at Guava's n and p answers as Guava does
    assertTrue(report.matches("(?s).*\\nlike-for-like \\(sparkbloom at Guava's n=10,000, p=0.001\\): answers"
        + " identical to Guava's: yes, for every user; job [0-9.]+x (faster|slower), [0-9.]+x fewer bytes on disk\\n.*"), report);
    // and what per-key sizing gains, its false positives named as the only possible difference
    Matcher gain = Pattern.compile("\\nper-key sizing: ([0-9.]+)x fewer bytes than sparkbloom at Guava's fixed n,"
        + " ([0-9.]+)x fewer than Guava; job [0-9.]+x (faster|slower) than Guava\\n").matcher(report);
    assertTrue(gain.find(), report);
    assertTrue(Double.parseDouble(gain.group(1)) >= 3 && Double.parseDouble(gain.group(2)) >= 35, report);
    assertTrue(report.matches("(?s).*\\nper-key sizing: observed FPP 0\\.\\d+ against the target 0.001"
        + " \\(at the fixed n: 0\\.\\d+\\); only false positives may differ from Guava's answers"
        + " \\(they do for [0-9,]+ of 300 users\\)\\n.*"), report);
    // a correct run raises no alarm
    assertTrue(!report.contains("ABOVE") && !report.contains("users differ") && !report.contains("FAIL"), report);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--sizing", "auto"}));
    assertTrue(e.getMessage().contains("--sizing must be fixed or per-key"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Options.parse(new String[] {"--dedup", "hash"}));
    assertTrue(e.getMessage().contains("--dedup must be auto, broadcast or join"), e.getMessage());
    assertTrue(Options.parse(new String[0]).autoDedup(), "the dedup chooses by size by default");
    assertTrue(Options.parse(new String[] {"--sizing", "fixed"}).autoDedup(), "for fixed sizing too");
    assertTrue(Options.parse(new String[] {"--dedup", "broadcast"}).broadcastDedup());
    assertTrue(!Options.parse(new String[] {"--dedup", "auto", "--plain-join"}).autoDedup());
    assertTrue(!Options.parse(new String[] {"--sizing", "fixed", "--dedup", "join"}).broadcastDedup());
    assertTrue(!Options.parse(new String[] {"--dedup", "broadcast", "--plain-join"}).broadcastDedup());
  }

  /**
   * {@code --api sql}, per-key sizing: the filters are a Parquet table built by
   * sparkbloom_build_array from the generated (user, items) rows (sparkbloom_build_per_key from
   * --input's (user, item) rows), no seen candidate comes back, and of the 50,000 unseen candidates
   * (100 users x 500) each is dropped with probability at most about p, so the observed FPP stays
   * under p plus six binomial standard deviations, sqrt(p (1 - p) / 50,000).
   */
  @Test
  void sqlApiReport(@TempDir Path tmp) throws Exception {
    Path out = tmp.resolve("out");
    String csv = tmp.resolve("history-csv").toString();
    String report = run("--api", "sql", "--users", "100", "--records", "200", "--candidates", "1000",
        "--output", out.toString(), "--no-warmup", "--runs", "1", "--write-input", csv);
    // generated history is grouped per user: one filter per (user, items) row, no GROUP BY
    assertTrue(report.contains("sparkbloom: SQL (spark.sql.extensions="
        + "io.sparkbloom.spark.SparkBloomExtensions): SELECT user,"
        + " sparkbloom_build_array(items, 0.001) AS filter FROM sparkbloom_example_history_arrays ->"), report);
    assertTrue(report.contains("sparkbloom_retain_absent(f.filter, c.items)"), report);
    assertTrue(row(report, "users (filters)").startsWith("100 "), report);
    // the like-for-like run goes through SQL too, on the same views
    assertTrue(report.contains("[" + PerUserDedupJob.FIXED_NAME + "] build+save "), report);
    assertTrue(report.contains("answers identical to Guava's: yes, for every user"), report);
    assertTrue(report.matches("(?s).*false negatives \\(must be 0\\)\\s+0\\s+0\\s.*"), report);
    double p = 0.001;
    long unseen = 100 * 500;
    double observed = Double.parseDouble(row(report, "observed FPP (target 0.001)").split("\\s+")[0]);
    assertTrue(observed <= p + 6 * Math.sqrt(p * (1 - p) / unseen), report);
    try (Stream<Path> files = Files.list(out.resolve("sparkbloom-filters"))) {
      assertTrue(files.anyMatch(f -> f.getFileName().toString().endsWith(".parquet")), "no Parquet written");
    }
    assertEquals(100, spark.read().parquet(out.resolve("sparkbloom-filters").toString()).count());

    // fixed sizing: sparkbloom_build(item, n, p) makes Guava's filters, so the answers are Guava's
    String fixed = run("--api", "sql", "--sizing", "fixed", "--users", "40", "--candidates", "300",
        "--no-warmup", "--output", tmp.resolve("fixed").toString(), "--runs", "1");
    assertTrue(fixed.contains("sparkbloom_build_array(items, 10000, 0.001) AS filter"), fixed);
    assertTrue(fixed.contains("answers identical to Guava's: yes"), fixed);
    assertTrue(fixed.matches("(?s).*false negatives \\(must be 0\\)\\s+0\\s+0\\s.*"), fixed);

    // (user, item) rows from --input: grouped by the aggregate, the same answers
    String fromCsv = run("--api", "sql", "--input", csv, "--candidates", "1000", "--skip-guava",
        "--no-warmup", "--output", tmp.resolve("csv-out").toString(), "--runs", "1");
    assertTrue(fromCsv.contains("SELECT user, sparkbloom_build_per_key(item, 0.001) AS filter"
        + " FROM sparkbloom_example_history GROUP BY user"), fromCsv);
    assertTrue(row(fromCsv, "users (filters)").startsWith("100"), fromCsv);
    assertTrue(fromCsv.contains("sparkbloom: no false negatives"), fromCsv);

    // both APIs in one JVM, alternating with Guava: the SQL pipeline's line and its ratios
    String both = run("--api", "both", "--users", "40", "--candidates", "300", "--no-warmup",
        "--output", tmp.resolve("both").toString(), "--runs", "2");
    // the session's own spark.sql.shuffle.partitions (4, set above) is kept, and named
    assertTrue(both.contains("sparkbloom-sql (SQL functions, Parquet table, spark.sql.shuffle.partitions=4):"
        + " build+save "), both);
    assertTrue(both.matches("(?s).*sparkbloom-sql .*, false negatives 0, observed FPP .*"), both);
    assertTrue(both.matches("(?s).*SQL vs RDD: the SQL job takes [0-9.]+x the RDD job's time \\(CPU [0-9.]+x\\);"
        + " Guava's job takes [0-9.]+x the SQL job's time.*"), both);
    assertTrue(both.matches("(?s).*false negatives \\(must be 0\\)\\s+0\\s+0\\s+0\\s.*"), both);
    assertTrue(both.contains("answers identical to Guava's: yes, for every user"), both);

    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--api", "dataset"}));
    assertTrue(e.getMessage().contains("--api must be rdd, sql or both, got dataset"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--api", "sql", "--plain-join"}));
    assertTrue(e.getMessage().contains("--plain-join is an option of --api rdd"), e.getMessage());
    assertTrue(!Options.parse(new String[0]).sqlApi(), "the RDD API by default");
  }

  @Test
  void badFlagsAreRejectedWithUsage() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--users", "0"}));
    assertTrue(e.getMessage().contains("--users must be positive"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"--bogus", "1"}));
    assertTrue(e.getMessage().contains("unknown flag --bogus") && e.getMessage().contains("usage:"));
    assertEquals(10_000, Options.parse(new String[] {"--n=10_000"}).n);
  }
}
