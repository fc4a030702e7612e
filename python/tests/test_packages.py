"""packages(): the Maven coordinates for spark.jars.packages, without pyspark or a JVM (the
release suite, scripts/test-release.sh, resolves them with a real PySpark)."""

import sys
from pathlib import Path

import pytest

try:
    import sparkbloom  # the installed package, where there is one
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import sparkbloom

CARGO = Path(__file__).resolve().parents[2] / "Cargo.toml"


def test_the_coordinates_name_the_scala_line_and_the_projects_version():
    version = CARGO.read_text(encoding="utf-8").split("[workspace.package]", 1)[1].split('version = "', 1)[1]
    version = version.split('"', 1)[0]
    assert sparkbloom.__version__ == sparkbloom.JAR_VERSION == version
    assert sparkbloom.packages("2.12") == f"io.sparkbloom:sparkbloom-spark_2.12:{version}"
    assert sparkbloom.packages("2.13", version="9.9.9") == "io.sparkbloom:sparkbloom-spark_2.13:9.9.9"


@pytest.mark.parametrize("scala", ["2.11", "3", ""])
def test_an_unknown_scala_line_is_a_value_error(scala):
    with pytest.raises(ValueError, match="scala_binary"):
        sparkbloom.packages(scala)
