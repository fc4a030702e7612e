#!/usr/bin/env bash
# Runs the criterion benchmarks (Rust core beside fastbloom) and the JMH benchmarks (sparkbloom
# through JNI beside Guava 33 and Spark's sketch filter V1/V2), then prints one Markdown table
# of ns/op per implementation with the ratios sparkbloom/peer and issue 5's targets.
#
#   scripts/bench.sh [--quick|--full] [--no-build]
#
#   --quick (default)  ~3-4 minutes on 2 cores: long keys, batch 4096 only, (10^4, 10^-3)
#                      serialization; short criterion settings, JMH 1 fork, short iterations.
#   --full             every benchmark (both key kinds, batch 1/16/256/4096, all serialization
#                      cases): ~30-35 minutes on 2 cores.
#   --no-build         reuse the last build (target/release/deps/filter-*, benchmarks.jar).
#
# Results land in target/bench/<mode>/: criterion/ (CRITERION_HOME), jmh*.json, sizes.json,
# machine.txt, table.md (what is printed). Timings taken while other jobs run are noisy: check
# the load average printed in machine.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=quick
build=1
for arg in "$@"; do
  case "$arg" in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "unknown argument: $arg (use --quick, --full, --no-build)" >&2; exit 2 ;;
  esac
done

out="target/bench/$mode"
rm -rf "$out"
mkdir -p "$out"
export CRITERION_HOME="$PWD/$out/criterion"
jar=jvm/sparkbloom-bench/target/benchmarks.jar

if [[ $mode == quick ]]; then
  # criterion: long keys, batch 4096, serialization; no string keys, no anatomy.
  criterion_args=(--warm-up-time 0.3 --measurement-time 0.5 --sample-size 10
    '^(put_u64|hit_u64|miss_u64|serialize|deserialize)|/4096$')
  jmh_common=(-f 1 -wi 2 -w 250ms -i 3 -r 300ms)
  size_shapes=(n1e4_p1e-3 n1e4_p1e-3_sparse)
  # Two JMH runs: the long-key single and batch benchmarks at batch 4096, then serialization
  # of the (10^4, 10^-3) filters only (the 12 MB ones take long to round-trip).
  jmh_runs=(
    "SingleKeyBench\\.(put|hit|miss)_u64|BatchBench|JniOverheadBench -p batch=4096"
    "SerializationBench -p shape=n1e4_p1e-3,n1e4_p1e-3_sparse"
  )
else
  criterion_args=(--warm-up-time 1 --measurement-time 2)
  size_shapes=()
  jmh_common=(-f 1 -wi 3 -w 1s -i 5 -r 1s)
  jmh_runs=("SingleKeyBench|BatchBench|SerializationBench|JniOverheadBench")
fi

{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "mode: $mode"
  echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "cores: $(nproc)"
  echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "kernel: $(uname -r)"
  echo "rustc: $(rustc --version)"
  echo "java: $(java -version 2>&1 | head -1)"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/machine.txt"

if [[ $build == 1 ]]; then
  echo "== building criterion benches" >&2
  cargo bench --bench filter --no-run 2>&1 | tail -3 >&2
  echo "== building the JMH jar" >&2
  mvn -B -q -f jvm/pom.xml -Pbench -pl sparkbloom-bench -am package -DskipTests >&2
fi

echo "== criterion ($mode)" >&2
cargo bench --bench filter -- --noplot "${criterion_args[@]}" > "$out/criterion.log" 2>&1 || {
  tail -30 "$out/criterion.log" >&2
  exit 1
}

echo "== JMH ($mode)" >&2
jmh_files=()
i=0
for run in "${jmh_runs[@]}"; do
  i=$((i + 1))
  read -r -a run_args <<< "$run"
  java -jar "$jar" "${jmh_common[@]}" -rf json -rff "$out/jmh$i.json" "${run_args[@]}" \
    > "$out/jmh$i.log" 2>&1 || {
    tail -30 "$out/jmh$i.log" >&2
    exit 1
  }
  jmh_files+=(--jmh "$out/jmh$i.json")
done
java -cp "$jar" io.sparkbloom.bench.SerializedSizes "${size_shapes[@]}" > "$out/sizes.json"

echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
{
  echo '```'
  cat "$out/machine.txt"
  echo '```'
  echo
  python3 scripts/bench_table.py --criterion "$CRITERION_HOME" "${jmh_files[@]}" \
    --sizes "$out/sizes.json"
} > "$out/table.md"
cat "$out/table.md"
