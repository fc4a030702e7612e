"""Locating the two jars a Spark session needs: the core jar and the Scala-suffixed module."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import List, Optional

from ._errors import JarsNotFoundError, SparkBloomError
from ._version import package_version

#: The Maven version of the jars this package goes with: the package's own. A development build
#: of the jars (``mvn install`` from a checkout) is this version with ``-SNAPSHOT``, which the
#: Maven repository lookup also accepts.
JAR_VERSION = package_version()

# The command README.md's "Installing" gives for putting both Spark lines' jars into ~/.m2
# (python/tests/test_jars_without_pyspark.py holds the two equal).
INSTALL_COMMAND = "mvn -B -f jvm/pom.xml -pl sparkbloom-spark,sparkbloom-spark-scala-2.12 -am install -DskipTests"

_PACKAGE_JARS = Path(__file__).resolve().parent / "jars"

# Spark's own core jar, whose name carries the Scala binary version Spark was built with.
_SPARK_CORE_JAR = re.compile(r"spark-core_(2\.1[23])-.+\.jar")


def scala_binary_version(pyspark_version: Optional[str] = None) -> str:
    """The Scala binary version of a PySpark distribution: "2.12" for 3.x, "2.13" for 4.x.

    ``pyspark_version`` defaults to the installed pyspark's ``__version__``; where pyspark cannot
    be imported, the Scala suffix of ``spark-core_<scala>-<version>.jar`` in ``$SPARK_HOME/jars``
    (the Spark that ``spark-submit`` will run) is taken. Raises :class:`SparkBloomError` when
    neither tells.
    """
    if pyspark_version is None:
        try:
            import pyspark
        except ImportError:
            return _spark_home_scala_binary()
        pyspark_version = pyspark.__version__
    major = int(pyspark_version.split(".")[0])
    if major < 3:
        raise ValueError(f"PySpark {pyspark_version} is not supported: sparkbloom needs Spark 3.5 or 4.x")
    return "2.12" if major == 3 else "2.13"


def _spark_home_scala_binary() -> str:
    spark_home = os.environ.get("SPARK_HOME")
    if spark_home:
        jars_dir = Path(spark_home) / "jars"
        suffixes = sorted(
            {m.group(1) for m in map(_SPARK_CORE_JAR.fullmatch, _file_names(jars_dir)) if m}
        )
        if len(suffixes) == 1:
            return suffixes[0]
        found = f"spark-core jars for Scala {', '.join(suffixes)}" if suffixes else "no spark-core_<scala>-*.jar"
        where = f"$SPARK_HOME/jars ({jars_dir}) holds {found}"
    else:
        where = "SPARK_HOME is not set"
    raise SparkBloomError(
        f"cannot tell which Scala version sparkbloom's jars must be built for: pyspark cannot be imported "
        f"and {where}; install pyspark, set SPARK_HOME to your Spark, or pass scala_binary='2.12' "
        "(Spark 3.5) or scala_binary='2.13' (Spark 4)"
    )


def _file_names(directory: Path) -> List[str]:
    try:
        return [entry.name for entry in directory.iterdir()]
    except OSError:
        return []


def jar_names(scala_binary: str, version: str = JAR_VERSION) -> List[str]:
    """File names of the core jar and the Spark module for ``scala_binary``."""
    return [f"sparkbloom-{version}.jar", f"sparkbloom-spark_{scala_binary}-{version}.jar"]


def jar_paths(scala_binary: Optional[str] = None, version: str = JAR_VERSION) -> List[str]:
    """Absolute paths of the two jars, looked up in this order:

    1. ``$SPARKBLOOM_JARS``: comma-separated paths, taken as given (each must exist);
    2. jars carried inside this package (``sparkbloom/jars/``);
    3. the Maven local repository (``$SPARKBLOOM_MAVEN_REPO``, default ``~/.m2/repository``),
       where ``mvn -f jvm/pom.xml install`` puts them.

    Raises :class:`SparkBloomError` (a ``JarsNotFoundError``, also a ``FileNotFoundError``)
    naming every place looked at and how to install the jars.
    """
    explicit = os.environ.get("SPARKBLOOM_JARS")
    if explicit:
        paths = [p.strip() for p in explicit.split(",") if p.strip()]
        missing = [p for p in paths if not Path(p).is_file()]
        if missing:
            raise JarsNotFoundError(f"SPARKBLOOM_JARS names jars that do not exist: {', '.join(missing)}")
        return [str(Path(p).resolve()) for p in paths]

    if scala_binary is None:
        scala_binary = scala_binary_version()
    core, module = jar_names(scala_binary, version)
    repo = Path(os.environ.get("SPARKBLOOM_MAVEN_REPO", Path.home() / ".m2" / "repository"))
    candidates = [[_PACKAGE_JARS / core, _PACKAGE_JARS / module]]
    for maven_version in (version, f"{version}-SNAPSHOT"):
        names = jar_names(scala_binary, maven_version)
        candidates.append([
            repo / "io" / "sparkbloom" / "sparkbloom" / maven_version / names[0],
            repo / "io" / "sparkbloom" / f"sparkbloom-spark_{scala_binary}" / maven_version / names[1],
        ])
    for pair in candidates:
        if all(p.is_file() for p in pair):
            return [str(p) for p in pair]
    looked = "; ".join(str(p) for pair in candidates for p in pair)
    raise JarsNotFoundError(
        f"sparkbloom's jars for Scala {scala_binary} ({core}, {module}) were not found; looked at: {looked}. "
        f"Install them with `{INSTALL_COMMAND}` from the sparkbloom repository, "
        "or set SPARKBLOOM_JARS to their comma-separated paths"
    )


def packages(scala_binary: Optional[str] = None, version: str = JAR_VERSION) -> str:
    """sparkbloom's Maven coordinates, the form ``spark.jars.packages`` and ``--packages`` take: the
    Spark module for ``scala_binary`` (default: as :func:`scala_binary_version` tells), which
    brings the core jar with it.

    >>> sparkbloom.packages("2.13")
    'io.sparkbloom:sparkbloom-spark_2.13:0.1.0'
    """
    if scala_binary is None:
        scala_binary = scala_binary_version()
    if scala_binary not in ("2.12", "2.13"):
        raise ValueError(f"scala_binary must be '2.12' (Spark 3.5) or '2.13' (Spark 4), not {scala_binary!r}")
    return f"io.sparkbloom:sparkbloom-spark_{scala_binary}:{version}"


def jars(scala_binary: Optional[str] = None, version: str = JAR_VERSION) -> str:
    """The two jars as one comma-separated string, the form ``spark.jars`` and ``--jars`` take.

    >>> spark = SparkSession.builder.config("spark.jars", sparkbloom.jars()).getOrCreate()
    """
    return ",".join(jar_paths(scala_binary, version))
