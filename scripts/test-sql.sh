#!/usr/bin/env bash
# The SQL extension (io.sparkbloom.spark.SparkBloomExtensions) from Spark's real command-line
# tools, on 127.0.0.1 only:
#   (a) the spark-sql CLI of pip pyspark (jvm/pom.xml's spark.version): the per-user dedup written
#       in SQL only, with the filters in a Parquet table, output compared line by line;
#   (b) a Spark Connect server started from that pyspark with the jars and the extension, and a
#       Python client without a JVM (python/tests/connect_sql_client.py): the same dedup through
#       SQL and through the DataFrame API (F.call_function), merge, count, an analysis error;
#   (b') a Thrift JDBC server started the same way, queried with beeline: the SQL dedup again;
#   (c) the spark-sql CLI of pyspark 3.5.9 with the Scala 2.12 jar, unless
#       SPARKBLOOM_SKIP_SPARK35=1.
#
# Installs pyspark (and, for the Connect client, pandas, pyarrow, grpcio, grpcio-status,
# googleapis-common-protos, zstandard) into virtualenvs under target/ (scripts/pyspark-venv.sh),
# builds the jars unless SPARKBLOOM_SKIP_BUILD=1. Needs python3 (3.10+) with venv and Java 17.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
EXTENSION=io.sparkbloom.spark.SparkBloomExtensions

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != "1" ]; then
  echo "[build] cargo + mvn package (sparkbloom, sparkbloom-spark, sparkbloom-spark-scala-2.12) ..." >&2
  mvn -q -B -ntp -f jvm/pom.xml -pl sparkbloom-spark,sparkbloom-spark-scala-2.12 -am package \
    -Dmaven.test.skip=true >&2
fi
jar_of() {
  ls "$ROOT"/jvm/"$1"/target/"$2"-*.jar | grep -v -e sources -e tests -e javadoc | head -n 1
}
CORE_JAR="$(jar_of sparkbloom sparkbloom)"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/sparkbloom-sql.XXXXXX")"
SERVER_PID=""
cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID"
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# The dedup in SQL only: u1 has seen items 1..1000, u2 items 1001..2000, u3 nothing; the filters
# go through a Parquet table (user, filter BINARY). Expected: each user's candidates minus the
# items they have seen (5 for u1, 1500 for u2), order kept; then a filter built from an array is
# the one the aggregate builds from the same items as rows.
cat > "$WORK/dedup.sql" <<'SQL'
CREATE TEMPORARY VIEW history AS
  SELECT IF(id <= 1000, 'u1', 'u2') AS user, id AS item FROM range(1, 2001);
CREATE TABLE filters USING parquet AS
  SELECT user, sparkbloom_build_per_key(item, 0.001) AS filter FROM history GROUP BY user;
CREATE TEMPORARY VIEW candidates AS SELECT * FROM VALUES
  ('u1', array(5L, 1500L, 2001L, 3000L)), ('u2', array(5L, 1500L, 2002L)), ('u3', array(7L))
  AS t(user, items);
SELECT c.user, sparkbloom_retain_absent(f.filter, c.items) AS fresh
  FROM candidates c LEFT JOIN filters f ON c.user = f.user ORDER BY c.user;
SELECT 'merged', sparkbloom_might_contain(m, 1), sparkbloom_might_contain(m, 2000)
  FROM (SELECT sparkbloom_merge(filter) AS m FROM
    (SELECT sparkbloom_build(item, 4000, 0.001) AS filter FROM history GROUP BY user));
SELECT 'array', sparkbloom_build_array(array(1L, 2L, NULL, 2L), 0.001)
    = (SELECT sparkbloom_build_per_key(id, 0.001) FROM range(1, 3)),
  sparkbloom_might_contain(sparkbloom_build_array(array('a', 'b'), 0.001), 'a');
SQL
printf 'u1\t[1500,2001,3000]\nu2\t[5,2002]\nu3\t[7]\nmerged\ttrue\ttrue\narray\ttrue\ttrue\n' > "$WORK/expected.txt"

# The launchers' own lookup runs the python3 on PATH, which may not see the venv's pyspark.
spark_home() {
  SPARK_HOME="$("$VENV/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
  export SPARK_HOME
}

# spark-sql of the pyspark in $VENV with $1 (the sparkbloom-spark jar) and the extension, in a
# directory of its own (Derby metastore, warehouse); compares its output with expected.txt.
spark_sql_check() {
  local tag="$1" spark_jar="$2" dir="$WORK/$1"
  mkdir -p "$dir"
  echo "[$tag] spark-sql $SPARK_VERSION --jars $(basename "$CORE_JAR"),$(basename "$spark_jar")" >&2
  (cd "$dir" && "$VENV/bin/spark-sql" --master 'local[2]' \
    --jars "$CORE_JAR,$spark_jar" \
    --conf spark.sql.extensions=$EXTENSION \
    --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
    --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=4 \
    --conf "spark.sql.warehouse.dir=$dir/warehouse" \
    --conf "spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=$dir/metastore_db;create=true" \
    -S -f "$WORK/dedup.sql" > "$dir/out.txt" 2> "$dir/err.txt") || {
    echo "[$tag] spark-sql failed:" >&2; tail -n 40 "$dir/err.txt" >&2; return 1
  }
  if ! diff -u "$WORK/expected.txt" "$dir/out.txt" >&2; then
    echo "[$tag] FAIL: spark-sql output differs from the expected dedup (above)" >&2
    tail -n 20 "$dir/err.txt" >&2
    return 1
  fi
  echo "[$tag] OK: spark-sql output as expected" >&2
}

