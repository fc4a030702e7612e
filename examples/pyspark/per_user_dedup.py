"""Per-user dedup from PySpark with sparkbloom's SQL functions, checked against exact sets.

Run with scripts/test-pyspark.sh (it builds the jars and installs the matching pyspark), or:

    python examples/pyspark/per_user_dedup.py --jars sparkbloom.jar,sparkbloom-spark_2.13.jar

Exits non-zero on any failed check and prints 'N passed, N failed' last.
"""

import argparse
import random
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, LongType

checks = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    checks["passed" if ok else "failed"] += 1
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jars", required=True, help="comma-separated: the sparkbloom and sparkbloom-spark jars")
    ap.add_argument("--users", type=int, default=50)
    ap.add_argument("--records", type=int, default=200)
    ap.add_argument("--candidates", type=int, default=200)
    args = ap.parse_args()

    spark = (SparkSession.builder.master("local[2]").appName("sparkbloom-pyspark")
             .config("spark.jars", args.jars)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.sql.shuffle.partitions", "4")
             .getOrCreate())
    spark.sparkContext.setLogLevel("WARN")
    print("Spark", spark.version, flush=True)

    # sparkbloom_build(item, n, p), sparkbloom_retain_absent(filter, items), sparkbloom_might_contain(filter, item)
    spark._jvm.io.sparkbloom.spark.BloomFunctions.register(spark._jsparkSession)

    rnd = random.Random(666)
    history = {str(u): [rnd.getrandbits(64) - 2**63 for _ in range(args.records)] for u in range(args.users)}
    candidates = {}
    for user, items in history.items():
        seen = [rnd.choice(items) for _ in range(args.candidates // 2)]
        unseen = [rnd.getrandbits(64) - 2**63 for _ in range(args.candidates - len(seen))]
        c = seen + unseen
        rnd.shuffle(c)
        candidates[user] = c
    candidates["no-history"] = [1, 2, 3]  # a user with no filter keeps everything

    spark.createDataFrame([(u, i) for u, items in history.items() for i in items], "user string, item bigint") \
        .createOrReplaceTempView("history")
    spark.createDataFrame(list(candidates.items()), "user string, items array<bigint>") \
        .createOrReplaceTempView("candidates")

    # 1. SQL: build one filter per user, keep the candidates it has not seen
    spark.sql("""
        SELECT user, sparkbloom_build(item, 10000, 0.001) AS filter
        FROM history GROUP BY user""").createOrReplaceTempView("filters")
    kept = {r.user: r.items for r in spark.sql("""
        SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) AS items
        FROM candidates c LEFT JOIN filters f ON c.user = f.user""").collect()}

    def verify(label, kept):
        seen_passed = dropped_unseen = unseen_total = 0
        in_order = True
        for user, cands in candidates.items():
            hist = set(history.get(user, []))
            exact = [c for c in cands if c not in hist]
            got = kept.get(user) or []
            seen_passed += sum(1 for c in got if c in hist)
            unseen_total += len(exact)
            dropped_unseen += len(exact) - len(got)
            it = iter(exact)
            in_order &= all(any(g == e for e in it) for g in got)
        check(label + ": every user answered", set(kept) == set(candidates))
        check(label + ": no seen item passes", seen_passed == 0, str(seen_passed))
        bound = 0.001 * unseen_total + 4 * (unseen_total * 0.001) ** 0.5 + 1
        check(label + ": dropped unseen within the FPP bound", 0 <= dropped_unseen <= bound,
              f"{dropped_unseen} of {unseen_total}")
        check(label + ": order kept", in_order)

    verify("SQL", kept)
    check("SQL: user without filter keeps all", kept["no-history"] == [1, 2, 3], str(kept["no-history"]))

    # 2. DataFrame API through expr(), and a Parquet round trip of the binary filter column
    filters = spark.table("history").groupBy("user").agg(F.expr("sparkbloom_build(item, 10000, 0.001)").alias("filter"))
    with tempfile.TemporaryDirectory() as tmp:
        path = tmp + "/filters.parquet"
        filters.write.parquet(path)
        back = spark.read.parquet(path)
        check("Parquet: filter column is binary", dict(back.dtypes)["filter"] == "binary")
        before = {r.user: bytes(r.filter) for r in filters.collect()}
        after = {r.user: bytes(r.filter) for r in back.collect()}
        check("Parquet: bytes identical after the round trip", before == after)
        kept2 = {r.user: r.items for r in spark.table("candidates").join(back, "user", "left")
                 .select("user", F.expr("sparkbloom_retain_absent(filter, items)").alias("items")).collect()}
        verify("Parquet", kept2)
        check("Parquet: same answers as before the round trip", kept2 == kept)

    # 3. might_contain, and registerJavaFunction on the UDF class directly
    missing = spark.sql("""
        SELECT count(*) AS n FROM history h JOIN filters f ON h.user = f.user
        WHERE NOT sparkbloom_might_contain(f.filter, h.item)""").first().n
    check("might_contain: every history item is contained", missing == 0, str(missing))
    spark.udf.registerJavaFunction("keep_unseen", "io.sparkbloom.spark.BloomFunctions$RetainAbsent",
                                   ArrayType(LongType()))
    kept3 = {r.user: r.items for r in spark.sql("""
        SELECT c.user, keep_unseen(f.filter, c.items) AS items
        FROM candidates c LEFT JOIN filters f ON c.user = f.user""").collect()}
    check("registerJavaFunction: same answers", kept3 == kept)

    spark.stop()
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    return 0 if checks["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
