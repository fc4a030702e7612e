"""Registration and the Column functions over sparkbloom's SQL functions.

The functions run in the JVM (``io.sparkbloom.spark.BloomFunctions``); these wrappers only build
Column expressions calling the SQL names that :func:`register` creates.
"""

from __future__ import annotations

from typing import Union

from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

from ._errors import SparkBloomError

ColumnOrName = Union[Column, str]
ColumnOrInt = Union[Column, str, int]

BUILD = "sparkbloom_build"
RETAIN_ABSENT = "sparkbloom_retain_absent"
MIGHT_CONTAIN = "sparkbloom_might_contain"
BUILD_STRING = "sparkbloom_build_string"
RETAIN_ABSENT_STRING = "sparkbloom_retain_absent_string"
_JVM_CLASS = "io.sparkbloom.spark.BloomFunctions"


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
    """Registers ``sparkbloom_build``, ``sparkbloom_retain_absent``, ``sparkbloom_might_contain``,
    ``sparkbloom_build_string`` and ``sparkbloom_retain_absent_string`` as temporary functions of
    ``spark``'s session, for SQL and for the Column functions here.

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


def _sizing(n: int, p: float) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise ValueError(f"n (expected insertions) must be a positive int, got {n!r}")
    if not 0.0 < float(p) < 1.0:
        raise ValueError(f"p (false-positive probability) must be in (0, 1), got {p!r}")


def build(item: ColumnOrName, n: int, p: float) -> Column:
    """Aggregate: one filter per group of integer items (``bigint``, ``int``, ``smallint`` or
    ``tinyint``), sized for ``n`` items at false-positive probability ``p``, as a ``binary`` column
    (the FORMAT.md bytes; store it in Parquet). Null items are ignored; a ``string`` column is an
    error (use :func:`build_strings`). Needs :func:`register` on the session.

    >>> filters = history.groupBy("user").agg(sparkbloom.build("item", 10000, 0.001).alias("filter"))
    """
    _sizing(n, p)
    return F.call_function(BUILD, _col(item), F.lit(n).cast("bigint"), F.lit(float(p)).cast("double"))


def build_strings(item: ColumnOrName, n: int, p: float) -> Column:
    """Aggregate: :func:`build` for ``string`` items, each hashed as its UTF-8 bytes (as Guava's
    ``Funnels.stringFunnel(UTF_8)`` and Java's ``BloomFilter.put(String)``). Query the filter with
    :func:`might_contain` on strings or :func:`retain_absent_strings`. Needs :func:`register`.

    >>> filters = visits.groupBy("user").agg(sparkbloom.build_strings("url", 10000, 0.001).alias("filter"))
    """
    _sizing(n, p)
    return F.call_function(BUILD_STRING, _col(item), F.lit(n).cast("bigint"), F.lit(float(p)).cast("double"))


def retain_absent(filter: ColumnOrName, items: ColumnOrName) -> Column:
    """The elements of ``items`` (``array<bigint>`` or ``array<int>``; the result is
    ``array<bigint>``) that ``filter`` has definitely not seen, in their order; a null filter keeps
    them all (nothing seen). ``array<string>`` is an error naming :func:`retain_absent_strings`.
    Needs :func:`register`.

    >>> kept = candidates.join(filters, "user", "left").select(
    ...     "user", sparkbloom.retain_absent("filter", "items").alias("items"))
    """
    return F.call_function(RETAIN_ABSENT, _col(filter), _col(items))


def retain_absent_strings(filter: ColumnOrName, items: ColumnOrName) -> Column:
    """:func:`retain_absent` for ``array<string>`` items (a filter from :func:`build_strings`):
    the strings ``filter`` has definitely not seen, in their order, as ``array<string>``.
    Needs :func:`register`.

    >>> kept = candidates.join(filters, "user", "left").select(
    ...     "user", sparkbloom.retain_absent_strings("filter", "urls").alias("urls"))
    """
    return F.call_function(RETAIN_ABSENT_STRING, _col(filter), _col(items))


def might_contain(filter: ColumnOrName, item: ColumnOrInt) -> Column:
    """``boolean``: false when ``filter`` has definitely not seen ``item``, true when it may have
    (false positives at about the filter's ``p``). ``item`` is an integer or ``string`` column
    (ask with the type the filter was built from: the string ``"42"`` and the number ``42`` are
    different keys); a Python int is taken as a literal, a Python str as a column name (use
    ``F.lit("...")`` for a string literal). Other types are an error naming the type.
    Needs :func:`register`."""
    return F.call_function(MIGHT_CONTAIN, _col(filter), _col(item))
