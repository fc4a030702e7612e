#!/usr/bin/env bash
# The files README.md tells users to run or pass exist once the project is built: every jvm/...,
# target/... and scripts/... path it names (the jars of --jars, the CLI binary, the scripts; the
# scripts executable) and every *.jar, which a command run from the repository root finds there
# only by such a path. A command naming a jar the build does not make fails here, not as a WARN and
# then UNRESOLVED_ROUTINE on a user's machine. Run after the build: scripts/test.sh runs it after
# jvm-tests (which builds the jars and, through the core module, target/release/sparkbloom).
set -euo pipefail
cd "$(dirname "$0")/.."
readme=README.md

# line:path, each path a run of path characters starting at jvm/, target/ or scripts/ (not inside
# another path), or ending in .jar; a sentence's final dot is not part of it.
named=$({ grep -noP '(?<![\w./-])(?:jvm|target|scripts)/[\w./-]+|[\w./-]+\.jar\b' "$readme" || true; } |
  sed 's/\.*$//' | sort -t: -k2 -u)
[ -n "$named" ] || { echo "check-readme-paths: $readme names no paths: the pattern is broken" >&2; exit 1; }

checked=0
missing=0
while IFS=: read -r line path; do
  checked=$((checked + 1))
  if [[ $path == scripts/* ]]; then
    [ -f "$path" ] && [ -x "$path" ] && continue
    echo "$readme:$line: $path is not an executable script" >&2
  else
    [ -e "$path" ] && continue
    echo "$readme:$line: $path does not exist (after the build)" >&2
  fi
  missing=$((missing + 1))
done <<<"$named"
# With a release in dist/ (scripts/release.sh; the release suite runs this again): every Maven
# coordinate io.sparkbloom:ARTIFACT:VERSION README gives is in dist/maven, and every dist/ path
# (a * matching any run of characters) matches a file there.
if [ -d dist/maven ]; then
  while IFS=: read -r line group artifact version; do
    checked=$((checked + 1))
    [ -f "dist/maven/io/sparkbloom/$artifact/$version/$artifact-$version.jar" ] && continue
    echo "$readme:$line: $group:$artifact:$version is not in dist/maven" >&2
    missing=$((missing + 1))
  done < <(grep -noP 'io\.sparkbloom:[\w.-]+:\d[\w.-]*\w' "$readme" | sort -t: -k2 -u)
  while IFS=: read -r line path; do
    checked=$((checked + 1))
    compgen -G "$path" >/dev/null && continue
    echo "$readme:$line: $path matches nothing in dist/" >&2
    missing=$((missing + 1))
  done < <(grep -noP '(?<![\w./-])dist/[\w./*-]+' "$readme" | sed 's/\.*$//' | sort -t: -k2 -u)
fi
echo "check-readme-paths: $checked paths and coordinates named in $readme, $missing missing"
[ "$missing" -eq 0 ]
