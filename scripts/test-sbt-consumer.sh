#!/usr/bin/env bash
# An sbt build consuming the installed artifacts (tests/consumers/sbt): sparkbloom-spark with %%
# for Scala 2.12 (Spark 3.5) and Scala 2.13 (Spark 4), compiling and running the per-user
# dedup pipeline (examples/jvm/scala/PerUserDedup.scala) on local Spark.
#
# Needs the artifacts in ~/.m2 (scripts/test.sh's jvm-tests suite runs `mvn install`; otherwise
# this script installs them unless SPARKBLOOM_SKIP_BUILD=1). Fetches the sbt launcher
# (org.scala-sbt:sbt-launch) from Maven Central with Maven; the launcher fetches sbt from Maven
# Central only (the repositories file beside build.sbt); the build takes Scala and Spark from
# Central and sparkbloom from a copy of its ~/.m2 tree (see build.sbt).
# SPARKBLOOM_CONSUMER_FETCH_ONLY=1 only fetches (sbt, and `update` for both Scala versions):
# scripts/test.sh does that in the background before the suite runs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
SBT_VERSION="$(sed -n 's/^sbt.version=//p' tests/consumers/sbt/project/build.properties)"
pom_prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }
# SPARKBLOOM_CONSUMER_REPO: a Maven repository directory holding sparkbloom (the release's
# dist/maven, scripts/test-release.sh), taken as it is instead of a copy of ~/.m2's, with the
# version SPARKBLOOM_CONSUMER_VERSION; no build.
VERSION="${SPARKBLOOM_CONSUMER_VERSION:-$(scripts/version.sh --maven)}"
consumer_repo=${SPARKBLOOM_CONSUMER_REPO:-}
[ -z "$consumer_repo" ] || SPARKBLOOM_SKIP_BUILD=1
SPARK_213="$(pom_prop spark.version)"
SPARK_212="$(pom_prop spark.legacy.version)"
# Scala compilers: Spark 3.5.9's own 2.12.18; for Spark 4.1.3, 2.13.18, because its dependency
# graph pulls scala-library 2.13.18 and sbt wants a compiler no older than the library (SIP-51)
SCALA_212=2.12.18
SCALA_213=2.13.18

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] mvn install (sparkbloom, sparkbloom-spark_2.12, sparkbloom-spark_2.13) ..." >&2
  mvn -Dstyle.color=never -q -B -ntp -f jvm/pom.xml -pl sparkbloom-spark,sparkbloom-spark-scala-2.12 -am install -Dmaven.test.skip=true >&2
fi

LAUNCHER_DIR="$ROOT/target/sbt-launcher"
LAUNCHER="$LAUNCHER_DIR/sbt-launch-$SBT_VERSION.jar"
if [ ! -f "$LAUNCHER" ]; then
  mvn -Dstyle.color=never -q -B -ntp dependency:copy -Dartifact="org.scala-sbt:sbt-launch:$SBT_VERSION" \
    -DoutputDirectory="$LAUNCHER_DIR" >&2
fi

fetch_only=${SPARKBLOOM_CONSUMER_FETCH_ONLY:-0}
OUT="$ROOT/target/sbt-consumer"
[ "$fetch_only" != 1 ] || OUT="$OUT-fetch"
rm -rf "$OUT"
# the installed artifacts, copied out of ~/.m2 (see build.sbt), or the repository given
repo="$OUT/repo"
if [ -n "$consumer_repo" ]; then
  repo=$consumer_repo
else
  M2="${SPARKBLOOM_MAVEN_REPO:-$HOME/.m2/repository}"
  mkdir -p "$OUT/repo/io"
  cp -r "$M2/io/sparkbloom" "$OUT/repo/io/"
fi
cd tests/consumers/sbt
if [ "$fetch_only" = 1 ]; then
  commands=("++$SCALA_212" update "++$SCALA_213" update)
else
  commands=("++$SCALA_212" showSparkbloomJars "run $OUT/2.12/filters"
    "++$SCALA_213" showSparkbloomJars "run $OUT/2.13/filters")
fi
# no prompt (stdin closed), no server; the output of each run ends with the example's two count lines.
java -Xmx1g -Dsbt.repository.config=repositories \
  -Dsbt.server.autostart=false -Dsbt.color=false -Dsbt.supershell=false -Dsbt.log.noformat=true \
  -Dsparkbloom.version="$VERSION" -Dsparkbloom.repo="$repo" -Dconsumer.spark212="$SPARK_212" -Dconsumer.spark213="$SPARK_213" \
  -Dconsumer.scala212="$SCALA_212" -Dconsumer.scala213="$SCALA_213" \
  -Dsbt.ci=true -jar "$LAUNCHER" "${commands[@]}" \
  </dev/null 2>&1 | tee "$OUT.log"
status=${PIPESTATUS[0]}
[ "$fetch_only" != 1 ] || exit "$status"
# each Scala version must have printed both lines of the pipeline
runs=$(grep -c '^DataFrame: kept ' "$OUT.log" || true)
if [ "$status" -ne 0 ] || [ "$runs" -ne 2 ]; then
  echo "sbt consumer: exit $status, $runs of 2 pipeline runs completed" >&2
  exit 1
fi
# %% must have picked the module built for each Scala version, with the core jar beside it
for scala in 2.12 2.13; do
  if ! grep -q "^resolved: sparkbloom-spark_$scala-$VERSION.jar" "$OUT.log"; then
    echo "sbt consumer: sparkbloom-spark_$scala-$VERSION.jar was not on the Scala $scala classpath" >&2
    exit 1
  fi
done
if [ "$(grep -c "^resolved: sparkbloom-$VERSION.jar" "$OUT.log")" -ne 2 ]; then
  echo "sbt consumer: the core jar sparkbloom-$VERSION.jar was not on both classpaths" >&2
  exit 1
fi
echo "sbt consumer: the pipeline compiled and ran with sparkbloom-spark_2.12 and _2.13"
