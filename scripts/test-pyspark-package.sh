#!/usr/bin/env bash
# The Python package (python/): pip-installed from the repository into one virtualenv per PySpark
# version, then python/tests/check_package.py on each: jars() finds the right jars (Scala 2.12 on
# PySpark 3, 2.13 on 4), register and the Column functions against exact sets, and the errors
# without the jars / without the core jar. The versions: $SPARKBLOOM_PYSPARK_VERSIONS, else
# jvm/pom.xml's spark.legacy.version and spark.version, and the newest PySpark on PyPI
# ($SPARKBLOOM_PYSPARK_NEWEST, default 4.3.0, which Maven Central does not have: our _2.13 jars
# built against spark.version run on its jars; an empty value leaves it out). scripts/test.sh
# passes one version per Spark line, the virtualenvs its other PySpark suites use.
#
# Needs the jars in ~/.m2 (scripts/test.sh's jvm-tests suite runs `mvn install`; otherwise this
# script installs them unless SPARKBLOOM_SKIP_BUILD=1). Each missing virtualenv costs a ~450 MB
# pyspark download, once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
pom_prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] mvn install (sparkbloom, sparkbloom-spark_2.12, sparkbloom-spark_2.13) ..." >&2
  mvn -q -B -ntp -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom-spark,sparkbloom-spark-scala-2.12 -am install -Dmaven.test.skip=true >&2
fi

export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf"   # log4j2.properties: warnings only
failed=0
versions="${SPARKBLOOM_PYSPARK_VERSIONS:-$(pom_prop spark.legacy.version) $(pom_prop spark.version) ${SPARKBLOOM_PYSPARK_NEWEST-4.3.0}}"
for version in $versions; do
  echo "--- PySpark $version" >&2
  # shellcheck source=pyspark-venv.sh
  PYSPARK_VERSION="$version" source "$ROOT/scripts/pyspark-venv.sh" "pyspark-package"
  "$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$ROOT/python"
  export PYSPARK_PYTHON="$VENV/bin/python"
  for mode in pipeline no-jars no-core; do
    # outside the repository, so that the installed package is the one imported
    (cd /tmp && "$VENV/bin/python" "$ROOT/python/tests/check_package.py" "$mode") || failed=1
  done
done
exit $failed
