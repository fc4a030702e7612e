package io.sparkbloom.spark.example;

import java.util.Locale;

/** The flags of {@link PerUserDedupJob}, parsed; {@link #USAGE} lists them. */
final class Options implements Cloneable {
  static final String USAGE = String.join("\n",
      "usage: scripts/run-example.sh [flags]",
      "  --users N           users to generate (default 10000)",
      "  --records N         history records per user (default 200)",
      "  --candidates N      new candidates per user (default 1000)",
      "  --seen-fraction F   share of candidates taken from the user's history (default 0.5)",
      "  --api rdd|sql|both  sparkbloom's API: rdd (default) = PerKeyFilters on RDDs, saved as objectFiles;",
      "                      sql = the SQL functions of SparkBloomExtensions: a (user, filter BINARY)",
      "                      table built by sparkbloom_build_per_key (sparkbloom_build with --sizing",
      "                      fixed), saved as Parquet, deduped by a left join + sparkbloom_retain_absent;",
      "                      both = the two, alternating with Guava in one JVM, SQL's times also over RDD's",
      "  --sizing fixed|per-key  sparkbloom's filter sizing: fixed = every user's filter for --n items",
      "                      (as Guava's); per-key = each user's filter for its own distinct items",
      "                      (Sizing.perKeyCount(p), default); with per-key sizing and Guava, the job",
      "                      also runs sparkbloom at Guava's fixed n and p, for a like-for-like comparison",
      "  --dedup auto|broadcast|join  sparkbloom's RDD dedup: auto (default) broadcasts the saved filters",
      "                      when they fit spark.sparkbloom.broadcast.maxBytes and joins otherwise",
      "                      (PerKeyFilters.dedup(jsc, path, candidates)); broadcast: the filters",
      "                      broadcast as their compact bytes (moves nothing but the filters);",
      "                      join: a join on hash-partitioned filters (moves the candidates)",
      "  --n N               expected insertions per filter with fixed sizing, and Guava's (default 10000)",
      "  --p P               target false-positive rate (default 0.001)",
      "  --seed S            data seed (default 666)",
      "  --input PATH        rebuild from your own (user, item) CSV (with a header) or Parquet",
      "                      instead of generated data; columns 'user' and 'item', or the first two",
      "  --format csv|parquet  format of --input (default: from the path)",
      "  --write-input DIR   also write the generated history as a (user,item) CSV to DIR",
      "  --output DIR        where the saved filters go (default out/per-user-dedup)",
      "  --partitions N      partitions of the input (default 4 x cores, or one per 20,000 users if more)",
      "  --serializer java|kryo  spark.serializer (default java; kryo adds the registrator)",
      "  --runs N            run the pipelines N times, alternating; report the best run of each (default 3)",
      "  --skip-guava        run only the sparkbloom pipeline (no Guava baseline and no fixed-n run",
      "                      beside it; for large --users)",
      "  --plain-join        sparkbloom's RDD path without the partitioned objectFile: a plain",
      "                      leftOuterJoin of unpartitioned filters, as the Guava pipeline does",
      "  --no-warmup         skip the untimed warm-up run of the pipelines (on all users, at most ~10,000)",
      "  --master URL        Spark master (default local[2])",
      "  --help");

  int users = 10_000;
  /** "rdd" (the default) or "sql". */
  String api = "rdd";
  String sizing = "per-key";
  /** "auto" (the default), "broadcast" or "join". */
  String dedup = "auto";
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

