#!/usr/bin/env bash
# The Python package (python/): pip-installed from the repository into one virtualenv per PySpark
# version (jvm/pom.xml's spark.legacy.version with the Scala 2.12 jars, spark.version with the
# Scala 2.13 jars), then python/tests/check_package.py: jars() finds the right jars, register and
# the Column functions against exact sets, and the errors without the jars / without the core jar.
# Then the pipeline check alone on the newest PySpark on PyPI ($SPARKBLOOM_PYSPARK_NEWEST, default
# 4.3.0, which Maven Central does not have: our _2.13 jars built against spark.version run on its
# jars; an empty value skips it).
#
# Needs the jars in ~/.m2 (scripts/test.sh's jvm-tests suite runs `mvn install`; otherwise this
# script installs them unless SPARKBLOOM_SKIP_BUILD=1). Each missing virtualenv costs a ~450 MB
# pyspark download, once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
pom_prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] mvn install (sparkbloom, sparkbloom-spark_2.12, sparkbloom-spark_2.13) ..." >&2
  mvn -q -B -ntp -f jvm/pom.xml -pl sparkbloom-spark,sparkbloom-spark-scala-2.12 -am install -Dmaven.test.skip=true >&2
fi

export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf"   # log4j2.properties: warnings only
failed=0
newest="${SPARKBLOOM_PYSPARK_NEWEST-4.3.0}"
for version in "$(pom_prop spark.legacy.version)" "$(pom_prop spark.version)" $newest; do
  modes="pipeline no-jars no-core"
  # the newest: the jars against its Spark; the error paths are the same Python code as above
  [ "$version" = "$newest" ] && modes="pipeline"
  echo "--- PySpark $version" >&2
  # shellcheck source=pyspark-venv.sh
  PYSPARK_VERSION="$version" source "$ROOT/scripts/pyspark-venv.sh" "pyspark-package"
  "$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$ROOT/python"
  export PYSPARK_PYTHON="$VENV/bin/python"
  for mode in $modes; do
    # outside the repository, so that the installed package is the one imported
    (cd /tmp && "$VENV/bin/python" "$ROOT/python/tests/check_package.py" "$mode") || failed=1
  done
done
exit $failed
