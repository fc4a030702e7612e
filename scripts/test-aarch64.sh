#!/usr/bin/env bash
# The linux-aarch64 artifacts, tested on this x86-64 machine under qemu-user emulation:
#   build  scripts/build-native.sh (every platform's JNI library, CLI and wheel; strict: the
#          aarch64 toolchain must install), their glibc floor (scripts/check-glibc-floor.sh)
#   rust   the core crate's unit and integration tests for aarch64-unknown-linux-gnu (Debian's
#          cargo, qemu as cargo's runner: .cargo/config.toml); the CLI's own tests spawn the
#          binary, which an emulated process cannot, so the CLI is tested below instead
#   jvm    the core jar on Debian's arm64 JDK 17 (openjdk-17-jre-headless:arm64) and on this
#          machine's JVM: io.sparkbloom.PlatformCheckMain loads the jar's library for os.arch,
#          checks the golden files byte for byte and prints filters' bytes' and answers'
#          digests, which must be the same on both
#   python the aarch64 wheel with numpy's aarch64 wheel (pip --platform) on Debian's arm64
#          CPython (libpython3.X:arm64; python3:arm64 itself cannot sit beside the amd64 one),
#          python/tests/test_native*.py under pytest
#   cli    the aarch64 CLI builds the golden files' filters byte for byte, answers as the x86-64
#          one does, and refuses SPARKBLOOM_KERNEL=avx2 naming aarch64 and its kernels
# Needs Debian's apt (run as root or with sudo) for the arm64 packages; SPARKBLOOM_SKIP_BUILD=1
# reuses the artifacts and the core jar already built (scripts/test.sh has built them).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WORK="$ROOT/target/aarch64-test"
# Maven's output without escape codes (as in scripts/test.sh).
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
QEMU=(qemu-aarch64-static -L /)
step() { echo "--- aarch64: $*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}

if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != 1 ]; then
  step "build every platform's artifacts"
  SPARKBLOOM_NATIVE_STRICT=1 scripts/build-native.sh
fi
libs=(target/native/linux-x86_64/libsparkbloom.so target/native/linux-aarch64/libsparkbloom.so)
clis=(target/dist/sparkbloom-linux-x86_64 target/dist/sparkbloom-linux-aarch64)
wheel_aarch64=$(ls target/wheels/sparkbloom-*manylinux_2_17_aarch64.whl 2>/dev/null || true)
wheel_x86_64=$(ls target/wheels/sparkbloom-*manylinux_2_17_x86_64.whl 2>/dev/null || true)
for artifact in "${libs[@]}" "${clis[@]}" "$wheel_x86_64" "$wheel_aarch64"; do
  [ -n "$artifact" ] && [ -f "$artifact" ] || {
    echo "an artifact is missing (${artifact:-a wheel}): SPARKBLOOM_NATIVE_STRICT=1 scripts/build-native.sh says why" >&2
    exit 1
  }
done

step "glibc floor of every library, CLI and wheel"
scripts/check-glibc-floor.sh "${libs[@]}" "${clis[@]}" "$wheel_x86_64" "$wheel_aarch64"

# Debian's arm64 JRE and libpython (multiarch, beside the amd64 ones) for the runs below.
py_version=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
packages=(openjdk-17-jre-headless:arm64 "libpython$py_version:arm64" "libpython$py_version-stdlib:arm64")
if ! dpkg -s "${packages[@]}" >/dev/null 2>&1; then
  step "installing ${packages[*]} (apt-get)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
fi
rm -rf "$WORK"
mkdir -p "$WORK"

step "rust: cargo test -p sparkbloom --lib --tests for aarch64-unknown-linux-gnu under qemu"
# -D warnings: code compiled only off x86-64 (or left unused there) is linted nowhere else.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUSTFLAGS="-D warnings"
# The per-key rate cells (5·10^8 queries) are skipped: emulation multiplies their time, and the
# shapes they measure are the golden table's, which the golden test checks here byte for byte.
if ! PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc cargo test --locked -p sparkbloom \
  --target aarch64-unknown-linux-gnu --lib --tests -- --skip per_key_filters_meet_their_rate \
  >"$WORK/rust.log" 2>&1; then
  tail -n 40 "$WORK/rust.log"
  exit 1
fi
grep -E '^ *(Running|test result)' "$WORK/rust.log"
PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc cargo test --locked -q -p sparkbloom \
  --target aarch64-unknown-linux-gnu --lib kernels::tests::the_kernels_are_reported -- --nocapture |
  grep '^sparkbloom kernel'

step "jvm: the core jar on the arm64 JDK under qemu and on $(java -version 2>&1 | head -n 1)"
jar=jvm/sparkbloom/target/sparkbloom-$(scripts/version.sh --maven).jar
if [ "${SPARKBLOOM_SKIP_BUILD:-0}" != 1 ]; then
  mvn -B -ntp -q -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom package -DskipTests -DskipCargo
