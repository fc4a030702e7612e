#!/usr/bin/env bash
# The project's one test command: every suite, from a fresh clone.
#   Rust: fmt, clippy, unit/property/statistical/golden tests (again with the AVX-512 paths
#         disabled), doc tests, each benchmark run once.
#   JVM:  scripts/build-native.sh jni + JUnit (core jar, -Xcheck:jni; Spark integration
#         on local[2], all of it on Spark 4.1.3 / Scala 2.13, a subset on Spark 3.5.9 / Scala
#         2.12; Redis client and push against private redis-server instances, installed from
#         Debian's redis-server package when missing), JMH benchmarks compile.
#   README paths: every jar, target/ and scripts/ path README.md names exists once built.
#   Golden files: regenerated into a temp dir and compared byte for byte with tests/golden.
#   Fuzz: 5 s of libFuzzer per decoder (where a nightly toolchain is installed).
#   PySpark: the DataFrame/SQL functions from Python (skipped with a notice if
#            SPARKBLOOM_SKIP_PYSPARK=1).
#   Python interop: Guava 33, Spark's sketch, sparkbloom-redis (a real redis-server) and a PySpark
#            job write filters; a Python process without a JVM reads them with the same answers.
#   PySpark package: python/ pip-installed, on PySpark 3.5.9 (Scala 2.12 jars) and on the newest
#            PySpark on PyPI (4.3.0, Scala 2.13 jars built against Spark 4.1.3).
#   Release: scripts/release.sh builds dist/; its consumers run from dist/ alone (spark-submit and
#            spark-sql with --packages, PySpark with the wheel, sparkbloom-redis by coordinates,
#            a JVM-less service, sbt with %% on Scala 2.12 and 2.13, Gradle, Maven).
#   Spark newest: the Spark module built against the newest Spark 4 on Maven Central, a subset.
#   Spark fault: the per-user dedup on local-cluster[2,1,1024] with an executor killed in the
#            build and in the dedup stage, and corrupt part files (same pyspark distribution).
#   aarch64: the linux-aarch64 library, wheel and CLI under qemu (scripts/test-aarch64.sh).
# The PySpark suites share one pyspark per Spark line (3.5.9; SPARKBLOOM_PYSPARK_NEWEST, default
# 4.3.0), about 450 MB each; the JVM suites test Spark 4.1.3 itself. Downloads that need no build
# (those two, the Maven dependencies) start in the background while the Rust suites compile; the
# sbt and Gradle consumers' once jvm-tests has installed the jars. jvm-tests' release build of the
# JNI library and the CLI runs in the background during fuzz-smoke.
# Needs only JDK 17+, Maven, cargo and python3; everything else is fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
# Maven's output without escape codes: -B and style.color=never drop the colours, jansi.noreset
# the reset codes Debian's Maven 3.8 prints before it has read its options.
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
root=$(pwd)

# A full run writes about 4 GiB under target/ and fetches up to 2 GiB more into the home caches
# (Maven, pip, the nightly toolchain). A disk that fills midway makes every later suite fail
# with a compiler or linker crash, so refuse up front, saying why.
min_free_gib=${SPARKBLOOM_MIN_FREE_GIB:-8}
free_kib=$(df -Pk "$root" | awk 'NR == 2 { print $4 }')
if [ "$free_kib" -lt $((min_free_gib * 1024 * 1024)) ]; then
  echo "scripts/test.sh: $((free_kib / 1024 / 1024)) GiB free on the disk of $root; a full run" \
    "needs about $min_free_gib GiB (SPARKBLOOM_MIN_FREE_GIB sets the threshold)" >&2
  exit 1
fi

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

# Downloads (and one build) started in the background and awaited before the first suite that
# needs them (logs in target/ci-prefetch). Best effort: where one failed, that suite fetches or
# builds on its own and fails there if that does.
prefetch_logs=$root/target/ci-prefetch
declare -A prefetch_pids=()
prefetch() {
  local name=$1
  shift
  mkdir -p "$prefetch_logs"
  ("$@") >"$prefetch_logs/$name.log" 2>&1 </dev/null &
  prefetch_pids[$name]=$!
}
await_prefetch() {
  local name=$1 pid=${prefetch_pids[$1]:-}
  [ -n "$pid" ] || return 0
  unset "prefetch_pids[$name]"
  local start=$SECONDS
  if wait "$pid"; then
    echo "(prefetch $name: waited $((SECONDS - start)) s)"
  else
    echo "(prefetch $name failed, the suite fetches on its own; last lines of $prefetch_logs/$name.log:)"
    tail -n 5 "$prefetch_logs/$name.log"
  fi
}

