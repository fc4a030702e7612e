#!/usr/bin/env bash
# Builds a release of this commit into dist/, every artifact for every Linux platform the native
# build produces (linux-x86_64, linux-aarch64; SPARKBLOOM_NATIVE_STRICT=1, so both or nothing):
#   dist/maven/io/sparkbloom/…   a Maven repository: sparkbloom (the core jar, both native
#                                libraries inside), sparkbloom-spark_2.12, sparkbloom-spark_2.13,
#                                sparkbloom-redis (Jedis a declared dependency) and their parent
#                                pom, each jar with its sources and javadoc jars and every file
#                                with .md5 and .sha1, the layout a Maven Central upload takes
#                                (the releaser adds the .asc signatures with their own key)
#   dist/python/*.whl            one abi3 wheel per platform (CPython 3.9+), carrying the core jar
#                                and both Scala lines' Spark jars, so sparkbloom.jars() needs
#                                neither ~/.m2 nor $SPARKBLOOM_JARS
#   dist/cli/sparkbloom-cli-VERSION-linux-ARCH.tar.gz   the command line, LICENSE, NOTICE, README
#   dist/crates/sparkbloom-VERSION.crate                 the crate, as `cargo package` makes it
#   dist/SHA256SUMS
# The version is scripts/version.sh's, without -SNAPSHOT. Refuses a tree with uncommitted changes
# (a release is a commit) unless SPARKBLOOM_RELEASE_DIRTY=1, for trying the script itself.
# Usage: scripts/release.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }-Djansi.noreset=true"
note() { echo "release: $*" >&2; }

scripts/version.sh --check >&2
VERSION=$(scripts/version.sh)
allow_dirty=()
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  if [ "${SPARKBLOOM_RELEASE_DIRTY:-0}" != 1 ]; then
    note "error: the tree has uncommitted changes; a release is built from a commit (SPARKBLOOM_RELEASE_DIRTY=1 to try anyway)"
    exit 1
  fi
  note "NOTE: building from a tree with uncommitted changes: not a release of any commit"
  allow_dirty=(--allow-dirty)
fi
export SPARKBLOOM_NATIVE_STRICT=1
DIST="$ROOT/dist"
rm -rf "$DIST"
mkdir -p "$DIST/maven" "$DIST/python" "$DIST/cli" "$DIST/crates"

note "$VERSION: the JNI libraries and the command line (scripts/build-native.sh)"
scripts/build-native.sh jni cli >&2

note "$VERSION: the Maven artifacts into dist/maven"
# deploy to the file repository only: no install, so ~/.m2 never holds the release's jars and a
# consumer test resolving them must read dist/maven
mvn -B -ntp -q -Dstyle.color=never -f jvm/pom.xml -Prelease -Dchangelist= -DskipTests \
  -Dmaven.install.skip=true -DaltDeploymentRepository="dist::file://$DIST/maven" \
  -pl sparkbloom,sparkbloom-spark,sparkbloom-spark-scala-2.12,sparkbloom-redis -am deploy >&2

note "$VERSION: the wheels, with the jars inside"
jars_dir="$ROOT/python/sparkbloom/jars"
rm -rf "$jars_dir"
trap 'rm -rf "$jars_dir"' EXIT
mkdir -p "$jars_dir"
for artifact in sparkbloom sparkbloom-spark_2.12 sparkbloom-spark_2.13; do
  cp "$DIST/maven/io/sparkbloom/$artifact/$VERSION/$artifact-$VERSION.jar" "$jars_dir/"
done
scripts/build-native.sh wheel >&2
cp target/wheels/sparkbloom-"$VERSION"-*.whl "$DIST/python/"

note "$VERSION: the command line tarballs"
for binary in target/dist/sparkbloom-linux-*; do
  platform=${binary#target/dist/sparkbloom-}
  name="sparkbloom-cli-$VERSION-$platform"
  stage="$ROOT/target/release-stage/$name"
  rm -rf "$stage"
  mkdir -p "$stage"
  cp "$binary" "$stage/sparkbloom"
  cp LICENSE NOTICE README.md "$stage/"
  tar -C "$ROOT/target/release-stage" --owner=0 --group=0 -czf "$DIST/cli/$name.tar.gz" "$name"
done

note "$VERSION: the crate (cargo package, which also builds it from the packaged files)"
cargo package -q --locked -p sparkbloom "${allow_dirty[@]}" >&2
cp "target/package/sparkbloom-$VERSION.crate" "$DIST/crates/"

(cd "$DIST" && find . -type f ! -name SHA256SUMS ! -path './maven/*' -printf '%P\n' | sort |
  xargs sha256sum >SHA256SUMS)
note "dist/ for $VERSION:"
(cd "$DIST" && find . -type f \( -name '*.jar' -o -name '*.pom' -o -name '*.whl' -o -name '*.tar.gz' -o -name '*.crate' \) \
  -printf '%s\t%P\n' | sort -k2 | awk -F'\t' '{ printf "%10d  %s\n", $1, $2 }')