fi
python3 - "$jar" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for platform in ("linux-x86_64", "linux-aarch64"):
    assert f"native/{platform}/libsparkbloom.so" in names, f"{sys.argv[1]} lacks {platform}"
PY
mvn -B -ntp -q -Dstyle.color=never -f jvm/pom.xml -pl sparkbloom dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$WORK/classpath.txt" >/dev/null
cp="$jar:jvm/sparkbloom/target/test-classes:$(cat "$WORK/classpath.txt")"
check=(-cp "$cp" -Dsparkbloom.repo.root="$ROOT" io.sparkbloom.PlatformCheckMain)
java "${check[@]}" >"$WORK/jvm-x86_64.txt"
"${QEMU[@]}" /usr/lib/jvm/java-17-openjdk-arm64/bin/java "${check[@]}" >"$WORK/jvm-aarch64.txt"
head -n 1 "$WORK/jvm-x86_64.txt"
cat "$WORK/jvm-aarch64.txt"
diff <(tail -n +2 "$WORK/jvm-x86_64.txt") <(tail -n +2 "$WORK/jvm-aarch64.txt") || {
  echo "the arm64 JVM's filters differ from the x86-64 JVM's" >&2
  exit 1
}
echo "arm64 JVM: the same bytes and answers as the x86-64 JVM"

step "python: the aarch64 wheel on Debian's arm64 CPython $py_version under qemu"
# A two-line CPython launcher against libpython (Py_BytesMain), and a wrapper that runs it
# under qemu as sys.executable, so that tests starting a child interpreter can.
printf 'int Py_BytesMain(int, char **);\nint main(int c, char **v) { return Py_BytesMain(c, v); }\n' \
  >"$WORK/python.c"
aarch64-linux-gnu-gcc -O1 "$WORK/python.c" -o "$WORK/python-aarch64" \
  "/usr/lib/aarch64-linux-gnu/libpython$py_version.so.1.0" -Wl,--unresolved-symbols=ignore-in-shared-libs
printf '#!/bin/sh\nexec qemu-aarch64-static -L / -0 "$0" %s -S "$@"\n' "$WORK/python-aarch64" >"$WORK/python3"
chmod +x "$WORK/python3"
target/native-venv/bin/pip install -q --disable-pip-version-check --target "$WORK/site" \
  --only-binary=:all: --implementation cp --python-version "$py_version" \
  --platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 numpy pytest "$wheel_aarch64"
(cd /tmp && PYTHONHOME=/usr PYTHONPATH="$WORK/site" "$WORK/python3" -c \
  'import platform, sparkbloom._native as n; print("python", platform.python_version(), platform.machine(), n.__file__)' &&
  PYTHONHOME=/usr PYTHONPATH="$WORK/site" "$WORK/python3" -m pytest -q -p no:cacheprovider \
    "$ROOT/python/tests/test_native.py" "$ROOT/python/tests/test_native_inputs.py")

step "cli: the aarch64 binary under qemu against the golden files and the x86-64 binary"
cli_x86=target/dist/sparkbloom-linux-x86_64
cli_arm=("${QEMU[@]}" target/dist/sparkbloom-linux-aarch64)
"${cli_arm[@]}" --version
g=tests/golden
for arch in x86_64 aarch64; do
  run=("$cli_x86")
  [ "$arch" = aarch64 ] && run=("${cli_arm[@]}")
  "${run[@]}" build --keys long -n 10000 --fpp 0.001 --output "$WORK/$arch-10000.sbloom" \
    "$g/keys_seeded_10000.txt"
  cmp "$WORK/$arch-10000.sbloom" "$g/n10000_p0.001_10000keys.sbloom"
  "${run[@]}" build --keys string -n 1000 --fpp 0.01 --output "$WORK/$arch-utf8.sbloom" "$g/keys_utf8.txt"
  cmp "$WORK/$arch-utf8.sbloom" "$g/n1000_p0.01_utf8.sbloom"
  "${run[@]}" query --keys long "$g/n10000_p0.001_10000keys.sbloom" "$g/keys_seeded_1000.txt" \
    >"$WORK/$arch-query.txt"
done
cmp "$WORK/x86_64-query.txt" "$WORK/aarch64-query.txt"
echo "aarch64 CLI: golden filters byte for byte, $(wc -l <"$WORK/aarch64-query.txt") answers as x86-64's"
if SPARKBLOOM_KERNEL=avx2 "${cli_arm[@]}" build --keys long -n 10 --fpp 0.01 \
  --output "$WORK/refused.sbloom" "$g/keys_1_2_3.txt" 2>"$WORK/refused.txt"; then
  echo "SPARKBLOOM_KERNEL=avx2 was accepted on aarch64" >&2
  exit 1
fi
cat "$WORK/refused.txt"
grep -q 'avx2 is an x86-64 kernel; this CPU is aarch64, whose kernels are scalar, portable' \
  "$WORK/refused.txt"
echo "aarch64: all checks passed"
