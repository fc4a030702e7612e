"""jars() where pyspark cannot be imported (a spark-submit command line built from a plain Python,
a cluster's Spark under $SPARK_HOME): each case runs in a child interpreter where importing
pyspark or py4j fails, against a Maven repository of empty jar files.

Run with `python3 -m pytest python/tests`; check_package.py runs the same cases against the
installed package.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGE_PARENT = Path(__file__).resolve().parent.parent  # python/, which holds sparkbloom/
README = Path(__file__).resolve().parents[2] / "README.md"

CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])

class NoPySpark:
    # a meta path finder that makes pyspark and py4j unimportable, as if not installed
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("pyspark", "py4j"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoPySpark())
try:
    import pyspark  # noqa: F401
    raise SystemExit("the blocker let pyspark be imported")
except ModuleNotFoundError:
    pass

import sparkbloom
try:
    print(json.dumps({"jars": sparkbloom.jars()}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__, "message": str(e),
                      "is_sparkbloom_error": isinstance(e, sparkbloom.SparkBloomError),
                      "is_file_not_found": isinstance(e, FileNotFoundError)}))
"""


def _maven_repo(root: Path, artifacts=("sparkbloom", "sparkbloom-spark_2.12", "sparkbloom-spark_2.13")) -> Path:
    """A Maven local repository holding (empty) jars of ``artifacts``, by default both Scala lines'."""
    repo = root / "m2"
    repo.mkdir()
    version = "0.1.0-SNAPSHOT"
    for artifact in artifacts:
        directory = repo / "io" / "sparkbloom" / artifact / version
        directory.mkdir(parents=True)
        (directory / f"{artifact}-{version}.jar").write_bytes(b"")
    return repo


def _spark_home(root: Path, spark_core_jar: str) -> Path:
    home = root / "spark"
    (home / "jars").mkdir(parents=True)
    (home / "jars" / spark_core_jar).write_bytes(b"")
    (home / "jars" / "unrelated-1.0.jar").write_bytes(b"")
    return home


def run_jars(root: Path, spark_home=None, package_parent: Path = PACKAGE_PARENT, repo=None) -> dict:
    """sparkbloom.jars() in a child interpreter without pyspark; its result or its error. ``repo``:
    the Maven repository it looks in, by default one holding both Scala lines' jars."""
    env = {k: v for k, v in os.environ.items() if k not in ("SPARKBLOOM_JARS", "SPARK_HOME")}
    env["SPARKBLOOM_MAVEN_REPO"] = str(repo if repo is not None else _maven_repo(root))
    if spark_home is not None:
        env["SPARK_HOME"] = str(spark_home)
    # -I: no PYTHONPATH, no user site; -S: no site-packages, so no installed pyspark either
    child = subprocess.run(
        [sys.executable, "-I", "-S", "-c", CHILD, str(package_parent)],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert child.returncode == 0, child.stderr
    return json.loads(child.stdout.strip().splitlines()[-1])


def _jar_names(result: dict) -> list:
    assert "jars" in result, result
    return [Path(p).name for p in result["jars"].split(",")]


def _carried_jars(package_parent: Path) -> list:
    """The jars a released wheel carries (sparkbloom/jars/), which jars() takes before any Maven
    repository; none in a source tree or a development install."""
    return sorted(p.name for p in (package_parent / "sparkbloom" / "jars").glob("*.jar"))


def _expected(package_parent: Path, scala: str) -> list:
    carried = _carried_jars(package_parent)
    if carried:
        version = carried[0][len("sparkbloom-"):-len(".jar")]
        return [f"sparkbloom-{version}.jar", f"sparkbloom-spark_{scala}-{version}.jar"]
    return ["sparkbloom-0.1.0-SNAPSHOT.jar", f"sparkbloom-spark_{scala}-0.1.0-SNAPSHOT.jar"]


def test_jars_reads_scala_2_13_from_spark_home(package_parent: Path = PACKAGE_PARENT):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = _spark_home(root, "spark-core_2.13-4.1.3.jar")
        result = run_jars(root, home, package_parent)
    assert _jar_names(result) == _expected(package_parent, "2.13")


def test_jars_reads_scala_2_12_from_spark_home(package_parent: Path = PACKAGE_PARENT):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = _spark_home(root, "spark-core_2.12-3.5.9.jar")
        result = run_jars(root, home, package_parent)
    assert _jar_names(result) == _expected(package_parent, "2.12")


def test_jars_without_pyspark_or_spark_home_names_what_to_set(package_parent: Path = PACKAGE_PARENT):
    with tempfile.TemporaryDirectory() as tmp:
        result = run_jars(Path(tmp), None, package_parent)
    assert result.get("error") == "SparkBloomError", result
    for needle in ("pyspark", "SPARK_HOME", "scala_binary"):
        assert needle in result["message"], result["message"]


def _readme_install_command() -> str:
    """The `mvn ... install` command of README.md's "Installing" section, whitespace collapsed."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Installing\n", 1)[1].split("\n## ", 1)[0]
    commands = [" ".join(c.split()) for c in re.findall(r"`(mvn [^`]*install[^`]*)`", section)]
    assert len(commands) == 1, commands
    return commands[0]


def test_missing_jars_raise_sparkbloom_error_with_readmes_install_command(package_parent: Path = PACKAGE_PARENT):
    if _carried_jars(package_parent):
        return  # a wheel with the jars never looks in a Maven repository
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = _spark_home(root, "spark-core_2.13-4.1.3.jar")
        # only the Scala 2.12 module and the core jar: the 2.13 module is missing
        repo = _maven_repo(root, ("sparkbloom", "sparkbloom-spark_2.12"))
        result = run_jars(root, home, package_parent, repo)
    assert result.get("is_sparkbloom_error") and result.get("is_file_not_found"), result
    message = " ".join(result["message"].split())
    assert "sparkbloom-spark_2.13-0.1.0-SNAPSHOT.jar" in message and str(repo) in message, message
    # the one command the hint gives is README's, word for word
    assert re.findall(r"`([^`]*)`", message) == [_readme_install_command()], message
