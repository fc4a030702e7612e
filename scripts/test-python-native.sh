#!/usr/bin/env bash
# The Python package's native core (rust/python, the extension sparkbloom._native): pip-installs
# python/ into a fresh virtualenv under target/ (maturin, fetched from PyPI as the build backend,
# compiles the extension with cargo), then runs python/tests/test_native.py and
# test_redis_offsets.py on the installed package, the pure-Python cases of check_package.py
# (jars() without pyspark) against the same install, examples/python/replace_bitarray_filter.py
# (bitarray from PyPI) and a smoke run of the benchmark against rbloom and pybloom-live (tiny
# sizes: it runs, its figures mean nothing).
# Needs only cargo and python3 (3.9+); pip fetches the rest.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/target/python-native-venv"
PYTHON="${PYTHON:-python3}"

rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
echo "[build] pip install ./python pytest numpy bitarray rbloom pybloom-live (maturin builds sparkbloom._native) ..." >&2
"$VENV/bin/pip" install -q --disable-pip-version-check ./python pytest numpy bitarray rbloom pybloom-live

# outside the repository, so that the installed package is the one imported
cd /tmp
"$VENV/bin/python" -m pytest -q -p no:cacheprovider "$ROOT/python/tests/test_native.py" \
  "$ROOT/python/tests/test_native_inputs.py" "$ROOT/python/tests/test_redis_offsets.py" \
  "$ROOT/python/tests/test_jars_without_pyspark.py" "$ROOT/python/tests/test_native_per_key_shape.py" \
  "$ROOT/python/tests/test_packages.py"
"$VENV/bin/python" - "$ROOT/python/tests" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import sparkbloom
from pathlib import Path
import test_jars_without_pyspark as cases
installed = Path(sparkbloom.__file__).resolve().parent.parent
names = sorted(n for n in dir(cases) if n.startswith("test_"))
for name in names:
    getattr(cases, name)(installed)
print(f"jars() without pyspark on the installed package: {len(names)} passed")
PY
# the example replacing a bitarray filter with md5 indexes: its assertions fail the suite
"$VENV/bin/python" "$ROOT/examples/python/replace_bitarray_filter.py"
"$VENV/bin/python" "$ROOT/python/bench/bench_vs_rbloom.py" --smoke >/dev/null
echo "python/bench/bench_vs_rbloom.py --smoke: ran"
