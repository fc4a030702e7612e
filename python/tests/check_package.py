"""Checks the installed sparkbloom package on the installed PySpark (run by
scripts/test-pyspark-package.sh, once per PySpark version).

    python check_package.py            # jars(), register, build / retain_absent / might_contain,
                                       # and the native module reading the filters Spark built
    python check_package.py no-jars    # a session without the jars: register names what is missing
    python check_package.py no-core    # only the module jar: register names the core jar

Exits non-zero on any failed check and prints 'N passed, N failed' last.
"""

import random
import sys

import pyspark
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom

checks = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    checks["passed" if ok else "failed"] += 1
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail), flush=True)


def session(jars):
    b = (SparkSession.builder.master("local[2]").appName("sparkbloom-package")
         .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
         .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
         .config("spark.sql.shuffle.partitions", "4"))
    if jars:
        b = b.config("spark.jars", jars)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def expect_error(spark, needle):
    try:
        sparkbloom.register(spark)
        check("register fails", False, "no error")
    except sparkbloom.SparkBloomError as e:
        check("register raises SparkBloomError naming " + repr(needle), needle in str(e), str(e))


def without_pyspark():
    """test_jars_without_pyspark's cases, on the installed package."""
    from pathlib import Path

    import test_jars_without_pyspark as cases

    installed = Path(sparkbloom.__file__).resolve().parent.parent
    for name in sorted(n for n in dir(cases) if n.startswith("test_")):
        try:
            getattr(cases, name)(installed)
            check("jars() without pyspark: " + name, True)
        except AssertionError as e:
            check("jars() without pyspark: " + name, False, str(e)[:300])


def native_reads(filters, history, what):
    """The filters Spark built, read by the native module in this Python process (no JVM)."""
    missing, identical = 0, True
    for row in filters.collect():
        blob = bytes(row.filter)
        f = sparkbloom.BloomFilter.from_bytes(blob)
        missing += sum(1 for item in history[row.user] if item not in f)
        identical = identical and f.to_bytes() == blob
    check(f"native BloomFilter.from_bytes: every {what} in the filters Spark built", missing == 0, str(missing))
    check(f"native to_bytes: the {what} filters re-encoded byte for byte", identical)


def register_quietly(spark):
    """sparkbloom.register twice in one session, the JVM's log4j captured meanwhile at WARN: Spark's
    function registry warns "replaced a previously registered function" for every replacement, and
    neither the first registration nor a second may cause one."""
    jvm = spark._jvm
    log4j = jvm.org.apache.logging.log4j
    written = jvm.java.io.StringWriter()
    appender = log4j.core.appender.WriterAppender.createAppender(
        log4j.core.layout.PatternLayout.createDefaultLayout(), None, written, "sparkbloom-check", False, True)
    appender.start()
    context = log4j.LogManager.getContext(False)
    root = context.getConfiguration().getRootLogger()
    root.addAppender(appender, None, None)
    context.updateLoggers()
    spark.sparkContext.setLogLevel("WARN")
    try:
        sparkbloom.register(spark)
        first = written.toString()
        sparkbloom.register(spark)
        again = written.toString()[len(first):]
        # the capture sees what Spark logs: a warning by the registry's own logger, through SLF4J
        jvm.org.slf4j.LoggerFactory.getLogger("org.apache.spark.sql.catalyst.analysis.SimpleFunctionRegistry") \
            .warn("sparkbloom log capture check")
        probe = written.toString()
    finally:
        spark.sparkContext.setLogLevel("ERROR")
        root.removeAppender("sparkbloom-check")
        context.updateLoggers()
        appender.stop()
    replaced = "replaced a previously registered function"
    check("the log capture sees the registry's warnings", "sparkbloom log capture check" in probe, probe[-300:])
    check("register logs no 'replaced a previously registered function'", replaced not in first, first[:600])
    check("register again in the session: none either", replaced not in again, again[:600])


