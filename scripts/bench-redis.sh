#!/usr/bin/env bash
# The Redis benchmark (jvm/sparkbloom-redis/src/test/java/io/sparkbloom/redis/
# RedisBloomBenchmark.java) on a private redis-server it starts on a free loopback port:
# 1,000 candidates checked the helper's way (GETBIT per offset), with pipelined GETBITs and with
# retainAbsent (each read mode); a 200-item history loaded by SETBIT per bit vs one store; users
# built and pushed from Spark local[2] (time, used_memory). Prints a Markdown table.
#
#   scripts/bench-redis.sh [users] [repetitions]     # defaults: 10000 30
#
# Take figures on a quiet machine: the timings are wall-clock round trips.
set -euo pipefail
cd "$(dirname "$0")/.."
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
command -v redis-server >/dev/null || { apt-get update -qq && apt-get install -y -qq redis-server; }
# One reactor run: the modules' own classes resolve to their target/classes; sparkbloom-redis,
# built last, writes the classpath file last.
cpfile=$(pwd)/target/bench-redis-classpath.txt
mkdir -p target
mvn -Dstyle.color=never -B -ntp -q -f jvm/pom.xml -pl sparkbloom-redis -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$cpfile"
cp=jvm/sparkbloom-redis/target/test-classes:jvm/sparkbloom-redis/target/classes:$(cat "$cpfile")
# Spark's JVM flags for Java 17, as the parent POM lists them.
flags=$(sed -n 's:.*<spark.java17.flags>\(.*\)</spark.java17.flags>.*:\1:p' jvm/pom.xml)
# shellcheck disable=SC2086
exec java $flags -Xmx3g -Dlog4j2.configurationFile=jvm/sparkbloom-spark/conf/log4j2.properties \
  -cp "$cp" io.sparkbloom.redis.RedisBloomBenchmark "$@"