pom_prop() { sed -n "s:.*<$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }
# The pyspark of each Spark line, shared by the PySpark suites: spark.legacy.version's (Scala 2.12)
# and the newest on PyPI (Scala 2.13; an empty SPARKBLOOM_PYSPARK_NEWEST takes spark.version's).
pyspark_legacy=$(pom_prop spark.legacy.version)
pyspark_newest=${SPARKBLOOM_PYSPARK_NEWEST-4.3.0}
[ -n "$pyspark_newest" ] || pyspark_newest=$(pom_prop spark.version)
spark_newest=${SPARKBLOOM_SPARK_NEWEST:-4.2.0}

# sbt and Gradle (installed from Debian when missing) and the consumer builds' dependencies, which
# take sparkbloom from ~/.m2: started once jvm-tests has installed it.
consumer_dependencies() {
  SPARKBLOOM_CONSUMER_FETCH_ONLY=1 SPARKBLOOM_SKIP_BUILD=1 scripts/test-sbt-consumer.sh &&
    SPARKBLOOM_CONSUMER_FETCH_ONLY=1 SPARKBLOOM_SKIP_BUILD=1 scripts/test-gradle-consumer.sh
}

pyspark_venv() {
  # shellcheck source=pyspark-venv.sh
  ROOT=$root PYSPARK_VERSION=$1 source "$root/scripts/pyspark-venv.sh" prefetch
}
pyspark_venvs() {
  pyspark_venv "$pyspark_legacy" && pyspark_venv "$pyspark_newest"
}
# Every module's dependencies and plugins (the benchmarks' too), and sparkbloom-spark's for the
# newest Spark. Without the jars being built, the modules' own snapshots cannot resolve
# (--fail-never: the rest is fetched all the same).
maven_dependencies() {
  mvn -B -ntp -Dstyle.color=never --fail-never -f jvm/pom.xml -Pbench dependency:go-offline &&
    mvn -B -ntp -Dstyle.color=never --fail-never -f jvm/pom.xml -pl sparkbloom-spark \
      -Dspark.version="$spark_newest" -DexcludeGroupIds=io.sparkbloom dependency:go-offline
}

ensure_rust_components() {
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
}

rust_lint() {
  cargo fmt --all -- --check && rustfmt --edition 2024 --check fuzz/fuzz_targets/*.rs &&
    cargo clippy --all-targets --locked -- -D warnings &&
    # The JNI bridge is behind the `jni` feature (the JVM build enables it): lint it too.
    cargo clippy --all-targets --all-features --locked -- -D warnings &&
    # The Python bindings and the tools are workspace members outside default-members.
    cargo clippy -p sparkbloom-python -p sparkbloom-tools -p sparkbloom-testkit --all-targets \
      --locked -- -D warnings
}

rust_tests() {
  # Every target but the benches, which rust-benches-compile builds (release profile) and runs once.
  cargo test --locked --lib --bins --tests && cargo test --locked --doc || return 1
  # The measuring tools build (gen_golden runs in golden-regenerates); the shared generator's doc.
  cargo build --locked --profile test -p sparkbloom-tools && cargo test --locked -p sparkbloom-testkit ||
    return 1
  # The Rust example runs as README shows it (it asserts that no seen item is kept).
  cargo run --locked --profile test --example per_user_dedup || return 1
  # Again once per other kernel this CPU runs (the library lists them, and the one it selects
  # unasked, which the run above has just tested), so every batch path other CPUs take is tested
  # too; a named kernel's run fails unless that kernel is the one selected.
  local listing kernels selected kernel
  listing=$(cargo test --locked --lib -q kernels::tests::the_kernels_are_reported -- --nocapture)
  kernels=$(sed -n 's/^sparkbloom kernels available: //p' <<<"$listing")
  selected=$(sed -n 's/^sparkbloom kernel selected: //p' <<<"$listing")
  [ -n "$kernels" ] || { echo "the library listed no kernels" >&2; return 1; }
  for kernel in $kernels; do
    if [ "$kernel" = "$selected" ]; then
      echo "--- kernel $kernel: the selected one, tested above"
      continue
    fi
    echo "--- kernel $kernel"
    SPARKBLOOM_KERNEL=$kernel cargo test --locked --lib --test laws --test golden --test format ||
      return 1
  done
  echo "rust tests ran on kernels: $kernels"
}

# Without the bench profile's line tables (debug = 1, for profiling the benches; a compile check
# does not need them) the bench profile is the release profile: the dependencies compiled here are
# the ones jvm-tests' `cargo build --release` links, and its CLI build finds itself done.
rust_benches_compile() {
  # --test: criterion runs each benchmark once, a check that the fixtures and peers still work.
  CARGO_PROFILE_BENCH_DEBUG=0 cargo bench --locked --bench '*' -- --test
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
  # 5 s from the golden files is thousands of inputs per decoder: a smoke test that a
  # decoder change did not open a shallow crash; scripts/fuzz.sh runs the long campaigns.
  scripts/fuzz.sh "${SPARKBLOOM_FUZZ_SECONDS:-5}"
}

# sparkbloom-redis's tests start private redis-server instances (Debian package redis-server).
ensure_redis_server() {
  command -v redis-server >/dev/null && return 0
  local sudo=
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server
}

# Every platform's JNI library, CLI and wheel (scripts/build-native.sh, which the pom runs for the
# libraries) and the CLI jvm/sparkbloom/pom.xml builds, in the background while fuzz-smoke runs:
# each fuzz target runs on one core (and builds in fuzz/target, a workspace of its own), this
# build (codegen-units = 1) mostly on one core too. jvm-tests' cargo steps then find all done;
# where this failed, they build (and fail) there.
native_release_build() {
  scripts/build-native.sh && cargo build --release --locked -p sparkbloom-cli
}

# -T 2: after the core module, the modules that depend on it only build and test side by side
# (the Spark 3.5 module beside sparkbloom-spark, then the examples beside sparkbloom-redis). The
# two Spark modules run their test classes one after another in one JVM each (their pom.xml).
jvm_tests() {
  await_prefetch maven-dependencies
  await_prefetch native-release-build
  ensure_redis_server && mvn -B -ntp -Dstyle.color=never -T 2 -f jvm/pom.xml install
}

# The jars, the CLI and the scripts README.md names exist, now that jvm-tests has built them.
readme_paths() {
  scripts/check-readme-paths.sh
}

# A JDK under /usr/lib/jvm whose version differs from the one Maven runs on (here the machine's
# second JDK, Temurin), or $SPARKBLOOM_SECOND_JDK.
second_jdk() {
  if [ -n "${SPARKBLOOM_SECOND_JDK:-}" ]; then
    echo "$SPARKBLOOM_SECOND_JDK"
    return
  fi
  local main_version jdk
  main_version=$(mvn -B -Dstyle.color=never -v 2>/dev/null | sed -n 's/^Java version: \([^,]*\),.*/\1/p')
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
  mvn -B -ntp -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom surefire:test -Djvm="$jdk/bin/java"
}

# The linux-aarch64 artifacts native-release-build made, under qemu: the core crate's tests, the
# core jar jvm-tests built on an arm64 JVM, the wheel on an arm64 CPython, the CLI.
aarch64_tests() {
  SPARKBLOOM_SKIP_BUILD=1 scripts/test-aarch64.sh
}

jvm_benches_compile() {
  mvn -B -ntp -Dstyle.color=never -f jvm/pom.xml -Pbench -pl sparkbloom-bench -am package -DskipTests -DskipCargo
}

pyspark_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "PySpark suite skipped (SPARKBLOOM_SKIP_PYSPARK=1)"
    return 0
  fi
  await_prefetch pyspark
  # The jvm-tests suite has just built and tested the jars.
  PYSPARK_VERSION=$pyspark_newest SPARKBLOOM_SKIP_BUILD=1 scripts/test-pyspark.sh
}

