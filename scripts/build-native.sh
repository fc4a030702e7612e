#!/usr/bin/env bash
# The native artifacts of every Linux platform sparkbloom ships (linux-x86_64, linux-aarch64),
# each linked against glibc 2.17's symbols (manylinux2014), so that they load on any Linux a
# Spark fleet runs, from CentOS 7 on:
#   jni    target/native/linux-<arch>/libsparkbloom.so  the JNI library the core jar packs
#                                                        (jvm/sparkbloom/pom.xml runs `jni`)
#   cli    target/dist/sparkbloom-linux-<arch>          the command line
#   wheel  target/wheels/sparkbloom-*-manylinux2014_<arch>.manylinux_2_17_<arch>.whl
# Usage: scripts/build-native.sh [jni] [cli] [wheel]  (none: all three).
#
# From an x86-64 Linux host. x86-64 builds with rustup's toolchain; aarch64 with Debian's rustc
# and cargo (rustc-web, with its aarch64 std: rustup's toolchain has no aarch64 std here and
# cannot fetch one) and Debian's aarch64 cross gcc, all installed from Debian when missing
# (apt-get, through sudo when not root). zig links against glibc 2.17's symbols: ziglang,
# cargo-zigbuild and maturin from PyPI, in the virtualenv target/native-venv.
#
# Where a toolchain cannot be had (no apt, no PyPI), the x86-64 artifacts are still built (with
# plain cargo: no glibc floor) and a NOTE says what is missing; SPARKBLOOM_NATIVE_STRICT=1 makes
# that an error (CI, releases). SPARKBLOOM_PLATFORMS (default "linux-x86_64 linux-aarch64")
# builds fewer: the jar then carries only those.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/target/native-venv"
GLIBC=2.17
strict=${SPARKBLOOM_NATIVE_STRICT:-0}
read -r -a platforms <<<"${SPARKBLOOM_PLATFORMS:-linux-x86_64 linux-aarch64}"
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(jni cli wheel)

note() { echo "build-native: $*" >&2; }
lacking() {
  if [ "$strict" = 1 ]; then
    note "error: $* (SPARKBLOOM_NATIVE_STRICT=1)"
    exit 1
  fi
  note "NOTE: $*"
}

[ "$(uname -s)-$(uname -m)" = Linux-x86_64 ] || {
  note "error: builds from an x86-64 Linux host, this is $(uname -s)-$(uname -m)"
  exit 1
}

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo -n "$@"
  else
    return 1
  fi
}

aarch64_ready() {
  command -v aarch64-linux-gnu-gcc >/dev/null && [ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] &&
    [ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/aarch64-unknown-linux-gnu/lib" ]
}

# qemu-user-static is the aarch64 tests' runner (.cargo/config.toml), installed with the rest.
ensure_aarch64_toolchain() {
  aarch64_ready && return 0
  command -v apt-get >/dev/null || return 1
  note "installing the aarch64 cross toolchain from Debian (apt-get)"
  as_root dpkg --add-architecture arm64 && as_root apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq rustc-web cargo-web \
      libstd-rust-web-dev:arm64 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static \
      >/dev/null || return 1
  aarch64_ready
}

zig_ready() {
  [ -x "$VENV/bin/cargo-zigbuild" ] && [ -x "$VENV/bin/maturin" ] &&
    "$VENV/bin/python" -m ziglang version >/dev/null 2>&1
}

ensure_zig() {
  zig_ready && return 0
  note "installing zig, cargo-zigbuild and maturin from PyPI into $VENV"
  rm -rf "$VENV"
  python3 -m venv "$VENV" &&
    "$VENV/bin/pip" install -q --disable-pip-version-check ziglang==0.17.1 cargo-zigbuild==0.24.1 \
      'maturin>=1.5,<2' || return 1
  zig_ready
}

triple() {
  case $1 in
    linux-x86_64) echo x86_64-unknown-linux-gnu ;;
    linux-aarch64) echo aarch64-unknown-linux-gnu ;;
    *)
      note "error: unknown platform $1 (linux-x86_64, linux-aarch64)"
      exit 1
      ;;
  esac
}

# Runs "$@" with platform $1's toolchain. Symbols stay in the release artifacts (profilers name
# functions) but zig, given rustc's --strip-debug, strips them all: it links unstripped and
# stage() drops the debug info instead.
toolchain() {
  local platform=$1
  shift
  if [ "$platform" = linux-aarch64 ]; then
    PATH="$VENV/bin:/usr/bin:$PATH" CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc \
      CARGO_PROFILE_RELEASE_STRIP=none "$@"
  else
    PATH="$VENV/bin:$PATH" CARGO_PROFILE_RELEASE_STRIP=none "$@"
  fi
}

