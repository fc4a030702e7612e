#!/usr/bin/env bash
# The release's consumers, from dist/ alone (scripts/release.sh builds it first unless
# SPARKBLOOM_SKIP_BUILD=1): a consumer's world has no Rust toolchain (cargo, rustc or maturin on
# PATH fail the suite), empty Ivy and Maven caches for Spark, no sparkbloom of this version in ~/.m2, and fresh
# virtualenvs.
#   1. spark-submit --packages io.sparkbloom:sparkbloom-spark_2.13:VERSION --repositories
#      file://…/dist/maven runs the per-user example job (examples/jvm's jar as the application);
#   2. spark-sql --packages … --conf spark.sql.extensions=… runs README's SQL;
#   3. PySpark 3.5 and 4.x with the wheel alone: python/tests/check_package.py, the jars taken
#      from inside the wheel;
#   4. sparkbloom.with_packages (spark.jars.packages) with sparkbloom-redis by its coordinates
#      against a real redis-server (tests/consumers/pyspark/release_consumer.py), which also saves
#      the filter table;
#   5. a JVM-less service (the wheel and pyarrow, no pyspark) reads that Parquet table;
#   6. sbt (Scala 2.12 and 2.13), Gradle and Maven builds resolve sparkbloom from dist/maven.
# PySpark versions: jvm/pom.xml's spark.legacy.version and $SPARKBLOOM_PYSPARK_NEWEST (4.3.0).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
VERSION=$(scripts/version.sh)
DIST="$ROOT/dist"
REPO_URL="file://$DIST/maven"
WORK="$ROOT/target/release-consumers"
pom_prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }
step() { echo "--- $*" >&2; }
fail() { echo "test-release: $*" >&2; exit 1; }

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != 1 ]; then
  scripts/release.sh
fi
[ -f "$DIST/maven/io/sparkbloom/sparkbloom/$VERSION/sparkbloom-$VERSION.jar" ] ||
  fail "dist/ holds no $VERSION release; run scripts/release.sh"
example_jar=$(ls examples/jvm/target/sparkbloom-examples_2.13-*.jar 2>/dev/null | grep -v -e sources -e javadoc | head -n 1 || true)
if [ -z "$example_jar" ]; then
  step "the user's application: examples/jvm's jar"
  mvn -B -ntp -q -Dstyle.color=never -f jvm/pom.xml -pl :sparkbloom-examples_2.13 -am package -Dmaven.test.skip=true >&2
  example_jar=$(ls examples/jvm/target/sparkbloom-examples_2.13-*.jar | grep -v -e sources -e javadoc | head -n 1)
fi

rm -rf "$WORK"
mkdir -p "$WORK/no-rust"
for tool in cargo rustc maturin; do
  printf '#!/bin/sh\necho "test-release: a consumer ran %s $*" >&2\nexit 97\n' "$tool" >"$WORK/no-rust/$tool"
  chmod +x "$WORK/no-rust/$tool"
