"""Spark Connect client check of the sparkbloom SQL extension (run by scripts/test-sql.sh).

Connects to a Spark Connect server started with
``spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions`` and runs the per-user dedup
with no JVM on the client side: once in SQL, once through the DataFrame API
(``F.call_function``), once through the ``sparkbloom`` package's Column functions, plus
sparkbloom_merge / sparkbloom_count and an analysis error.

Usage: python connect_sql_client.py sc://127.0.0.1:PORT
"""

import logging
import sys

from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.connect.session import SparkSession as ConnectSession

# u1 has seen items 1..1000 and u2 items 1001..2000; u3 has no history.
CANDIDATES = [("u1", [5, 1500, 2001, 3000]), ("u2", [5, 1500, 2002]), ("u3", [7])]
EXPECTED = {"u1": [1500, 2001, 3000], "u2": [5, 2002], "u3": [7]}


def check(label, rows):
    got = {r["user"]: list(r["fresh"]) for r in rows}
    if got != EXPECTED:
        raise AssertionError(f"{label}: expected {EXPECTED}, got {got}")
    print(f"[connect] {label}: {got}")


def main(url):
    spark = SparkSession.builder.remote(url).getOrCreate()
    if not isinstance(spark, ConnectSession):
        raise AssertionError(f"not a Spark Connect session: {type(spark)}")

    # SQL only
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW history AS"
              " SELECT IF(id <= 1000, 'u1', 'u2') AS user, id AS item FROM range(1, 2001)")
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW filters AS SELECT user,"
              " sparkbloom_build_per_key(item, 0.001) AS filter FROM history GROUP BY user")
    spark.createDataFrame(CANDIDATES, "user string, items array<bigint>") \
        .createOrReplaceTempView("candidates")
    check("SQL", spark.sql("SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) AS fresh"
                           " FROM candidates c LEFT JOIN filters f ON c.user = f.user").collect())

    # DataFrame API
    history = spark.range(1, 2001).select(
        F.when(F.col("id") <= 1000, "u1").otherwise("u2").alias("user"), F.col("id").alias("item"))
    filters = history.groupBy("user").agg(
        F.call_function("sparkbloom_build_per_key", F.col("item"), F.lit(0.001)).alias("filter"))
    candidates = spark.createDataFrame(CANDIDATES, "user string, items array<bigint>")
    fresh = candidates.join(filters, "user", "left").select(
        "user",
        F.call_function("sparkbloom_retain_absent", F.col("filter"), F.col("items")).alias("fresh"))
    check("DataFrame", fresh.collect())

    # the sparkbloom package's Column functions (python/ on PYTHONPATH: the functions need no
    # native module): register only checks the server's extension on Connect
    import sparkbloom
    sparkbloom.register(spark)
    filters = history.groupBy("user").agg(sparkbloom.build_per_key("item", 0.001).alias("filter"))
    fresh = candidates.join(filters, "user", "left").select(
        "user", sparkbloom.retain_absent("filter", "items").alias("fresh"))
    check("the sparkbloom package", fresh.collect())
    arrays = history.groupBy("user").agg(F.collect_list("item").alias("items"))
    same = filters.join(arrays.select("user", sparkbloom.build_array("items", 0.001).alias("a")), "user")
    if same.where("filter = a").count() != 2:
        raise AssertionError("build_array: not the bytes of build_per_key over the same items")
    from pyspark import SparkContext
    if SparkContext._gateway is not None or SparkContext._jvm is not None:
        raise AssertionError("the client started a JVM")
    print("[connect] the sparkbloom package: no JVM on the client")

    # no seen item ever comes back, on 20 users x 500 items (every seen item is a candidate)
    seen_back = spark.sql(
        "WITH h AS (SELECT id DIV 500 AS user, id AS item FROM range(10000)),"
        " f AS (SELECT user, sparkbloom_build_per_key(item, 0.01) AS filter FROM h GROUP BY user),"
        " c AS (SELECT user, collect_list(item) AS items FROM h GROUP BY user),"
        " kept AS (SELECT c.user, explode(sparkbloom_retain_absent(f.filter, c.items)) AS item"
        "   FROM c JOIN f ON c.user = f.user)"
        " SELECT count(*) AS n FROM kept").collect()[0]["n"]
    if seen_back != 0:
        raise AssertionError(f"{seen_back} seen items came back")

    # merge of same-shaped per-user filters; count
    row = spark.sql(
        "SELECT sparkbloom_might_contain(m, 1) AS has1, sparkbloom_might_contain(m, 2000) AS has2000,"
        " sparkbloom_count(m) AS n FROM (SELECT sparkbloom_merge(filter) AS m FROM"
        " (SELECT sparkbloom_build(item, 4000, 0.001) AS filter FROM history GROUP BY user))").first()
    if not (row["has1"] and row["has2000"]) or row["n"] is None or row["n"] <= 0:
        raise AssertionError(f"merge/count: {row}")
    print(f"[connect] merge/count: {row}")

    # analysis errors reach the client as Spark's own (pyspark also logs them: quiet here)
    logging.getLogger("SQLQueryContextLogger").disabled = True
    try:
        spark.sql("SELECT sparkbloom_count()").collect()
        raise AssertionError("sparkbloom_count() was accepted")
    except AnalysisException as e:
        if "WRONG_NUM_ARGS" not in str(e) or "sparkbloom_count" not in str(e):
            raise AssertionError(f"unexpected error: {e}") from e
    print("[connect] OK")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