# cargo build "$@" for platform $1, against glibc 2.17 where zig is there; prints the output
# directory.
cargo_build() {
  local platform=$1 target
  shift
  target=$(triple "$platform")
  if [ "$zig" = 1 ]; then
    toolchain "$platform" cargo-zigbuild build --release --locked --target "$target.$GLIBC" "$@" >&2
    echo "$ROOT/target/$target/release"
  elif [ "$platform" = linux-x86_64 ]; then
    cargo build --release --locked "$@" >&2
    echo "$ROOT/target/release"
  else
    toolchain "$platform" cargo build --release --locked --target "$target" "$@" >&2
    echo "$ROOT/target/$target/release"
  fi
}

# Copies $2 to $3 without its debug info (std's, which a release build would have stripped).
stage() {
  local platform=$1 from=$2 to=$3 objcopy=objcopy
  [ "$platform" = linux-aarch64 ] && objcopy=aarch64-linux-gnu-objcopy
  mkdir -p "$(dirname "$to")"
  "$objcopy" --strip-debug "$from" "$to.tmp"
  mv "$to.tmp" "$to"
}

build_jni() {
  local platform=$1 out
  out=$(cargo_build "$platform" --lib --features jni)
  stage "$platform" "$out/libsparkbloom.so" "$ROOT/target/native/$platform/libsparkbloom.so"
  built+=("target/native/$platform/libsparkbloom.so")
}

build_cli() {
  local platform=$1 out
  out=$(cargo_build "$platform" -p sparkbloom-cli)
  stage "$platform" "$out/sparkbloom" "$ROOT/target/dist/sparkbloom-$platform"
  built+=("target/dist/sparkbloom-$platform")
}

# maturin's --compatibility manylinux2014 has zig link against glibc 2.17 and checks the
# extension's symbols against the tag.
build_wheel() {
  local platform=$1 arch=${1#linux-}
  if [ "$zig" != 1 ]; then
    lacking "no maturin and zig: no manylinux wheel for $platform (pip install ./python builds one for this machine)"
    return 0
  fi
  rm -f "$ROOT"/target/wheels/sparkbloom-*_"$arch".whl
  (cd python && toolchain "$platform" maturin build --release --locked --zig --strip \
    --target "$(triple "$platform")" --compatibility manylinux2014 --out "$ROOT/target/wheels") >&2
  built+=("$(cd "$ROOT" && ls target/wheels/sparkbloom-*_"$arch".whl)")
}

zig=1
if ! ensure_zig; then
  zig=0
  lacking "zig, cargo-zigbuild or maturin could not be installed from PyPI: plain cargo builds, linked against this machine's glibc (no 2.17 floor), and no wheels"
fi

todo=()
for platform in "${platforms[@]}"; do
  triple "$platform" >/dev/null
  if [ "$platform" = linux-aarch64 ] && ! ensure_aarch64_toolchain; then
    lacking "the aarch64 cross toolchain (Debian's gcc-aarch64-linux-gnu, rustc-web with libstd-rust-web-dev:arm64) is missing and apt-get could not install it: linux-aarch64 skipped, the jar carries linux-x86_64 only"
    continue
  fi
  todo+=("$platform")
done

# A digest of what the JNI libraries are built from: the core's sources, the manifests, the
# toolchain and the platforms. `jni` with the digest of its last build and every library in
# place builds nothing, so a Maven build that changed no Rust spends no time in cargo.
jni_inputs() {
  {
    printf '%s\n' "${todo[@]}" "zig=$zig" "$(rustc -V)" "$(/usr/bin/rustc -V 2>/dev/null || true)"
    find rust/src Cargo.toml Cargo.lock -type f -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -d' ' -f1
}
jni_up_to_date() {
  local platform
  [ "$(cat "$ROOT/target/native/.inputs" 2>/dev/null)" = "$1" ] || return 1
  for platform in "${todo[@]}"; do
    [ -f "$ROOT/target/native/$platform/libsparkbloom.so" ] || return 1
  done
}

built=()
for item in "${what[@]}"; do
  case $item in
    jni)
      inputs=$(jni_inputs)
      if jni_up_to_date "$inputs"; then
        note "jni: target/native is up to date (${todo[*]})"
        continue
      fi
      # Only this build's libraries go into the jar, never one left from an earlier build.
      rm -rf "$ROOT/target/native"
      for platform in "${todo[@]}"; do build_jni "$platform"; done
      echo "$inputs" >"$ROOT/target/native/.inputs"
      ;;
    cli) for platform in "${todo[@]}"; do build_cli "$platform"; done ;;
    wheel) for platform in "${todo[@]}"; do build_wheel "$platform"; done ;;
    *)
      note "error: unknown artifact $item (jni, cli, wheel)"
      exit 1
      ;;
  esac
done

if [ ${#built[@]} -eq 0 ]; then
  :
elif [ "$zig" = 1 ]; then
  scripts/check-glibc-floor.sh "${built[@]}"
else
  printf 'built %s\n' "${built[@]}"
fi