# ---- (a) spark-sql, Spark 4 ---------------------------------------------------------------
# shellcheck source=pyspark-venv.sh
source "$ROOT/scripts/pyspark-venv.sh" sql
spark_home
export SPARK_CONF_DIR="$ROOT/jvm/sparkbloom-spark/conf"   # log4j2.properties: warnings only
SPARK_JAR="$(jar_of sparkbloom-spark sparkbloom-spark_2.13)"
spark_sql_check spark-sql "$SPARK_JAR"

free_port() {
  "$VENV/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_server LOG WHAT CMD...: CMD in the background (spark-submit execs the JVM, so its pid is
# the server's: SERVER_PID), then waits until 127.0.0.1:$PORT accepts connections, failing with
# the log's tail as soon as the server exits instead
start_server() {
  local log="$1" what="$2"
  shift 2
  echo "$what: starting on 127.0.0.1:$PORT" >&2
  "$@" > "$log" 2>&1 &
  SERVER_PID=$!
  local waited=0
  until "$VENV/bin/python" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "$what exited:" >&2; tail -n 40 "$log" >&2; exit 1
    fi
    # a liveness guard, not a timing check: a server still silent after 10 minutes is stuck
    if [ $((waited += 1)) -ge 600 ]; then
      echo "$what did not open its port in 600 s:" >&2; tail -n 40 "$log" >&2; exit 1
    fi
    sleep 1
  done
}

stop_server() {
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

# ---- (b) Spark Connect server + a client without a JVM ------------------------------------
if ! "$VENV/bin/python" -c "import pandas, pyarrow, grpc, grpc_status, google.api, zstandard" 2>/dev/null; then
  echo "[connect] pip install the Spark Connect client's dependencies ..." >&2
  "$VENV/bin/pip" install -q --disable-pip-version-check pandas pyarrow grpcio grpcio-status \
    googleapis-common-protos zstandard
fi
PORT="$(free_port)"
start_server "$WORK/connect.log" "[connect] the Spark Connect server" \
  "$VENV/bin/spark-submit" --class org.apache.spark.sql.connect.service.SparkConnectServer \
  --master 'local[2]' --jars "$CORE_JAR,$SPARK_JAR" \
  --conf spark.sql.extensions=$EXTENSION \
  --conf spark.connect.grpc.binding.address=127.0.0.1 --conf "spark.connect.grpc.binding.port=$PORT" \
  --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
  --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=4 \
  --conf "spark.sql.warehouse.dir=$WORK/connect-warehouse"
PYTHONPATH="$ROOT/python" "$VENV/bin/python" python/tests/connect_sql_client.py "sc://127.0.0.1:$PORT" || {
  echo "[connect] FAIL; server log:" >&2; tail -n 40 "$WORK/connect.log" >&2; exit 1
}
stop_server

# ---- (b') the Thrift JDBC server + beeline: the SQL dedup in a server session -----------------
dir="$WORK/thrift"
mkdir -p "$dir"
PORT="$(free_port)"
cd "$dir"   # the server's Derby metastore log and scratch files
start_server "$dir/server.log" "[thrift] the Thrift JDBC server" \
  "$VENV/bin/spark-submit" --class org.apache.spark.sql.hive.thriftserver.HiveThriftServer2 \
  --master 'local[2]' --jars "$CORE_JAR,$SPARK_JAR" \
  --conf spark.sql.extensions=$EXTENSION \
  --hiveconf hive.server2.thrift.bind.host=127.0.0.1 --hiveconf "hive.server2.thrift.port=$PORT" \
  --conf spark.driver.host=127.0.0.1 --conf spark.driver.bindAddress=127.0.0.1 \
  --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=4 \
  --conf "spark.sql.warehouse.dir=$dir/warehouse" \
  --conf "spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName=$dir/metastore_db;create=true"
cd "$ROOT"
"$VENV/bin/beeline" -u "jdbc:hive2://127.0.0.1:$PORT" --silent=true --outputformat=tsv2 \
  --showHeader=false -f "$WORK/dedup.sql" > "$dir/out.txt" 2> "$dir/beeline.err" || {
  echo "[thrift] beeline failed:" >&2; tail -n 20 "$dir/beeline.err" "$dir/server.log" >&2; exit 1
}
# beeline prints "null" padding for the DDL statements' empty results on the rows' lines: the
# rows are read from their first column on
if ! diff -u "$WORK/expected.txt" <(grep -oE $'(u[0-9]+|merged|array)\t.*' "$dir/out.txt") >&2; then
  echo "[thrift] FAIL: beeline output differs from the expected dedup (above)" >&2
  tail -n 20 "$dir/server.log" >&2
  exit 1
fi
echo "[thrift] OK: beeline output as expected" >&2
stop_server

# ---- (c) spark-sql, Spark 3.5 / Scala 2.12 --------------------------------------------------
if [ "${SPARKBLOOM_SKIP_SPARK35:-0}" != "1" ]; then
  PYSPARK_VERSION=3.5.9 source "$ROOT/scripts/pyspark-venv.sh" sql-3.5
  spark_home
  spark_sql_check spark-sql-3.5 "$(jar_of sparkbloom-spark-scala-2.12 sparkbloom-spark_2.12)"
fi
echo "[sql] OK" >&2
