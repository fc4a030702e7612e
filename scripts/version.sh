#!/usr/bin/env bash
# The project's version, written once: Cargo.toml's [workspace.package] version (the crates; the
# Python package through maturin). Maven cannot read that file before it builds its model, so
# jvm/pom.xml's revision property repeats it, and --check fails when the two differ.
#   scripts/version.sh           the release version (0.1.0)
#   scripts/version.sh --maven   the version a development Maven build installs (0.1.0-SNAPSHOT)
#   scripts/version.sh --check   exit 1, saying so, when jvm/pom.xml's revision is not Cargo.toml's
set -euo pipefail
cd "$(dirname "$0")/.."
cargo_version=$(awk '/^\[workspace\.package\]/ { in_section = 1; next }
  /^\[/ { in_section = 0 }
  in_section && $1 == "version" { gsub(/"/, "", $3); print $3; exit }' Cargo.toml)
[ -n "$cargo_version" ] || { echo "version.sh: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
pom_property() { sed -n "s:^    <$1>\(.*\)</$1>.*:\1:p" jvm/pom.xml | head -n 1; }
case ${1:-} in
  "") echo "$cargo_version" ;;
  --maven) echo "$cargo_version$(pom_property changelist)" ;;
  --check)
    revision=$(pom_property revision)
    if [ "$revision" != "$cargo_version" ]; then
      echo "version.sh: jvm/pom.xml's revision is '$revision', Cargo.toml's version '$cargo_version'" >&2
      exit 1
    fi
    echo "version $cargo_version (Cargo.toml, jvm/pom.xml)"
    ;;
  *) echo "usage: scripts/version.sh [--maven|--check]" >&2; exit 2 ;;
esac
