#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo-fuzz, libFuzzer, AddressSanitizer) of the decoders that take
# foreign bytes: format v1 as handed over (`decode`), format v1 past its checksum
# (`decode_checksummed`), Guava's writeTo stream (`read_guava`), the counting filter past its
# checksum (`decode_counting`), Spark's sketch writeTo stream (`read_spark`, V1 and V2).
# Starting corpus: tests/golden, and two small Spark streams made here.
#   scripts/fuzz.sh [seconds per target, default 60] [target ...]
# Needs a nightly toolchain (rustup) and installs cargo-fuzz from crates.io if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(decode decode_checksummed read_guava decode_counting read_spark)

command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --version 0.13.2

work=target/fuzz-work
rm -rf "$work"
mkdir -p "$work"/{decode,decode_checksummed,read_guava,decode_counting,read_spark}
for f in tests/golden/*.sbloom tests/golden/corrupt/*.sbloom; do
  cp "$f" "$work/decode/"
  # The body without its CRC-32 trailer: decode_checksummed appends a correct one.
  head -c -4 "$f" > "$work/decode_checksummed/$(basename "$f")"
done
cp tests/golden/*.guava tests/golden/corrupt/*.guava "$work/read_guava/"
for f in tests/golden/counting/*.sbloom tests/golden/counting/corrupt/*.sbloom; do
  head -c -4 "$f" > "$work/decode_counting/$(basename "$f")"
done
# Spark V1 (version 1, k = 3, one word) and V2 (version 2, k = 3, hash seed 0, one word).
printf '\x00\x00\x00\x01\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x00\x10\x20\x00\x01' > "$work/read_spark/v1"
printf '\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x10\x20\x00\x01' > "$work/read_spark/v2"

# A valid 37-byte header may describe a filter of up to 2^43 bits (sparse, empty): such
# allocations are legitimate and lazily zeroed, so only RSS is bounded, not allocation sizes;
# a failed allocation must come back as an error, not an abort.
export ASAN_OPTIONS=allocator_may_return_null=1
for target in "${targets[@]}"; do
  echo "== fuzz $target for ${seconds}s"
  rm -rf "fuzz/artifacts/$target"
  cargo +nightly fuzz run --fuzz-dir fuzz -O "$target" "$work/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2000000 \
    -print_final_stats=1 2>&1 | grep -E "^#[0-9]+ *DONE|stat::number_of_executed_units|stat::new_units_added|ERROR|panicked|SUMMARY|Done|artifact" || true
  # cargo fuzz exits non-zero on a finding; the pipe above hides it, so check for artifacts.
  if ls fuzz/artifacts/"$target"/* >/dev/null 2>&1; then
    echo "fuzz $target: FAILED, inputs in fuzz/artifacts/$target/"
    exit 1
  fi
done
