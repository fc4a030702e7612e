#!/usr/bin/env sh
# Regenerates tests/golden/ from scratch with rust/examples/gen_golden.rs. The output is
# deterministic (fixed shapes, seeded keys, canonical encoder): a rerun must leave
# `git status tests/golden` clean unless the format or the hashing changed.
set -eu
cd "$(dirname "$0")/.."
rm -rf tests/golden
cargo run --quiet --example gen_golden -- tests/golden
echo "wrote $(find tests/golden -type f | wc -l) files, $(du -sk tests/golden | cut -f1) KiB in tests/golden"
