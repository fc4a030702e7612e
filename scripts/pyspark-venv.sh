# Sourced by the scripts that need PySpark (test-pyspark.sh, test-spark-fault.sh): sets
# SPARK_VERSION (jvm/pom.xml's spark.version) and VENV, a virtualenv holding pyspark==SPARK_VERSION,
# created and installed when missing (about 450 MB, once; SPARKBLOOM_PYSPARK_VENV reuses another).
# Expects ROOT (the repository) and takes a log tag as $1.
SPARK_VERSION="$(sed -n 's:.*<spark.version>\(.*\)</spark.version>.*:\1:p' "$ROOT/jvm/pom.xml" | head -n 1)"
VENV="${SPARKBLOOM_PYSPARK_VENV:-$ROOT/target/pyspark-venv}"

if [ ! -x "$VENV/bin/python" ]; then
  echo "[$1] creating $VENV" >&2
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import sys, pyspark; sys.exit(pyspark.__version__ != '$SPARK_VERSION')" 2>/dev/null; then
  echo "[$1] pip install pyspark==$SPARK_VERSION (large download) ..." >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check "pyspark==$SPARK_VERSION"
fi
