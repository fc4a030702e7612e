#!/usr/bin/env bash
# Runs the per-user dedup example job (io.sparkbloom.spark.example.PerUserDedupJob) on Spark local
# mode: sparkbloom and Guava side by side on the same data, then a report.
#
#   scripts/run-example.sh                                   # 10,000 users x 200 records, 1,000
#                                                            # candidates each; a warm-up, then 3
#                                                            # runs of each pipeline
#   scripts/run-example.sh --users 100 --runs 1 --no-warmup  # a quick look
#   scripts/run-example.sh --api both                        # RDD, SQL and Guava alternating in
#                                                            # one JVM: SQL's time over RDD's
#   scripts/run-example.sh --input my-history.csv            # your own (user,item) CSV or Parquet
#   scripts/run-example.sh --help                            # all flags
#
# Needs JDK 17+, Maven and cargo. Builds the Rust core, the core jar, sparkbloom-spark and
# examples/jvm first (the first run downloads Spark from Maven Central);
# SPARKBLOOM_SKIP_BUILD=1 skips the build.
# JVM options: SPARKBLOOM_JAVA_OPTS (default -Xmx4g). Local mode runs Spark inside this one JVM, so
# -Xmx is the driver's (and the executors') memory: 1,000,000 users take -Xmx12g (the cached history
# and candidates, ~5 GB with --api sql, plus the shuffles), e.g.
#   SPARKBLOOM_JAVA_OPTS=-Xmx12g scripts/run-example.sh --users 1000000 --candidates 100 \
#     --skip-guava --runs 1 --no-warmup [--api sql]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
MOD=examples/jvm

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] cargo + mvn package (sparkbloom, sparkbloom-spark, sparkbloom-examples); the first run downloads Spark ..." >&2
  mvn -Dstyle.color=never -q -B -ntp -f jvm/pom.xml -pl :sparkbloom-examples_2.13 -am package -Dmaven.test.skip=true >&2
fi

JAR="$(ls "$MOD"/target/sparkbloom-examples_2.13-*.jar 2>/dev/null | grep -v -e sources -e tests | head -n 1 || true)"
if [ -z "$JAR" ] || [ ! -f "$MOD/target/runtime-classpath.txt" ]; then
  echo "run-example.sh: $MOD is not built; run without SPARKBLOOM_SKIP_BUILD=1" >&2
  exit 1
fi

# Spark's own JVM flags for Java 17+ (org.apache.spark.launcher.JavaModuleOptions; the same list
# as ${spark.java17.flags} in jvm/pom.xml): spark-submit adds them, a plain `java` does not.
JAVA17_FLAGS=(
  -XX:+IgnoreUnrecognizedVMOptions
  --add-modules=jdk.incubator.vector
  --add-opens=java.base/java.lang=ALL-UNNAMED
  --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED
  --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED
  --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false
  -Dio.netty.tryReflectionSetAccessible=true
)

# shellcheck disable=SC2086
exec java "${JAVA17_FLAGS[@]}" ${SPARKBLOOM_JAVA_OPTS:--Xmx4g} \
  -Dlog4j2.configurationFile="$ROOT/jvm/sparkbloom-spark/conf/log4j2.properties" \
  -cp "$JAR:$(cat "$MOD/target/runtime-classpath.txt")" \
  io.sparkbloom.spark.example.PerUserDedupJob "$@"
