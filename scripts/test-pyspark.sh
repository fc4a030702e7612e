#!/usr/bin/env bash
# PySpark check of sparkbloom's SQL functions (examples/pyspark/per_user_dedup.py): build and
# register the functions from Python, dedup per user, Parquet round trip, exact-set comparison.
#
# Installs pyspark==$PYSPARK_VERSION (default: spark.version of jvm/pom.xml; scripts/test.sh
# passes the newest PySpark, which runs the same _2.13 jars) into a virtualenv under target/ (a
# download of about 450 MB, once; SPARKBLOOM_PYSPARK_VENV reuses another one for spark.version),
# builds the jars unless SPARKBLOOM_SKIP_BUILD=1, and runs the example with --jars. Needs python3
# (3.10+) with venv.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"

# shellcheck source=pyspark-venv.sh
source "$ROOT/scripts/pyspark-venv.sh" pyspark

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] cargo + mvn package (sparkbloom, sparkbloom-spark) ..." >&2
  mvn -Dstyle.color=never -q -B -ntp -f jvm/pom.xml -pl sparkbloom-spark -am package -Dmaven.test.skip=true >&2
fi
CORE_JAR="$(ls jvm/sparkbloom/target/sparkbloom-*.jar | grep -v -e sources -e tests -e javadoc | head -n 1)"
SPARK_JAR="$(ls jvm/sparkbloom-spark/target/sparkbloom-spark_2.13-*.jar | grep -v -e sources -e tests -e javadoc | head -n 1)"

# PySpark starts its JVM through spark-submit, which adds Spark's Java 17 flags itself.
export PYSPARK_PYTHON="$VENV/bin/python"
export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf"   # log4j2.properties: warnings only
exec "$VENV/bin/python" examples/pyspark/per_user_dedup.py --jars "$ROOT/$CORE_JAR,$ROOT/$SPARK_JAR" "$@"
