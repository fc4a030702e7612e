"""Registration and the Column functions over sparkbloom's SQL functions.

The functions run in the JVM (``io.sparkbloom.spark.BloomFunctions``); these wrappers only build
Column expressions calling the SQL names that :func:`register` creates.
"""

from __future__ import annotations

from typing import Optional, Union

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
BUILD_PER_KEY = "sparkbloom_build_per_key"
BUILD_ARRAY = "sparkbloom_build_array"
MERGE = "sparkbloom_merge"
COUNT = "sparkbloom_count"
_EXTENSION = "io.sparkbloom.spark.SparkBloomExtensions"
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


def _is_connect(spark: SparkSession) -> bool:
    """Whether ``spark`` is a Spark Connect session (told by its class, without importing the
    Connect client, whose dependencies a classic install may lack)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def register(spark: SparkSession) -> None:
    """Makes sparkbloom's SQL functions (``sparkbloom_build``, ``sparkbloom_build_per_key``,
    ``sparkbloom_build_array``, ``sparkbloom_retain_absent``, ``sparkbloom_might_contain``, the
    ``_string`` variants, and with the extension ``sparkbloom_merge`` and ``sparkbloom_count``)
    callable in ``spark``'s session, for SQL and for the Column functions here.

    On a classic session it registers them as temporary functions through the driver's JVM. A
    Spark Connect session has no JVM on the client: there the server's
    ``spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions`` puts them in every session,
    and this only checks that they are there.

    Raises :class:`SparkBloomError` naming what is missing: the jars on a classic session (start
    it with ``.config("spark.jars", sparkbloom.jars())`` or :func:`with_jars`), the extension on a
    Connect server.
    """
    if _is_connect(spark):
        if not spark.catalog.functionExists(RETAIN_ABSENT):
            raise SparkBloomError(
                f"the Spark Connect server has no {RETAIN_ABSENT}: start it with the sparkbloom jars and "
                f"--conf spark.sql.extensions={_EXTENSION}"
            )
        return
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


def build_per_key(item: ColumnOrName, p: float) -> Column:
    """Aggregate: :func:`build` with each group's filter sized for its own distinct items at
    false-positive probability ``p`` (``sparkbloom_build_per_key``): a user with 200 items gets a
    filter for 200, not for the largest user's count. Needs :func:`register`.

    >>> filters = history.groupBy("user").agg(sparkbloom.build_per_key("item", 0.001).alias("filter"))
    """
    _sizing(1, p)
    return F.call_function(BUILD_PER_KEY, _col(item), F.lit(float(p)).cast("double"))


def build_array(items: ColumnOrName, p: float, n: Optional[int] = None) -> Column:
    """One filter per row from an ``array`` column of integers or strings
    (``sparkbloom_build_array``), for history already held as one array per user: no
    ``groupBy``. Sized for the row's own distinct items (the bytes :func:`build_per_key` gives over
    the same items), or for ``n`` items when given. A null array gives null. Needs :func:`register`.

    >>> filters = seen.select("user", sparkbloom.build_array("items", 0.001).alias("filter"))
    """
    _sizing(1 if n is None else n, p)
    sizing = [F.lit(float(p)).cast("double")]
    if n is not None:
        sizing.insert(0, F.lit(n).cast("bigint"))
    return F.call_function(BUILD_ARRAY, _col(items), *sizing)


def merge(filter: ColumnOrName) -> Column:
    """Aggregate: the union (bitwise OR) of the group's filters, which must have one shape (built
    with the same ``n`` and ``p``); nulls skipped (``sparkbloom_merge``; needs the session
    extension, or :func:`register` on a classic session whose jars include it).

    >>> weekly = daily.groupBy("user").agg(sparkbloom.merge("filter").alias("filter"))
    """
    return F.call_function(MERGE, _col(filter))


def approximate_count(filter: ColumnOrName) -> Column:
    """``bigint``: the filter's estimate of the distinct items put into it (``sparkbloom_count``)."""
    return F.call_function(COUNT, _col(filter))