# The Python package on both PySpark lines.
pyspark_package_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "PySpark package suite skipped (SPARKBLOOM_SKIP_PYSPARK=1)"
    return 0
  fi
  await_prefetch pyspark
  # The jvm-tests suite has just installed the jars into ~/.m2, where sparkbloom.jars() finds them.
  SPARKBLOOM_PYSPARK_VERSIONS="$pyspark_legacy $pyspark_newest" SPARKBLOOM_SKIP_BUILD=1 \
    scripts/test-pyspark-package.sh
}

# The Python package's native core: pip install ./python (maturin from PyPI), its tests.
python_native_tests() {
  scripts/test-python-native.sh
}

# The real flow, no mocks: Guava 33 and Spark's sketch streams, sparkbloom-redis bitmaps in a
# redis-server and a PySpark job's Parquet filters, each read by a Python process without a JVM
# that must answer as the Java writer did (the newest PySpark's venv, the jars jvm-tests installed).
python_interop_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "Python interop suite skipped (SPARKBLOOM_SKIP_PYSPARK=1)"
    return 0
  fi
  await_prefetch pyspark
  SPARKBLOOM_PYSPARK_NEWEST=$pyspark_newest SPARKBLOOM_SKIP_BUILD=1 scripts/test-python-interop.sh
}

