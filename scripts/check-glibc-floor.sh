#!/usr/bin/env bash
# Fails unless every file given needs glibc 2.17 at most (manylinux2014), read from its versioned
# symbols (objdump -T): an ELF library or program, or a wheel, whose extension modules are
# checked and whose manylinux tags must say 2.17 and the modules' architecture.
# Prints a line per ELF file: its size, architecture and the highest GLIBC_ version it needs.
#   scripts/check-glibc-floor.sh target/native/*/libsparkbloom.so target/wheels/*.whl
set -euo pipefail
floor=2.17
failed=0

fail() {
  echo "check-glibc-floor: $*" >&2
  failed=1
}

# The highest GLIBC_x.y an ELF file's dynamic symbols reference.
newest_glibc() {
  objdump -T "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n 1
}

# aarch64 or x86_64, from the ELF header's machine field (bytes 18-19, little-endian).
elf_arch() {
  case $(od -An -tx1 -j18 -N2 "$1" | tr -d ' \n') in
    b700) echo aarch64 ;;
    3e00) echo x86_64 ;;
    *) echo unknown ;;
  esac
}

check_elf() {
  local file=$1 label=${2:-$1} newest arch
  newest=$(newest_glibc "$file")
  arch=$(elf_arch "$file")
  [ -n "$newest" ] || {
    fail "$label: no GLIBC_ symbol versions (not a glibc-linked ELF file?)"
    return
  }
  printf '%-72s %9s bytes  %-7s  needs GLIBC_%s\n' "$label" "$(stat -c %s "$file")" "$arch" "$newest"
  if [ "$(printf '%s\n%s\n' "$newest" "$floor" | sort -V | tail -n 1)" != "$floor" ]; then
    fail "$label needs GLIBC_$newest, above the floor $floor"
  fi
}

check_wheel() {
  local wheel=$1 name dir module arch
  name=$(basename "$wheel")
  dir=$(mktemp -d)
  python3 - "$wheel" "$dir" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for n in z.namelist():
        if n.endswith(".so"):
            z.extract(n, sys.argv[2])
PY
  local modules=0
  while IFS= read -r -d '' module; do
    modules=$((modules + 1))
    arch=$(elf_arch "$module")
    check_elf "$module" "$name:${module#"$dir"/}"
    case $name in
      *manylinux2014_"$arch".manylinux_2_17_"$arch".whl | *manylinux_2_17_"$arch".whl) ;;
      *) fail "$name: its tags are not manylinux2014 / manylinux_2_17 for $arch" ;;
    esac
  done < <(find "$dir" -name '*.so' -print0)
  rm -rf "$dir"
  [ "$modules" -gt 0 ] || fail "$name holds no extension module"
}

[ $# -gt 0 ] || {
  echo "usage: scripts/check-glibc-floor.sh FILE..." >&2
  exit 2
}
for file in "$@"; do
  if [ ! -f "$file" ]; then
    fail "$file: no such file"
  elif [[ $file == *.whl ]]; then
    check_wheel "$file"
  else
    check_elf "$file"
  fi
done
[ "$failed" = 0 ] && echo "glibc floor $floor: ${#} file(s) within it"
[ "$failed" = 0 ]
