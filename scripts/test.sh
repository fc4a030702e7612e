#!/usr/bin/env bash
# The project's one test command: every suite, from a fresh clone.
#   Rust: fmt, clippy, unit/property/statistical/golden tests (again with the AVX-512 paths
#         disabled), doc tests, benches compile.
#   JVM:  cargo build --release --features jni + JUnit (core jar, -Xcheck:jni; Spark integration
#         on local[2], all of it on Spark 4.1.3 / Scala 2.13, a subset on Spark 3.5.9 / Scala
#         2.12; Redis client and push against private redis-server instances, installed from
#         Debian's redis-server package when missing), JMH benchmarks compile.
#   Golden files: regenerated into a temp dir and compared byte for byte with tests/golden.
#   Fuzz: 30 s of libFuzzer per decoder (where a nightly toolchain is installed).
#   PySpark: the DataFrame/SQL functions from Python (skipped with a notice if
#            SPARKBLOOM_SKIP_PYSPARK=1).
#   PySpark package: python/ pip-installed, on PySpark 3.5.9 (Scala 2.12 jars) and 4.1.3 (2.13), and
#            its pipeline check on the newest PySpark on PyPI (4.3.0, 2.13 jars).
#   sbt consumer: an sbt build using sparkbloom-spark with %% on Scala 2.12 and 2.13.
#   Gradle consumer: a Gradle build (Debian's gradle) using sparkbloom-spark_2.13 from Java.
#   Spark newest: the Spark module built against the newest Spark 4 on Maven Central, a subset.
#   Spark fault: the per-user dedup on local-cluster[2,1,1024] with an executor killed in the
#            build and in the dedup stage, and corrupt part files (same pyspark distribution).
# Needs only JDK 17+, Maven, cargo and python3; everything else is fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

passed=0
failed=0
failures=()
suite() {
  local name=$1
  shift
  echo
  echo "=== suite: $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1))
    echo "=== suite: $name passed in $((SECONDS - start)) s"
  else
    failed=$((failed + 1))
    failures+=("$name")
    echo "=== suite: $name FAILED after $((SECONDS - start)) s"
  fi
}

ensure_rust_components() {
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
}

rust_lint() {
  cargo fmt --all -- --check && rustfmt --edition 2024 --check fuzz/fuzz_targets/*.rs &&
    cargo clippy --all-targets --locked -- -D warnings &&
    # The JNI bridge is behind the `jni` feature (the JVM build enables it): lint it too.
    cargo clippy --all-targets --all-features --locked -- -D warnings
}

rust_tests() {
  cargo test --locked --all-targets && cargo test --locked --doc &&
    # Again on the scalar batch paths, which CPUs without AVX-512 take.
    SPARKBLOOM_DISABLE_AVX512=1 cargo test --locked --lib --test laws --test golden --test format
}

rust_benches_compile() {
  cargo bench --locked --no-run
}

golden_regenerates() {
  local out
  out=$(mktemp -d)
  scripts/gen-golden.sh "$out" && diff -r "$root/tests/golden" "$out"
  local rc=$?
  rm -rf "$out"
  return $rc
}

# A short coverage-guided run of each decoder fuzz target (scripts/fuzz.sh); cargo-fuzz needs a
# nightly toolchain, which rustup cannot fetch from this machine's registries: skipped with a
# notice where none is installed.
fuzz_smoke() {
  if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    echo "no nightly Rust toolchain installed: fuzz smoke run skipped (scripts/fuzz.sh runs it)"
    return 0
  fi
  scripts/fuzz.sh "${SPARKBLOOM_FUZZ_SECONDS:-30}"
}

# sparkbloom-redis's tests start private redis-server instances (Debian package redis-server).
ensure_redis_server() {
  command -v redis-server >/dev/null && return 0
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server
}

jvm_tests() {
  ensure_redis_server && mvn -B -ntp -f jvm/pom.xml install
}

# A JDK under /usr/lib/jvm whose version differs from the one Maven runs on (here the machine's
# second JDK, Temurin), or $SPARKBLOOM_SECOND_JDK.
second_jdk() {
  if [ -n "${SPARKBLOOM_SECOND_JDK:-}" ]; then
    echo "$SPARKBLOOM_SECOND_JDK"
    return
  fi
  local main_version jdk
  main_version=$(mvn -B -v 2>/dev/null | sed -n 's/^Java version: \([^,]*\),.*/\1/p')
  for jdk in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -V -r); do
    jdk=${jdk%/}
    [ -x "$jdk/bin/java" ] || continue
    "$jdk/bin/java" -version 2>&1 | head -1 | grep -qF "\"$main_version\"" && continue
    echo "$jdk"
    return
  done
}

