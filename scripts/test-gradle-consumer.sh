#!/usr/bin/env bash
# A Gradle build consuming the installed artifacts (tests/consumers/gradle): a Java program
# depending on sparkbloom-spark_2.13 and Spark 4 (spark.version of jvm/pom.xml) runs the per-user
# dedup (build per-user filters, save, load, dedup by join, by saved path and with the DataFrame
# functions, each checked against the exact sets) on local Spark with `gradle run`.
#
# Needs the artifacts in ~/.m2 (scripts/test.sh's jvm-tests suite runs `mvn install`; otherwise
# this script installs them unless SPARKBLOOM_SKIP_BUILD=1). Gradle is Debian's `gradle` package,
# installed when missing; the build takes Spark from Maven Central and sparkbloom from a copy of
# its ~/.m2 tree (see build.gradle). Everything it writes goes under target/gradle-consumer.
# SPARKBLOOM_CONSUMER_FETCH_ONLY=1 only installs Gradle and fetches the dependencies:
# scripts/test.sh does that in the background before the suite runs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
pom_prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }
# SPARKBLOOM_CONSUMER_REPO: a Maven repository directory holding sparkbloom (the release's
# dist/maven, scripts/test-release.sh), taken as it is instead of a copy of ~/.m2's, with the
# version SPARKBLOOM_CONSUMER_VERSION; no build.
VERSION="${SPARKBLOOM_CONSUMER_VERSION:-$(scripts/version.sh --maven)}"
consumer_repo=${SPARKBLOOM_CONSUMER_REPO:-}
[ -z "$consumer_repo" ] || SPARKBLOOM_SKIP_BUILD=1
SPARK="$(pom_prop spark.version)"

if ! command -v gradle >/dev/null; then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gradle >/dev/null
fi

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] mvn install (sparkbloom, sparkbloom-spark_2.13) ..." >&2
  mvn -q -B -ntp -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom-spark -am install -Dmaven.test.skip=true >&2
fi

fetch_only=${SPARKBLOOM_CONSUMER_FETCH_ONLY:-0}
OUT="$ROOT/target/gradle-consumer"
[ "$fetch_only" != 1 ] || OUT="$OUT-fetch"
rm -rf "$OUT"
mkdir -p "$OUT"
# the installed artifacts, copied out of ~/.m2 (see build.gradle), or the repository given
repo="$OUT/repo"
if [ -n "$consumer_repo" ]; then
  repo=$consumer_repo
else
  M2="${SPARKBLOOM_MAVEN_REPO:-$HOME/.m2/repository}"
  mkdir -p "$OUT/repo/io"
  cp -r "$M2/io/sparkbloom" "$OUT/repo/io/"
fi

tasks=(showSparkbloomJars run)
[ "$fetch_only" != 1 ] || tasks=(resolveRuntimeClasspath)
LOG="$OUT/gradle.log"
# no daemon, no prompt; the project's cache and build directories under $OUT. pipefail: the
# pipeline's status is gradle's.
status=0
gradle --no-daemon --console=plain -q -p tests/consumers/gradle --project-cache-dir "$OUT/project-cache" \
  -PsparkbloomVersion="$VERSION" -PsparkVersion="$SPARK" -PsparkbloomRepo="$repo" \
  -PconsumerBuildDir="$OUT/build" "${tasks[@]}" </dev/null 2>&1 | tee "$LOG" || status=$?
[ "$fetch_only" != 1 ] || exit "$status"

# the three dedups must each have printed their line
runs=$(grep -c -E '^(RDD join|RDD saved|DataFrame): kept ' "$LOG" || true)
if [ "$status" -ne 0 ] || [ "$runs" -ne 3 ]; then
  echo "gradle consumer: exit $status, $runs of 3 dedups completed" >&2
  exit 1
fi
for jar in "sparkbloom-$VERSION.jar" "sparkbloom-spark_2.13-$VERSION.jar"; do
  if ! grep -qxF "resolved: $jar" "$LOG"; then
    echo "gradle consumer: $jar was not on the runtime classpath" >&2
    exit 1
  fi
done
echo "gradle consumer: the pipeline compiled and ran with sparkbloom-spark_2.13 on Spark $SPARK"
