#!/usr/bin/env bash
# sparkbloom's Python package against rbloom, pybloom-live and a bitarray filter with md5 indexes
# (python/bench/bench_vs_rbloom.py): a fresh virtualenv with the four from PyPI and ./python
# (maturin compiles the extension in release mode), then the benchmark; arguments are passed on
# (--smoke: tiny sizes, a check that it runs). Run it on a quiet machine: it prints the load average.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/target/bench-python-venv"
rm -rf "$VENV"
python3 -m venv "$VENV"
echo "[build] pip install ./python numpy rbloom pybloom-live bitarray ..." >&2
"$VENV/bin/pip" install -q --disable-pip-version-check "$ROOT/python" numpy rbloom pybloom-live bitarray
cd /tmp   # the installed package, not the source tree
"$VENV/bin/pip" list --disable-pip-version-check 2>/dev/null | grep -iE '^(sparkbloom|rbloom|pybloom-live|bitarray) '
exec "$VENV/bin/python" "$ROOT/python/bench/bench_vs_rbloom.py" "$@"