# The core jar's tests again, compiled as above (Java 11 bytecode), on the second JDK: the jar
# promises Java 11+, and JDK 22+ changed native loading (restricted methods).
jvm_tests_second_jdk() {
  local jdk
  jdk=$(second_jdk)
  if [ -z "$jdk" ]; then
    echo "no second JDK found under /usr/lib/jvm (set SPARKBLOOM_SECOND_JDK): suite skipped"
    return 0
  fi
  echo "second JDK: $jdk ($("$jdk/bin/java" -version 2>&1 | head -1))"
  mvn -B -ntp -f jvm/pom.xml -pl sparkbloom surefire:test -Djvm="$jdk/bin/java"
}

jvm_benches_compile() {
  mvn -B -ntp -f jvm/pom.xml -Pbench -pl sparkbloom-bench -am package -DskipTests -DskipCargo
}

pyspark_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "PySpark suite skipped (SPARKBLOOM_SKIP_PYSPARK=1)"
    return 0
  fi
  # The jvm-tests suite has just built and tested the jars.
  SPARKBLOOM_SKIP_BUILD=1 scripts/test-pyspark.sh
}

# The Python package on both PySpark lines (a second ~450 MB pyspark download, once).
pyspark_package_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "PySpark package suite skipped (SPARKBLOOM_SKIP_PYSPARK=1)"
    return 0
  fi
  # The jvm-tests suite has just installed the jars into ~/.m2, where sparkbloom.jars() finds them.
  SPARKBLOOM_SKIP_BUILD=1 scripts/test-pyspark-package.sh
}

# An sbt build consuming the installed artifacts with %% (sbt from Maven Central).
sbt_consumer_tests() {
  SPARKBLOOM_SKIP_BUILD=1 scripts/test-sbt-consumer.sh
}

# A Gradle build consuming the installed sparkbloom-spark_2.13 from Java (Debian's gradle package,
# installed when missing; Spark from Maven Central).
gradle_consumer_tests() {
  SPARKBLOOM_SKIP_BUILD=1 scripts/test-gradle-consumer.sh
}

# The Spark module built against the newest Spark 4 on Maven Central (SPARKBLOOM_SPARK_NEWEST,
# default 4.2.0; main builds against 4.1.3) and a representative subset of its tests. Runs last:
# it rebuilds jvm/sparkbloom-spark/target for that Spark.
spark_newest_tests() {
  local version=${SPARKBLOOM_SPARK_NEWEST:-4.2.0}
  echo "sparkbloom-spark_2.13 against Spark $version"
  mvn -B -ntp -f jvm/pom.xml -pl sparkbloom-spark verify -Dspark.version="$version" \
    -Dtest='BloomFunctionsTest,PipelineKryoRegistratorTest,RegistrationCheckTest,KryoClassesToRegisterTest,StringItemsTest,SqlArgumentTypesTest'
}

# Needs a Spark distribution for local-cluster: the pip pyspark the PySpark suite installed.
spark_fault_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "Spark fault suite skipped (SPARKBLOOM_SKIP_PYSPARK=1: no pyspark distribution)"
    return 0
  fi
  # The jvm-tests suite has just built the jars and compiled the test classes.
  SPARKBLOOM_SKIP_BUILD=1 scripts/test-spark-fault.sh
}

ensure_rust_components
suite "rust-lint" rust_lint
suite "rust-tests" rust_tests
suite "rust-benches-compile" rust_benches_compile
suite "golden-files-regenerate" golden_regenerates
suite "fuzz-smoke" fuzz_smoke
suite "jvm-tests" jvm_tests
suite "jvm-tests-second-jdk" jvm_tests_second_jdk
suite "jvm-benches-compile" jvm_benches_compile
suite "pyspark" pyspark_tests
suite "pyspark-package" pyspark_package_tests
suite "sbt-consumer" sbt_consumer_tests
suite "gradle-consumer" gradle_consumer_tests
suite "spark-fault" spark_fault_tests
suite "spark-newest" spark_newest_tests

echo
if [ "$failed" -gt 0 ]; then
  echo "failed suites: ${failures[*]}"
fi
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
