#!/usr/bin/env bash
# The Python package against the real Java writers, and a Python process with no JVM reading
# what they wrote (python/tests/interop/):
#   streams  real Guava 33 and Spark's sketch (V1 and V2 streams), the jars of PySpark's
#            distribution, each build a filter of 10^6 keys (JavaFilters.java, compiled here with
#            javac) and record their answers on 10^6 present + 10^6 absent keys; Python reads the
#            streams and must give the same bits and answers.
#   redis    sparkbloom-redis sets per-user bitmaps in a private redis-server (both layouts);
#            Python GETs them with redis-py and must give the client's answers; RedisLayout's
#            offsets must equal the module's, and pipelined GETBITs of them give the same answers.
#   parquet  a PySpark job writes per-user filters as Parquet (user, filter BINARY) with the SQL
#            extension's sparkbloom_build_per_key and the DataFrame build_strings, and Spark's
#            sparkbloom_retain_absent answers; Python (pyarrow, no pyspark) must answer the same.
# Any differing answer fails the suite. The Python side runs in a virtualenv without pyspark
# or py4j (check_without_jvm.py refuses to run where either is importable).
#
# Needs the jars in ~/.m2 (scripts/test.sh's jvm-tests suite installs them; otherwise this script
# installs them unless SPARKBLOOM_SKIP_BUILD=1), the PySpark virtualenv of
# $SPARKBLOOM_PYSPARK_NEWEST (default 4.3.0; scripts/pyspark-venv.sh fetches it once), JDK 17+,
# cargo and python3; redis-server is installed from Debian when missing.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
WORK="$ROOT/target/python-interop"
NOJVM_VENV="$WORK/venv"
INTEROP="$ROOT/python/tests/interop"
REPO="${SPARKBLOOM_MAVEN_REPO:-$HOME/.m2/repository}"
JAR_VERSION="$(scripts/version.sh --maven)"
start=$SECONDS
step() { echo "--- [$((SECONDS - start)) s] $*" >&2; }

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  step "mvn install (sparkbloom, sparkbloom-spark_2.13, sparkbloom-redis)"
  mvn -q -B -ntp -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom-spark,sparkbloom-redis -am install \
    -Dmaven.test.skip=true >&2
fi
if ! command -v redis-server >/dev/null; then
  sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server
fi

rm -rf "$WORK"
mkdir -p "$WORK"
# One wheel (maturin compiles the extension once), installed into both virtualenvs.
step "pip wheel ./python; the no-JVM virtualenv (numpy, pyarrow, redis-py)"
python3 -m venv "$NOJVM_VENV"
"$NOJVM_VENV/bin/pip" install -q --disable-pip-version-check numpy pyarrow redis
"$NOJVM_VENV/bin/pip" wheel -q --disable-pip-version-check --no-deps -w "$WORK/wheel" ./python
"$NOJVM_VENV/bin/pip" install -q --disable-pip-version-check --no-deps "$WORK"/wheel/sparkbloom-*.whl

step "the PySpark virtualenv"
# shellcheck source=pyspark-venv.sh
PYSPARK_VERSION="${SPARKBLOOM_PYSPARK_NEWEST:-4.3.0}" source "$ROOT/scripts/pyspark-venv.sh" "python-interop"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$WORK"/wheel/sparkbloom-*.whl
SPARK_JARS="$("$VENV/bin/python" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')"

# The Java side: Guava and spark-sketch as PySpark's distribution ships them (Guava must be 33),
# sparkbloom-redis with its runtime dependencies from the Maven repository.
guava=$(ls "$SPARK_JARS"/guava-33.*.jar)
sketch=$(ls "$SPARK_JARS"/spark-sketch_*.jar)
mvn -q -B -ntp -Dstyle.color=never -f jvm/sparkbloom-redis/pom.xml dependency:build-classpath \
  -DincludeScope=runtime -Dmdep.outputFile="$WORK/redis-classpath.txt" >&2
classpath="$guava:$sketch:$(cat "$WORK/redis-classpath.txt"):$REPO/io/sparkbloom/sparkbloom-redis/$JAR_VERSION/sparkbloom-redis-$JAR_VERSION.jar"
step "javac JavaFilters.java against $(basename "$guava"), $(basename "$sketch")"
javac -d "$WORK/classes" -cp "$classpath" "$INTEROP/JavaFilters.java"
java_filters() { java -cp "$WORK/classes:$classpath" JavaFilters "$@"; }
# outside the repository, so that the installed package is the one imported
no_jvm() { (cd /tmp && "$NOJVM_VENV/bin/python" "$INTEROP/check_without_jvm.py" "$@"); }

step "streams: Guava and Spark's sketch write, Python reads"
java_filters streams "$WORK/streams"
no_jvm streams "$WORK/streams"

step "redis: sparkbloom-redis sets bitmaps in a private redis-server, Python GETs them"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$WORK/redis-data"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK/redis-data" \
  >"$WORK/redis-server.log" 2>&1 &
redis_pid=$!
trap 'kill "$redis_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  redis-cli -p "$port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
java_filters redis "$port" "$WORK/redis"
no_jvm redis "$port" "$WORK/redis"
kill "$redis_pid"
wait "$redis_pid" 2>/dev/null || true

step "parquet: a PySpark job writes per-user filters, Python reads them with pyarrow"
export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf"   # log4j2.properties: warnings only
export PYSPARK_PYTHON="$VENV/bin/python"
(cd /tmp && "$VENV/bin/python" "$INTEROP/spark_job.py" "$WORK/parquet")
no_jvm parquet "$WORK/parquet"
step "examples/python/filter_table_service.py answers from the same table, without a JVM"
service() { "$NOJVM_VENV/bin/python" "$ROOT/examples/python/filter_table_service.py" "$WORK/parquet/filters" "$@"; }
seen=$("$NOJVM_VENV/bin/python" -c 'import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1], filters=[("user", "=", 0)])
print(" ".join(map(str, t.column("item").to_pylist()[:20])))' "$WORK/parquet/history")
kept=$(service 0 $seen 1 2 3)
for item in $kept; do
  case " 1 2 3 " in *" $item "*) ;; *) echo "the service kept $item, which user 0 has seen" >&2; exit 1 ;; esac
done
[ "$(service -1 1 2 3)" = "1 2 3" ] || { echo "a user without a filter must keep every item" >&2; exit 1; }
echo "filter_table_service.py: user 0, 20 seen items and 3 new ones -> kept: $kept" >&2
step "all answers equal"
