#!/usr/bin/env sh
# Regenerates the golden files with tools/src/bin/gen_golden.rs, into tests/golden/ or into
# the directory given as the first argument (the test suite regenerates into a temp dir and
# diffs it against tests/golden). The output is deterministic (fixed shapes, seeded keys,
# canonical encoder): a rerun must leave `git status tests/golden` clean unless the format or
# the hashing changed.
set -eu
cd "$(dirname "$0")/.."
out=${1:-tests/golden}
rm -rf "$out"
# The test profile: the build `cargo test --all-targets` (scripts/test.sh) has already made.
cargo run --quiet --locked --profile test -p sparkbloom-tools --bin gen_golden -- "$out"
echo "wrote $(find "$out" -type f | wc -l) files, $(du -sk "$out" | cut -f1) KiB in $out"
