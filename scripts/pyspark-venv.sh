# Sourced by the scripts that need PySpark (test-pyspark.sh, test-spark-fault.sh,
# test-pyspark-package.sh): sets SPARK_VERSION and VENV, a virtualenv holding
# pyspark==SPARK_VERSION, created and installed when missing (about 450 MB per version, once).
# SPARK_VERSION is $PYSPARK_VERSION when set (e.g. 3.5.9), else jvm/pom.xml's spark.version; the
# latter's virtualenv is target/pyspark-venv (SPARKBLOOM_PYSPARK_VENV reuses another), any other
# version's is target/pyspark-<version>-venv.
# Expects ROOT (the repository) and takes a log tag as $1.
POM_SPARK_VERSION="$(sed -n 's:.*<spark.version>\(.*\)</spark.version>.*:\1:p' "$ROOT/jvm/pom.xml" | head -n 1)"
SPARK_VERSION="${PYSPARK_VERSION:-$POM_SPARK_VERSION}"
if [ "$SPARK_VERSION" = "$POM_SPARK_VERSION" ]; then
  VENV="${SPARKBLOOM_PYSPARK_VENV:-$ROOT/target/pyspark-venv}"
else
  VENV="$ROOT/target/pyspark-$SPARK_VERSION-venv"
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "[$1] creating $VENV" >&2
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import sys, pyspark; sys.exit(pyspark.__version__ != '$SPARK_VERSION')" 2>/dev/null; then
  echo "[$1] pip install pyspark==$SPARK_VERSION (large download) ..." >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check "pyspark==$SPARK_VERSION"
fi
