"""A PySpark user of the release who resolves the jars from a Maven repository, as a cluster
that takes ``spark.jars.packages`` does (scripts/test-release.sh runs it in a fresh virtualenv
holding pyspark and the sparkbloom wheel):

    python release_consumer.py REPOSITORY_URL IVY_DIR REDIS_URI TABLE_DIR

1. ``sparkbloom.with_packages`` sets the coordinates of the Spark module and of sparkbloom-redis;
   Spark resolves both (and the core jar, Jedis) from REPOSITORY_URL and Maven Central;
2. per-user filters built with the SQL functions, candidates deduped against them, checked
   against the exact sets; the filters saved as a Parquet table in TABLE_DIR for a JVM-less
   service;
3. the same filters pushed to a real Redis (RedisPush) and checked there in one round trip per
   user (RedisBloom.retainAbsent), with the same answers.

Exits non-zero on any failed check and prints 'N passed, N failed' last.
"""

import random
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom

checks = {"passed": 0, "failed": 0}


def check(name, ok, detail=""):
    checks["passed" if ok else "failed"] += 1
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok else ": " + detail), flush=True)


def main(repository, ivy, redis_uri, table_dir):
    redis_package = f"io.sparkbloom:sparkbloom-redis:{sparkbloom.JAR_VERSION}"
    builder = (SparkSession.builder.master("local[2]").appName("sparkbloom-release")
               .config("spark.jars.ivy", ivy)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1"))
    spark = sparkbloom.with_packages(builder, extra_packages=[redis_package], repositories=repository).getOrCreate()
    jars = spark.sparkContext.getConf().get("spark.jars", "")
    print("spark.jars (resolved): " + jars, flush=True)
    version = sparkbloom.JAR_VERSION
    for artifact in (f"io.sparkbloom_sparkbloom-{version}.jar", "io.sparkbloom_sparkbloom-spark_2.1",
                     f"io.sparkbloom_sparkbloom-redis-{version}.jar", "redis.clients_jedis-"):
        check(f"spark.jars.packages resolved {artifact}", artifact in jars, jars)
    sparkbloom.register(spark)

    rng = random.Random(20261203)
    users, per_user, n, p = 40, 150, 1000, 0.01
    history = {u: {rng.randrange(1 << 40) for _ in range(per_user)} for u in range(users)}
    candidates = {u: rng.sample(sorted(history[u]), 50) + [rng.randrange(1 << 40) for _ in range(50)]
                  for u in range(users)}
    hist_df = spark.createDataFrame([(u, i) for u, items in history.items() for i in items], "user long, item long")
    cand_df = spark.createDataFrame(list(candidates.items()), "user long, items array<long>")

    filters = hist_df.groupBy("user").agg(sparkbloom.build("item", n, p).alias("filter")).cache()
    kept = {r["user"]: list(r["fresh"]) for r in cand_df.join(filters, "user", "left").select(
        "user", sparkbloom.retain_absent("filter", "items").alias("fresh")).collect()}
    seen_kept = sum(1 for u in kept for i in kept[u] if i in history[u])
    unseen_dropped = sum(1 for u in candidates for i in candidates[u] if i not in history[u] and i not in kept[u])
    check("SQL dedup: no seen item kept (no false negative)", seen_kept == 0, str(seen_kept))
    # at most p of the unseen candidates, plus five standard deviations of that binomial count
    unseen = sum(1 for u in candidates for i in candidates[u] if i not in history[u])
    bound = unseen * p + 5 * (unseen * p) ** 0.5 + 1
    check(f"SQL dedup: unseen items dropped (false positives) within p={p}", unseen_dropped <= bound,
          f"{unseen_dropped} of {unseen}, bound {bound:.0f}")
    filters.write.mode("overwrite").parquet(table_dir)

    jvm = spark.sparkContext._jvm
    layout = jvm.io.sparkbloom.redis.RedisLayout.guavaCompatible(n, p)
    pushed = jvm.io.sparkbloom.redis.spark.RedisPush.pushDataFrame(
        filters._jdf, "user", "filter", redis_uri, layout, "seen:")
    check("RedisPush wrote every user's filter", pushed == users, str(pushed))
    client = jvm.io.sparkbloom.redis.RedisBloom.connect(redis_uri, layout)
    gateway = spark.sparkContext._gateway
    same = 0
    for u in range(users):
        array = gateway.new_array(gateway.jvm.long, len(candidates[u]))
        for index, item in enumerate(candidates[u]):
            array[index] = item
        same += list(client.retainAbsent(f"seen:{u}", array)) == kept[u]
    client.close()
    check("Redis retainAbsent answers as the SQL function, user by user", same == users, f"{same} of {users}")
    spark.stop()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
    print(f"{checks['passed']} passed, {checks['failed']} failed")
    sys.exit(1 if checks["failed"] else 0)