done
# ~/.m2 must not answer for this version: a build that resolves it reads dist/maven
M2="${SPARKBLOOM_MAVEN_REPO:-$HOME/.m2/repository}"
forget_release() { rm -rf "$M2"/io/sparkbloom/*/"$VERSION"; }
forget_release
trap forget_release EXIT
export PATH="$WORK/no-rust:$PATH"
# Spark's resolver also reads ~/.m2 (as Ivy's local-m2-cache): a consumer's is empty, and a shared
# one holding poms without their jars would fail a download that Maven Central would serve
mkdir -p "$WORK/home"
export SPARK_SUBMIT_OPTS="-Duser.home=$WORK/home"
wheel=$(ls "$DIST"/python/sparkbloom-"$VERSION"-*x86_64*.whl)

# a fresh virtualenv with $1 installed (pip's cache serves the large ones after the first time)
fresh_venv() {
  local dir=$1
  shift
  python3 -m venv "$dir"
  "$dir/bin/pip" install -q --disable-pip-version-check "$@"
}

redis_port=$((20000 + RANDOM % 10000))
redis-server --port "$redis_port" --save "" --appendonly no --daemonize yes \
  --pidfile "$WORK/redis.pid" --logfile "$WORK/redis.log"
trap 'forget_release; kill "$(cat "$WORK/redis.pid")" 2>/dev/null || true' EXIT

export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf" # log4j2.properties: warnings only
newest=${SPARKBLOOM_PYSPARK_NEWEST-4.3.0}
for pyspark in $(pom_prop spark.legacy.version) $newest; do
  venv="$WORK/venv-$pyspark"
  step "PySpark $pyspark in a fresh virtualenv with $(basename "$wheel") alone"
  fresh_venv "$venv" "pyspark==$pyspark" "$wheel"
  SPARKBLOOM_MAVEN_REPO="$WORK/empty-m2" "$venv/bin/python" - <<'PY'
import sparkbloom
paths = sparkbloom.jar_paths()
inside = all("/site-packages/sparkbloom/jars/" in p for p in paths)
print("jars() from the wheel:", ", ".join(p.rsplit("/", 1)[1] for p in paths))
raise SystemExit(0 if inside else f"jars() did not come from the wheel: {paths}")
PY
  (cd /tmp && SPARKBLOOM_MAVEN_REPO="$WORK/empty-m2" PYSPARK_PYTHON="$venv/bin/python" \
    "$venv/bin/python" "$ROOT/python/tests/check_package.py" pipeline) >"$WORK/check-$pyspark.log" 2>&1 ||
    { tail -n 30 "$WORK/check-$pyspark.log" >&2; fail "check_package.py on PySpark $pyspark"; }
  tail -n 1 "$WORK/check-$pyspark.log" >&2
done

venv="$WORK/venv-$newest"
spark_home=$("$venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
packages=(--packages "io.sparkbloom:sparkbloom-spark_2.13:$VERSION" --repositories "$REPO_URL")

step "spark-submit ${packages[*]} (PySpark $newest's Spark, an empty Ivy cache): the per-user job"
SPARK_HOME="$spark_home" "$spark_home/bin/spark-submit" "${packages[@]}" --conf spark.jars.ivy="$WORK/ivy-submit" \
  --master 'local[2]' --driver-memory 2g --class io.sparkbloom.spark.example.PerUserDedupJob "$example_jar" \
  --users 2000 --skip-guava --runs 1 --no-warmup --master "local[2]" --output "$WORK/example-out" >"$WORK/submit.log" 2>&1 ||
  { tail -n 40 "$WORK/submit.log" >&2; fail "spark-submit of the per-user job"; }
grep -E "^(found|downloading) |io\.sparkbloom#" "$WORK/submit.log" | grep -i sparkbloom | head -n 6 >&2
grep -q "found io.sparkbloom#sparkbloom-spark_2.13;$VERSION in" "$WORK/submit.log" ||
  fail "spark-submit did not resolve sparkbloom-spark_2.13 $VERSION from the repository"
grep -E "^(false negatives|observed FPP|sparkbloom|bytes)" "$WORK/submit.log" | head -n 8 >&2

step "spark-sql ${packages[*]} --conf spark.sql.extensions=…: README's SQL"
cat >"$WORK/readme.sql" <<'SQL'
CREATE TEMPORARY VIEW history AS SELECT id % 100 AS user, id AS item FROM range(20000);
CREATE TEMPORARY VIEW candidates AS
  SELECT user, collect_list(item) AS items FROM (SELECT id % 100 AS user, id AS item FROM range(19000, 21000)) GROUP BY user;
CREATE TABLE user_filters USING parquet AS
  SELECT user, sparkbloom_build_per_key(item, 0.001) AS filter FROM history GROUP BY user;
SELECT 'kept', sum(size(filter(fresh, x -> x >= 20000))), sum(size(filter(fresh, x -> x < 20000)))
  FROM (SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) AS fresh
    FROM candidates c LEFT JOIN user_filters f ON c.user = f.user);
SQL
(cd "$WORK" && SPARK_HOME="$spark_home" "$spark_home/bin/spark-sql" "${packages[@]}" \
  --conf spark.jars.ivy="$WORK/ivy-sql" --conf spark.sql.extensions=io.sparkbloom.spark.SparkBloomExtensions \
  --conf spark.sql.warehouse.dir="$WORK/warehouse" --master 'local[2]' -f "$WORK/readme.sql") \
  >"$WORK/sql.log" 2>&1 || { tail -n 40 "$WORK/sql.log" >&2; fail "spark-sql with README's SQL"; }
# 2,000 candidates, the 1,000 below 20,000 in the history: none of those kept, the 1,000 unseen
# kept but for false positives (p = 0.001: 1 expected, fewer than 10 but once in ~10^6 runs)
read -r unseen_kept seen_kept < <(awk '$1 == "kept" { print $2, $3 }' "$WORK/sql.log")
echo "spark-sql: kept $unseen_kept of 1000 unseen candidates, $seen_kept of 1000 seen" >&2
[ "${seen_kept:-x}" = 0 ] && [ "${unseen_kept:-0}" -ge 990 ] && [ "$unseen_kept" -le 1000 ] ||
  fail "spark-sql kept '$unseen_kept' unseen and '$seen_kept' seen candidates"

step "with_packages and sparkbloom-redis:$VERSION by coordinates, a real redis-server"
(cd /tmp && PYSPARK_PYTHON="$venv/bin/python" "$venv/bin/python" "$ROOT/tests/consumers/pyspark/release_consumer.py" \
  "$REPO_URL" "$WORK/ivy-packages" "redis://127.0.0.1:$redis_port" "$WORK/filter-table") >"$WORK/packages.log" 2>&1 ||
  { tail -n 40 "$WORK/packages.log" >&2; fail "release_consumer.py"; }
grep -E "^(ok|FAIL|[0-9]+ passed)" "$WORK/packages.log" >&2

step "a JVM-less service: the wheel and pyarrow, no pyspark"
fresh_venv "$WORK/venv-service" "$wheel" "pyarrow>=10"
"$WORK/venv-service/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("pyspark") is not None)' ||
  fail "the service's virtualenv has pyspark"
kept=$("$WORK/venv-service/bin/python" "$ROOT/examples/python/filter_table_service.py" "$WORK/filter-table" 0 1 2 3)
echo "filter_table_service.py: user 0, candidates 1 2 3 (never seen) -> kept: $kept" >&2
[ "$kept" = "1 2 3" ] || fail "the service kept '$kept'"

step "sbt, Gradle and Maven builds resolving sparkbloom $VERSION from dist/maven"
SPARKBLOOM_CONSUMER_REPO="$DIST/maven" SPARKBLOOM_CONSUMER_VERSION="$VERSION" scripts/test-sbt-consumer.sh >"$WORK/sbt.log" 2>&1 ||
  { tail -n 30 "$WORK/sbt.log" >&2; fail "the sbt consumer"; }
tail -n 1 "$WORK/sbt.log" >&2
SPARKBLOOM_CONSUMER_REPO="$DIST/maven" SPARKBLOOM_CONSUMER_VERSION="$VERSION" scripts/test-gradle-consumer.sh >"$WORK/gradle.log" 2>&1 ||
  { tail -n 30 "$WORK/gradle.log" >&2; fail "the Gradle consumer"; }
tail -n 1 "$WORK/gradle.log" >&2
mvn -B -Dstyle.color=never -f tests/consumers/maven/pom.xml -Dsparkbloom.version="$VERSION" \
  -Dsparkbloom.repo="$REPO_URL" -Dspark.version="$(pom_prop spark.version)" \
  -Dconsumer.out="$WORK/maven-filters" compile exec:exec >"$WORK/maven.log" 2>&1 ||
  { tail -n 30 "$WORK/maven.log" >&2; fail "the Maven consumer"; }
grep -E "Downloaded from sparkbloom-dist: .*sparkbloom-spark_2.13-$VERSION.jar" "$WORK/maven.log" >&2 ||
  fail "the Maven consumer did not download sparkbloom-spark_2.13 $VERSION from dist/maven"
runs=$(grep -c -E '^(RDD join|RDD saved|DataFrame): kept ' "$WORK/maven.log" || true)
[ "$runs" -eq 3 ] || fail "the Maven consumer ran $runs of 3 dedups"
echo "release consumers: every consumer ran from dist/ ($VERSION)" >&2
