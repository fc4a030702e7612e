"""The Spark half of the Parquet flow in scripts/test-python-interop.sh: a PySpark job (local[2],
sparkbloom's jars, its SQL extension) builds one filter per user from a history and writes them
as Parquet tables ``(user, filter BINARY)`` of FORMAT.md bytes, with the candidates and Spark's
own ``sparkbloom_retain_absent`` answers, for check_without_jvm.py to compare against.

    spark_job.py OUT_DIR

Tables under OUT_DIR: history (user, item), filters (user, filter) built in SQL by
sparkbloom_build_per_key (each user's filter sized for its own item count), string_filters
(user, filter) built by the DataFrame function sparkbloom.build_strings over "i" + item, and
answers (user, items, kept, string_items, kept_strings).
"""

import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import sparkbloom

USERS = 2_000  # with history; 50 more have candidates only
HISTORY_ROWS = 200_000


def main(out):
    spark = (
        sparkbloom.with_jars(SparkSession.builder.master("local[2]").appName("sparkbloom-python-interop"))
        .config("spark.sql.extensions", "io.sparkbloom.spark.SparkBloomExtensions")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    # A skewed history: user ids near 0 have hundreds of items, the last ones a few; items are
    # random 64-bit longs, negative ones included.
    history = spark.range(HISTORY_ROWS).select(
        F.expr(f"CAST(pow(pmod(xxhash64(id, 7), 1000000) / 1e6, 2) * {USERS} AS INT)").alias("user"),
        F.expr("xxhash64(id, 11)").alias("item"),
    )
    history.write.mode("overwrite").parquet(f"{out}/history")
    spark.read.parquet(f"{out}/history").createOrReplaceTempView("history")

    # SQL (the extension's functions): each user's filter sized for its own distinct items at 1 %
    spark.sql("""
        SELECT user, sparkbloom_build_per_key(item, 0.01) AS filter FROM history GROUP BY user
    """).write.mode("overwrite").parquet(f"{out}/filters")
    # the DataFrame function, string items hashed as their UTF-8 bytes
    string_filters = spark.table("history").groupBy("user").agg(
        sparkbloom.build_strings(F.concat(F.lit("i"), F.col("item").cast("string")), 1_000, 0.01).alias("filter"))
    string_filters.write.mode("overwrite").parquet(f"{out}/string_filters")

    # candidates: 20 items each user saw (fewer where the user has fewer) and 40 random ones;
    # 50 users without history get only the random ones (Spark keeps them all)
    spark.read.parquet(f"{out}/filters").createOrReplaceTempView("filters")
    spark.read.parquet(f"{out}/string_filters").createOrReplaceTempView("string_filters")
    spark.sql(f"""
        WITH seen AS (SELECT user, slice(sort_array(collect_list(item)), 1, 20) AS seen
                      FROM history GROUP BY user),
             users AS (SELECT user FROM seen UNION ALL
                       SELECT CAST(id AS INT) AS user FROM range({USERS}, {USERS + 50}))
        SELECT u.user,
               concat(coalesce(s.seen, CAST(array() AS array<bigint>)),
                      transform(sequence(1, 40), x -> xxhash64(u.user, x, 13))) AS items
        FROM users u LEFT JOIN seen s ON u.user = s.user
    """).createOrReplaceTempView("candidates")
    answers = spark.sql("""
        SELECT c.user, c.items, sparkbloom_retain_absent(f.filter, c.items) AS kept,
               transform(c.items, x -> concat('i', CAST(x AS STRING))) AS string_items,
               sparkbloom_retain_absent_string(s.filter,
                   transform(c.items, x -> concat('i', CAST(x AS STRING)))) AS kept_strings
        FROM candidates c LEFT JOIN filters f ON c.user = f.user
                          LEFT JOIN string_filters s ON c.user = s.user
    """)
    answers.write.mode("overwrite").parquet(f"{out}/answers")

    stats = spark.read.parquet(f"{out}/answers").select(
        F.count("*").alias("users"),
        F.sum(F.size("items")).alias("candidates"),
        F.sum(F.size("kept")).alias("kept"),
    ).first()
    filters = spark.read.parquet(f"{out}/filters").select(
        F.count("*").alias("n"), F.sum(F.length("filter")).alias("bytes")).first()
    print(f"Spark {spark.version}: {filters.n:,} users' filters ({filters.bytes:,} bytes) from "
          f"{HISTORY_ROWS:,} history rows; retain_absent for {stats.users:,} users kept {stats.kept:,} of "
          f"{stats.candidates:,} candidates")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
