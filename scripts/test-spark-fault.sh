#!/usr/bin/env bash
# Spark fault test: the per-user dedup (PerKeyFilters: buildPerKey -> saveAsObjectFile ->
# objectFile -> dedup) on a real multi-executor Spark, local-cluster[2,1,1024] (a standalone
# Master and Worker, two executor JVMs), with an executor JVM killed in the middle of the build
# stage and again in the middle of the dedup stage: the answers must be exactly those of an
# undisturbed run and of the exact set-based dedup. Then one part file of a filters objectFile is
# truncated or has bytes flipped: the job must fail naming the file.
# (jvm/sparkbloom-spark/src/test/java/io/sparkbloom/spark/fault/SparkFaultApp.java)
#
# local-cluster needs a Spark distribution (bin/, jars/): the pip pyspark package is one,
# pyspark==$PYSPARK_VERSION (default: spark.version of jvm/pom.xml; scripts/test.sh passes the
# newest PySpark, its PySpark suites' one). It is installed into a virtualenv under target/ (about
# 450 MB, once; shared with the PySpark scripts, see pyspark-venv.sh). Builds the jars
# unless SPARKBLOOM_SKIP_BUILD=1 (and they exist). SPARKBLOOM_FAULT_USERS sets the number of users (4000).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"

# shellcheck source=pyspark-venv.sh
source "$ROOT/scripts/pyspark-venv.sh" spark-fault
PYSPARK_HOME="$("$VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"

TEST_CLASSES=jvm/sparkbloom-spark/target/test-classes
built() {
  ls jvm/sparkbloom/target/sparkbloom-*.jar jvm/sparkbloom-spark/target/sparkbloom-spark_2.13-*.jar >/dev/null 2>&1 &&
    [ -d "$TEST_CLASSES/io/sparkbloom/spark/fault" ]
}
# SPARKBLOOM_SKIP_BUILD=1 reuses the jars and test classes of a build before (the jvm-tests
# suite's), unless they are missing (e.g. a failing test stopped that build).
if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ] || ! built; then
  echo "[spark-fault] cargo + mvn package (sparkbloom, sparkbloom-spark; test classes compiled) ..." >&2
  mvn -Dstyle.color=never -q -B -ntp -f jvm/pom.xml -pl sparkbloom-spark -am package -DskipTests >&2
fi
CORE_JAR="$(ls jvm/sparkbloom/target/sparkbloom-*.jar | grep -v -e sources -e tests -e javadoc | head -n 1)"
SPARK_JAR="$(ls jvm/sparkbloom-spark/target/sparkbloom-spark_2.13-*.jar | grep -v -e sources -e tests -e javadoc | head -n 1)"

mkdir -p target/spark-fault
APP_JAR="$ROOT/target/spark-fault/spark-fault-app.jar"
rm -f "$APP_JAR"
jar cf "$APP_JAR" -C "$TEST_CLASSES" io/sparkbloom/spark/fault
WORK="$(mktemp -d "$ROOT/target/spark-fault/run.XXXXXX")"
# A SPARK_HOME of links to the distribution's bin/ and jars/: the local-cluster worker writes
# its executors' logs under $SPARK_HOME/work, which then stays in this run's directory.
export SPARK_HOME="$WORK/spark-home"
mkdir -p "$SPARK_HOME"
ln -s "$PYSPARK_HOME/bin" "$SPARK_HOME/bin"
ln -s "$PYSPARK_HOME/jars" "$SPARK_HOME/jars"

# Everything on the loopback interface; warnings only (jvm/sparkbloom-spark/conf/log4j2.properties).
export SPARK_LOCAL_IP=127.0.0.1
export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf"
status=0
"$SPARK_HOME/bin/spark-submit" \
  --master 'local-cluster[2,1,1024]' \
  --conf spark.ui.enabled=false \
  --conf spark.ui.showConsoleProgress=false \
  --conf spark.driver.host=127.0.0.1 \
  --conf spark.driver.bindAddress=127.0.0.1 \
  --jars "$ROOT/$CORE_JAR,$ROOT/$SPARK_JAR" \
  --class io.sparkbloom.spark.fault.SparkFaultApp \
  "$APP_JAR" "$WORK" "${SPARKBLOOM_FAULT_USERS:-4000}" || status=$?

if [ "$status" -eq 0 ]; then
  rm -rf "$WORK"
else
  echo "[spark-fault] failed (exit $status); work directory kept: $WORK" >&2
fi
exit "$status"