  /**
   * Parses {@code --flag value} and {@code --flag=value}; {@code --help} prints {@link #USAGE}
   * and exits.
   *
   * @throws IllegalArgumentException naming the flag that is unknown, lacks a value or is out of
   *     range
   */
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
      if (o.setSwitch(flag)) {
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("flag " + flag + " needs a value\n" + USAGE);
        }
        value = args[++i];
      }
      try {
        o.set(flag, value);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("bad number for " + flag + ": " + value);
      }
    }
    o.check();
    return o;
  }

  /** Sets a flag without a value; false if {@code flag} is not one. */
  private boolean setSwitch(String flag) {
    switch (flag) {
      case "--skip-guava": skipGuava = true; return true;
      case "--plain-join": plainJoin = true; return true;
      case "--no-warmup": warmup = false; return true;
      default: return false;
    }
  }

  private void set(String flag, String value) {
    switch (flag) {
      case "--users": users = positiveInt(flag, value); break;
      case "--records": records = positiveInt(flag, value); break;
      case "--candidates": candidates = Integer.parseInt(value); break;
      case "--seen-fraction": seenFraction = Double.parseDouble(value); break;
      case "--n": n = Long.parseLong(value.replace("_", "")); break;
      case "--p": p = Double.parseDouble(value); break;
      case "--seed": seed = Long.parseLong(value); break;
      case "--input": input = value; break;
      case "--format": format = value.toLowerCase(Locale.ROOT); break;
      case "--write-input": writeInput = value; break;
      case "--output": output = value; break;
      case "--partitions": partitions = positiveInt(flag, value); break;
      case "--runs": runs = positiveInt(flag, value); break;
      case "--serializer": serializer = value.toLowerCase(Locale.ROOT); break;
      case "--master": master = value; break;
      case "--sizing": sizing = value.toLowerCase(Locale.ROOT); break;
      case "--api": api = value.toLowerCase(Locale.ROOT); break;
      case "--dedup": dedup = value.toLowerCase(Locale.ROOT); break;
      default: throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
    }
  }

  private void check() {
    if (!(seenFraction >= 0 && seenFraction <= 1)) {
      throw new IllegalArgumentException("--seen-fraction must be in [0, 1], got " + seenFraction);
    }
    if (candidates < 0) {
      throw new IllegalArgumentException("--candidates must be >= 0, got " + candidates);
    }
    if (!sizing.equals("fixed") && !sizing.equals("per-key")) {
      throw new IllegalArgumentException("--sizing must be fixed or per-key, got " + sizing);
    }
    if (!api.equals("rdd") && !api.equals("sql") && !api.equals("both")) {
      throw new IllegalArgumentException("--api must be rdd, sql or both, got " + api);
    }
    if (runsSql() && plainJoin) {
      throw new IllegalArgumentException("--plain-join is an option of --api rdd, not of --api sql");
    }
    if (!dedup.equals("auto") && !dedup.equals("join") && !dedup.equals("broadcast")) {
      throw new IllegalArgumentException("--dedup must be auto, broadcast or join, got " + dedup);
    }
    if (!serializer.equals("java") && !serializer.equals("kryo")) {
      throw new IllegalArgumentException("--serializer must be java or kryo, got " + serializer);
    }
    if (format != null && !format.equals("csv") && !format.equals("parquet")) {
      throw new IllegalArgumentException("--format must be csv or parquet, got " + format);
    }
  }

  /** sparkbloom's sizing policy from {@code --sizing}, {@code --n} and {@code --p}. */
  io.sparkbloom.spark.Sizing sizing() {
    return sizing.equals("fixed") ? io.sparkbloom.spark.Sizing.fixed(n, p)
        : io.sparkbloom.spark.Sizing.perKeyCount(p);
  }

  /** Whether sparkbloom's dedup always broadcasts the filters (never with --plain-join). */
  boolean broadcastDedup() {
    return !plainJoin && dedup.equals("broadcast");
  }

  /** Whether sparkbloom's dedup chooses by the saved filters' size (never with --plain-join). */
  boolean autoDedup() {
    return !plainJoin && dedup.equals("auto");
  }

  /** Whether the filters are saved unpartitioned for a broadcast (--dedup auto or broadcast). */
  boolean savesForBroadcast() {
    return broadcastDedup() || autoDedup();
  }

  /** Whether sparkbloom runs through its SQL functions ({@code --api sql}). */
  boolean sqlApi() {
    return api.equals("sql");
  }

  /** Whether a pipeline runs through the SQL functions ({@code --api sql} or {@code both}). */
  boolean runsSql() {
    return !api.equals("rdd");
  }

  /** Whether the RDD and the SQL pipeline both run ({@code --api both}). */
  boolean bothApis() {
    return api.equals("both");
  }

  boolean perKeySizing() {
    return sizing.equals("per-key");
  }

  /**
   * Whether the job also runs sparkbloom at Guava's fixed n and p: with per-key sizing its own
   * filters differ from Guava's, so only that run answers like for like.
   */
  boolean runsFixedBeside() {
    return !skipGuava && perKeySizing();
  }

  /** These options with {@code --sizing fixed}: the like-for-like run's. */
  Options withFixedSizing() {
    try {
      Options fixed = (Options) clone();
      fixed.sizing = "fixed";
      return fixed;
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int positiveInt(String flag, String value) {
    int v = Integer.parseInt(value.replace("_", ""));
    if (v <= 0) {
      throw new IllegalArgumentException(flag + " must be positive, got " + v);
    }
    return v;
  }
}
