"""Registration and the Column functions over sparkbloom's SQL functions.

The functions run in the JVM (``io.sparkbloom.spark.BloomFunctions``); these wrappers only build
Column expressions calling the SQL names that :func:`register` creates.
"""

from __future__ import annotations

from typing import Union

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

ColumnOrName = Union[Column, str]
ColumnOrInt = Union[Column, str, int]

BUILD = "sparkbloom_build"
RETAIN_ABSENT = "sparkbloom_retain_absent"
MIGHT_CONTAIN = "sparkbloom_might_contain"
_JVM_CLASS = "io.sparkbloom.spark.BloomFunctions"


class SparkBloomError(RuntimeError):
    """sparkbloom cannot be used on this session (jars missing, unsupported session kind)."""


def _jvm(spark: SparkSession):
    try:
        context = getattr(spark, "_sc", None) or spark.sparkContext
        jvm = getattr(context, "_jvm", None)
    except Exception:  # a Spark Connect session raises on sparkContext
        jvm = None
    if jvm is None:
        raise SparkBloomError(
            "sparkbloom needs a classic SparkSession with a JVM on the driver (not a Spark Connect session)"
        )
    return jvm


def register(spark: SparkSession) -> None:
    """Registers ``sparkbloom_build``, ``sparkbloom_retain_absent`` and ``sparkbloom_might_contain``
    as temporary functions of ``spark``'s session, for SQL and for the Column functions here.

    Raises :class:`SparkBloomError` naming what is missing when the jars are not on the session
    (start it with ``.config("spark.jars", sparkbloom.jars())`` or :func:`with_jars`).
    """
    from py4j.java_gateway import JavaClass
    from py4j.protocol import Py4JJavaError

    functions = _jvm(spark)
    for part in _JVM_CLASS.split("."):
        functions = getattr(functions, part)
    if not isinstance(functions, JavaClass):
        raise SparkBloomError(
            f"{_JVM_CLASS} is not on this Spark session's classpath: start the session with "
            '.config("spark.jars", sparkbloom.jars()) (or --jars with the core jar and the '
            "sparkbloom-spark_<scala> jar); spark.jars must be set before the session's JVM starts"
        )
    try:
        functions.register(spark._jsparkSession)
    except Py4JJavaError as e:
        raise SparkBloomError(str(e.java_exception.getMessage())) from e


def _col(c: ColumnOrInt) -> Column:
    """A column name or a Column; an int becomes a literal."""
    if isinstance(c, str):
        return F.col(c)
    if isinstance(c, int) and not isinstance(c, bool):
        return F.lit(c)
    return c


def build(item: ColumnOrName, n: int, p: float) -> Column:
    """Aggregate: one filter per group of ``bigint`` items, sized for ``n`` items at false-positive
    probability ``p``, as a ``binary`` column (the FORMAT.md bytes; store it in Parquet).
    Null items are ignored. Needs :func:`register` on the session.

    >>> filters = history.groupBy("user").agg(sparkbloom.build("item", 10000, 0.001).alias("filter"))
    """
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"n (expected insertions) must be a positive int, got {n!r}")
    if not 0.0 < float(p) < 1.0:
        raise ValueError(f"p (false-positive probability) must be in (0, 1), got {p!r}")
    return F.call_function(BUILD, _col(item).cast("bigint"), F.lit(n).cast("bigint"), F.lit(float(p)).cast("double"))


def retain_absent(filter: ColumnOrName, items: ColumnOrName) -> Column:
    """The elements of ``items`` (``array<bigint>``) that ``filter`` has definitely not seen, in
    their order; a null filter keeps them all (nothing seen). Needs :func:`register`.

    >>> kept = candidates.join(filters, "user", "left").select(
    ...     "user", sparkbloom.retain_absent("filter", "items").alias("items"))
    """
    # cast: the JVM function takes array<bigint> as is, without Spark's implicit widening
    return F.call_function(RETAIN_ABSENT, _col(filter), _col(items).cast("array<bigint>"))


def might_contain(filter: ColumnOrName, item: ColumnOrInt) -> Column:
    """``boolean``: false when ``filter`` has definitely not seen the ``bigint`` ``item``, true when
    it may have (false positives at about the filter's ``p``); an int is taken as a literal.
    Needs :func:`register`."""
    return F.call_function(MIGHT_CONTAIN, _col(filter), _col(item).cast("bigint"))