def pipeline():
    scala = sparkbloom.scala_binary_version()
    expected = "2.12" if pyspark.__version__.startswith("3.") else "2.13"
    check(f"PySpark {pyspark.__version__} uses the Scala {expected} jars", scala == expected, scala)
    paths = sparkbloom.jar_paths()
    # the package's version, or its development build (-SNAPSHOT) from a checkout's mvn install
    versions = (sparkbloom.JAR_VERSION, sparkbloom.JAR_VERSION + "-SNAPSHOT")
    check("jars(): the core jar and sparkbloom-spark_" + scala,
          any(paths[0].endswith(f"/sparkbloom-{v}.jar") and paths[1].endswith(f"/sparkbloom-spark_{scala}-{v}.jar")
              for v in versions), str(paths))
    without_pyspark()
    for bad in [(0, 0.01), (10, 0.0), (10, 1.0), (True, 0.1)]:
        try:
            sparkbloom.build("item", *bad)
            check(f"build{bad} rejected", False)
        except ValueError as e:
            check(f"build{bad} rejected: {e}", True)

    spark = sparkbloom.with_jars(SparkSession.builder.master("local[2]").appName("sparkbloom-package")
                                 .config("spark.ui.enabled", "false")
                                 .config("spark.ui.showConsoleProgress", "false")
                                 .config("spark.driver.host", "127.0.0.1")
                                 .config("spark.driver.bindAddress", "127.0.0.1")
                                 .config("spark.sql.shuffle.partitions", "4")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    print("Spark", spark.version, flush=True)
    register_quietly(spark)

    rnd = random.Random(666)
    history = {str(u): [rnd.getrandbits(64) - 2**63 for _ in range(200)] for u in range(40)}
    candidates = {}
    for user, items in history.items():
        c = rnd.sample(items, 100) + [rnd.getrandbits(64) - 2**63 for _ in range(100)]
        rnd.shuffle(c)
        candidates[user] = c
    candidates["no-history"] = [5, 6, 7]
    hist_df = spark.createDataFrame([(u, i) for u, its in history.items() for i in its], "user string, item bigint")
    cand_df = spark.createDataFrame(list(candidates.items()), "user string, items array<bigint>")

    filters = hist_df.groupBy("user").agg(sparkbloom.build("item", 10000, 0.001).alias("filter"))
    check("build: a binary column", dict(filters.dtypes)["filter"] == "binary")
    native_reads(filters, history, "history item")
    kept = {r.user: r.items for r in cand_df.join(filters, "user", "left")
            .select("user", sparkbloom.retain_absent("filter", "items").alias("items")).collect()}
    seen_passed = sum(1 for u, its in kept.items() for i in (its or []) if i in set(history.get(u, [])))
    unseen = sum(1 for u, its in candidates.items() for i in its if i not in set(history.get(u, [])))
    dropped = unseen - sum(len(its or []) for its in kept.values())
    check("retain_absent: no seen item passes", seen_passed == 0, str(seen_passed))
    # binomial bound at p = 0.001: mean + 4 sigma + 1
    bound = 0.001 * unseen + 4 * (unseen * 0.001) ** 0.5 + 1
    check(f"retain_absent: dropped {dropped} of {unseen} unseen, within {bound:.1f}", 0 <= dropped <= bound)
    check("retain_absent: null filter keeps all", kept["no-history"] == [5, 6, 7], str(kept["no-history"]))
    missing = (hist_df.join(filters, "user").where(~sparkbloom.might_contain("filter", "item")).count())
    check("might_contain: every history item contained", missing == 0, str(missing))
    sql = spark.sql("SELECT sparkbloom_build(id, 100, 0.01) AS f FROM range(10)")
    check("SQL names registered", sql.select(sparkbloom.might_contain("f", 5).alias("c")).first().c is True)
    ints = spark.createDataFrame([(1, [1, 2, 3])], "item int, items array<int>")
    small = ints.groupBy().agg(sparkbloom.build("item", 10, 0.01).alias("f"))
    kept_ints = small.crossJoin(ints).select(sparkbloom.retain_absent("f", "items").alias("k")).first().k
    check("int and array<int> columns are widened", kept_ints == [2, 3], str(kept_ints))

    # per-key sizing, history as arrays, merge and count: the same filters two ways
    per_key = hist_df.groupBy("user").agg(sparkbloom.build_per_key("item", 0.001).alias("filter"))
    arrays = spark.createDataFrame(list(history.items()), "user string, items array<bigint>")
    from_arrays = arrays.select("user", sparkbloom.build_array("items", 0.001).alias("filter"))
    same = per_key.join(from_arrays.withColumnRenamed("filter", "a"), "user").where("filter = a").count()
    check("build_array: the bytes of build_per_key over the same items", same == len(history), str(same))
    native_reads(per_key, history, "history item (per-key)")
    # one fixed-size filter per row, merged: the union of 40 one-item filters
    union = (spark.range(40).select(sparkbloom.build_array(F.array("id"), 0.01, n=1000).alias("f"))
             .groupBy().agg(sparkbloom.merge("f").alias("u")))
    counted = union.select(sparkbloom.approximate_count("u").alias("n")).first().n
    check("merge + approximate_count: about 40 distinct items", 38 <= counted <= 42, str(counted))
    try:
        sparkbloom.build_per_key("item", 1.5)
        check("build_per_key(p=1.5) rejected", False)
    except ValueError as e:
        check(f"build_per_key(p=1.5) rejected: {e}", True)

    # string items, with non-ASCII and non-BMP ids, against exact sets
    alphabet = ["a", "b", "7", "/", "\u00e9", "\u0436", "\u65e5", "\U0001F600"]

    def word():
        return "".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 10)))

    shist = {u: [word() for _ in range(150)] for u in ("s1", "s2", "s3")}
    scand = {u: rnd.sample(its, 50) + [word() for _ in range(50)] for u, its in shist.items()}
    sh_df = spark.createDataFrame([(u, w) for u, its in shist.items() for w in its], "user string, url string")
    sc_df = spark.createDataFrame(list(scand.items()), "user string, urls array<string>")
    sfilters = sh_df.groupBy("user").agg(sparkbloom.build_strings("url", 1000, 0.001).alias("filter"))
    native_reads(sfilters, shist, "history string")
    skept = {r.user: r.urls for r in sc_df.join(sfilters, "user")
             .select("user", sparkbloom.retain_absent_strings("filter", "urls").alias("urls")).collect()}
    check("retain_absent_strings: no seen string passes",
          all(w not in set(shist[u]) for u, ws in skept.items() for w in ws), str(skept))
    check("retain_absent_strings: only candidates, in order",
          all(ws == [w for w in scand[u] if w in set(ws)] for u, ws in skept.items()))
    sunseen = sum(1 for u, ws in scand.items() for w in ws if w not in set(shist[u]))
    skept_n = sum(len(ws) for ws in skept.values())
    check(f"retain_absent_strings: kept {skept_n} of {sunseen} unseen", sunseen - 3 <= skept_n <= sunseen)
    smissing = sh_df.join(sfilters, "user").where(~sparkbloom.might_contain("filter", "url")).count()
    check("might_contain on strings: every history string contained", smissing == 0, str(smissing))
    try:
        sc_df.join(sfilters, "user").select(sparkbloom.retain_absent("filter", "urls")).collect()
        check("retain_absent on array<string> is an error", False)
    except Exception as e:  # the analysis error (UNEXPECTED_INPUT_TYPE), naming the string function
        check("retain_absent on array<string> names retain_absent_string",
              "sparkbloom_retain_absent_string" in str(e), str(e)[:300])
    spark.stop()


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "pipeline"
    if mode == "pipeline":
        pipeline()
    elif mode == "no-jars":
        expect_error(session(None), "is not on this Spark session's classpath")
    elif mode == "no-core":
        module_only = sparkbloom.jar_paths()[1]
        expect_error(session(module_only), "core jar io.sparkbloom:sparkbloom")
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 0 if checks["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
