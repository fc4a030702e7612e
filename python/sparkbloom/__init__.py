"""sparkbloom: Bloom filters with a Rust core, bit-exact with Guava's and Spark's, for Python
services (the native module, no JVM) and for PySpark (per-group filters in DataFrames, backed by
sparkbloom's JVM jars).

    from sparkbloom import BloomFilter
    seen = BloomFilter.from_bytes(blob)             # a filter Spark built (FORMAT.md bytes)
    seen.retain_absent(numpy.array(items))          # the items certainly not seen, in order

    import sparkbloom
    spark = sparkbloom.with_jars(SparkSession.builder).getOrCreate()   # or spark.jars = sparkbloom.jars()
    # or sparkbloom.with_packages(builder): spark.jars.packages, resolved from a Maven repository
    sparkbloom.register(spark)
    filters = history.groupBy("user").agg(sparkbloom.build("item", 10000, 0.001).alias("filter"))
    kept = candidates.join(filters, "user", "left").select(
        "user", sparkbloom.retain_absent("filter", "items").alias("items"))
    # string items: build_strings / retain_absent_strings; might_contain takes either;
    # build_per_key (each group sized for its own items), build_array (history as arrays),
    # merge, approximate_count. On Spark Connect the server's extension provides the functions.

Works with PySpark 3.5 (Scala 2.12 jars) and 4.x (Scala 2.13 jars); :func:`jars` picks by the
installed pyspark, else by the Spark under ``$SPARK_HOME``, and needs neither pyspark nor a JVM.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from ._errors import SparkBloomError
from ._jars import JAR_VERSION, jar_paths, jars, packages, scala_binary_version

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from ._native import (STRATEGIES, BloomFilter, CorruptFilterError, CountingBloomFilter, FilterTooLargeError,
                          RedisLayout, per_key_shape)

__version__ = JAR_VERSION

__all__ = [
    "JAR_VERSION",
    "STRATEGIES",
    "BloomFilter",
    "CorruptFilterError",
    "CountingBloomFilter",
    "FilterTooLargeError",
    "RedisLayout",
    "SparkBloomError",
    "approximate_count",
    "build",
    "build_array",
    "build_per_key",
    "build_strings",
    "jar_paths",
    "jars",
    "merge",
    "might_contain",
    "packages",
    "per_key_shape",
    "register",
    "retain_absent",
    "retain_absent_strings",
    "scala_binary_version",
    "with_jars",
    "with_packages",
]


def with_jars(builder: "SparkSession.Builder", scala_binary: Optional[str] = None) -> "SparkSession.Builder":
    """``builder`` with ``spark.jars`` set to sparkbloom's two jars (see :func:`jars`)."""
    return builder.config("spark.jars", jars(scala_binary))


def with_packages(
    builder: "SparkSession.Builder",
    scala_binary: Optional[str] = None,
    extra_packages: Sequence[str] = (),
    repositories: Optional[str] = None,
) -> "SparkSession.Builder":
    """``builder`` with ``spark.jars.packages`` set to sparkbloom's coordinates (see
    :func:`packages`) and ``extra_packages``, for a cluster that resolves its jars from a Maven
    repository rather than taking the jars this package carries. ``repositories``
    (``spark.jars.repositories``, comma-separated URLs) adds repositories beside Maven Central.

    >>> spark = sparkbloom.with_packages(SparkSession.builder).getOrCreate()
    """
    builder = builder.config("spark.jars.packages", ",".join([packages(scala_binary), *extra_packages]))
    if repositories:
        builder = builder.config("spark.jars.repositories", repositories)
    return builder


_FUNCTIONS = ("approximate_count", "build", "build_array", "build_per_key", "build_strings", "merge",
              "might_contain", "register", "retain_absent", "retain_absent_strings")
_NATIVE = ("BloomFilter", "CorruptFilterError", "CountingBloomFilter", "FilterTooLargeError", "RedisLayout",
           "STRATEGIES", "per_key_shape")


def __getattr__(name: str):
    # The native filters load on first use, so jars() works from a source tree without the
    # compiled extension (python/tests/test_jars_without_pyspark.py).
    if name in _NATIVE:
        from . import _native

        return getattr(_native, name)
    # The pyspark-dependent half loads on first use, so jars() works where pyspark is not installed.
    if name in _FUNCTIONS:
        from . import _functions

        return getattr(_functions, name)
    raise AttributeError(f"module 'sparkbloom' has no attribute {name!r}")