# The SQL extension from the real spark-sql CLIs (newest PySpark with the _2.13 jar, 3.5.9 with the
# _2.12 one), a Spark Connect server with a JVM-less Python client, and the Thrift server.
sql_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "SQL suite skipped (SPARKBLOOM_SKIP_PYSPARK=1)"
    return 0
  fi
  await_prefetch pyspark
  PYSPARK_VERSION=$pyspark_newest SPARKBLOOM_SKIP_BUILD=1 scripts/test-sql.sh
}

# The release: scripts/release.sh builds dist/ (the Maven repository, the wheels with the jars,
# the CLI tarballs, the crate), then scripts/test-release.sh runs its consumers from dist/ alone:
# spark-submit and spark-sql with --packages, PySpark 3.5 and 4.x with the wheel, sparkbloom-redis
# by coordinates on a real redis-server, a JVM-less service, and the sbt (%%, Scala 2.12 and
# 2.13), Gradle and Maven builds; README's coordinates and dist/ paths checked against dist/.
release_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "release suite skipped (SPARKBLOOM_SKIP_PYSPARK=1: its consumers run on PySpark)"
    return 0
  fi
  await_prefetch consumers
  ensure_redis_server && scripts/release.sh && SPARKBLOOM_SKIP_BUILD=1 scripts/test-release.sh &&
    scripts/check-readme-paths.sh
}

# The Spark module built against the newest Spark 4 on Maven Central (SPARKBLOOM_SPARK_NEWEST,
# default 4.2.0; main builds against 4.1.3) and a representative subset of its tests. Runs last:
# it rebuilds jvm/sparkbloom-spark/target for that Spark.
spark_newest_tests() {
  echo "sparkbloom-spark_2.13 against Spark $spark_newest"
  mvn -B -ntp -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom-spark verify -Dspark.version="$spark_newest" \
    -Dtest='BloomFunctionsTest,PipelineKryoRegistratorTest,RegistrationCheckTest,KryoClassesToRegisterTest,StringItemsTest,SqlArgumentTypesTest,CollationTest,SqlSizingTest,DecodeLimitTest'
}

# Needs a Spark distribution for local-cluster: the pip pyspark the PySpark suite installed
# (the newest: the jars and test classes built against spark.version run on it).
spark_fault_tests() {
  if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" = 1 ]; then
    echo "Spark fault suite skipped (SPARKBLOOM_SKIP_PYSPARK=1: no pyspark distribution)"
    return 0
  fi
  await_prefetch pyspark
  # The jvm-tests suite has just built the jars and compiled the test classes.
  PYSPARK_VERSION=$pyspark_newest SPARKBLOOM_SKIP_BUILD=1 scripts/test-spark-fault.sh
}

prefetch maven-dependencies maven_dependencies
if [ "${SPARKBLOOM_SKIP_PYSPARK:-0}" != 1 ]; then
  prefetch pyspark pyspark_venvs
fi
ensure_rust_components
suite "rust-lint" rust_lint
suite "rust-tests" rust_tests
suite "rust-benches-compile" rust_benches_compile
suite "golden-files-regenerate" golden_regenerates
prefetch native-release-build native_release_build
suite "fuzz-smoke" fuzz_smoke
suite "jvm-tests" jvm_tests
suite "readme-paths" readme_paths
prefetch consumers consumer_dependencies
suite "jvm-tests-second-jdk" jvm_tests_second_jdk
suite "aarch64" aarch64_tests
suite "jvm-benches-compile" jvm_benches_compile
suite "pyspark" pyspark_tests
suite "pyspark-package" pyspark_package_tests
suite "sql" sql_tests
suite "python-native" python_native_tests
suite "python-interop" python_interop_tests
suite "release" release_tests
suite "spark-fault" spark_fault_tests
suite "spark-newest" spark_newest_tests

# nothing left running behind the summary
for name in "${!prefetch_pids[@]}"; do
  await_prefetch "$name"
done

echo
echo "total: $SECONDS s"
if [ "$failed" -gt 0 ]; then
  echo "failed suites: ${failures[*]}"
fi
echo "suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
