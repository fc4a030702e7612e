#!/usr/bin/env bash
# The `sparkbloom` CLI's benchmark: `sparkbloom dedup` against `awk '!seen[$0]++'` and
# `sort -u` on URL-like lines with 30 % repeats (wall time, peak RSS), and `build` throughput.
#
#   scripts/bench-cli.sh [LINES] [FPP]      # defaults: 10000000 lines, p = 0.001
#
# The data comes from a fixed random generator state (the same file for the same LINES on any
# machine).
# Figures are only worth quoting from a quiet machine: the table prints the load average.
# Needs cargo, python3 and GNU time (/usr/bin/time, installed from Debian's `time` if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-10000000}
fpp=${2:-0.001}
distinct=$((lines * 7 / 10))

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time (Debian package 'time')" >&2
  apt-get install -y -qq time >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
fi
cargo build --release --locked -q -p sparkbloom-cli
cli=$(pwd)/target/release/sparkbloom

work=$(mktemp -d "${TMPDIR:-/tmp}/sparkbloom-bench-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "generating $lines lines ($distinct distinct, 30 % repeats)" >&2
python3 - "$lines" "$distinct" >"$work/urls.txt" <<'PY'
import random, sys
lines, distinct = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(13)
M = (1 << 64) - 1
words = ["news", "blog", "shop", "wiki", "docs", "forum", "video", "api"]

def url(j):  # the j-th distinct line: a function of j, so repeats need no memory
    x = (j * 0x9E3779B97F4A7C15 + 13) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    x ^= x >> 31
    return "https://www.site%d.example/%s/%s/%x/item-%d\n" % (
        x % 50000, words[x >> 61], words[x >> 58 & 7], x >> 24, j)

made = 0
out = sys.stdout
for i in range(lines):
    if made * lines < (i + 1) * distinct:  # exactly `distinct` new lines, spread evenly
        out.write(url(made))
        made += 1
    else:  # a repeat of a uniformly chosen earlier line
        out.write(url(rng.getrandbits(64) % made))
PY
bytes=$(stat -c %s "$work/urls.txt")
seq 1 "$distinct" >"$work/longs.txt"

# measure NAME COMMAND...: stdin from $input, stdout to $work/out; prints "seconds kib out_lines"
# (wall time from bash's clock, peak RSS from GNU time).
measure() {
  local name=$1
  shift
  local start=$EPOCHREALTIME
  /usr/bin/time -v -o "$work/time.txt" "$@" <"$input" >"$work/out" 2>"$work/err" || {
    echo "$name failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  local end=$EPOCHREALTIME kib
  kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  echo "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') $kib $(wc -l <"$work/out")"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
input=$work/urls.txt
read -r sb_s sb_kib sb_out < <(measure dedup "$cli" dedup -n "$distinct" -p "$fpp")
read -r awk_s awk_kib awk_out < <(measure awk awk '!seen[$0]++')
read -r sort_s sort_kib sort_out < <(measure sort env LC_ALL=C sort -u)
read -r bs_s bs_kib _ < <(measure build-string "$cli" build -n "$distinct" -p "$fpp" -o "$work/s.sbloom")
input=$work/longs.txt
read -r bl_s bl_kib _ < <(measure build-long "$cli" build -n "$distinct" -p "$fpp" --keys long -o "$work/l.sbloom")
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? n / s / 1e6 : 0) }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

echo
echo "sparkbloom CLI benchmark: $lines lines ($((bytes / 1048576)) MiB, $distinct distinct), p = $fpp"
echo "machine: $(nproc) cores, $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1); awk: $(readlink -f "$(command -v awk)")"
echo "load average before: $load_before; after: $load_after"
echo
echo "| command | wall s | M lines/s | peak RSS MiB | lines out | vs awk: speed, memory |"
echo "|---|---:|---:|---:|---:|---|"
echo "| sparkbloom dedup | $sb_s | $(rate "$lines" "$sb_s") | $(mib "$sb_kib") | $sb_out | $(ratio "$awk_s" "$sb_s")× faster, $(ratio "$awk_kib" "$sb_kib")× less |"
echo "| awk '!seen[\$0]++' | $awk_s | $(rate "$lines" "$awk_s") | $(mib "$awk_kib") | $awk_out | 1× |"
echo "| LC_ALL=C sort -u | $sort_s | $(rate "$lines" "$sort_s") | $(mib "$sort_kib") | $sort_out | $(ratio "$awk_s" "$sort_s")× faster, $(ratio "$awk_kib" "$sort_kib")× less |"
echo "| sparkbloom build (strings) | $bs_s | $(rate "$lines" "$bs_s") | $(mib "$bs_kib") | | |"
echo "| sparkbloom build --keys long | $bl_s | $(rate "$distinct" "$bl_s") | $(mib "$bl_kib") | | |"
echo
echo "dedup lost $((awk_out - sb_out)) of $awk_out distinct lines to false positives."
