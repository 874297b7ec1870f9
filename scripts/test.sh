#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds every configuration (scripts/build.sh
# all) before any test runs, then runs ctest in the two LibTorch builds: build/ (LibTorch 2.11
# with CUDA, every test) and build-debian/ (Debian's LibTorch 1.13: see tests/unit/engine/CMakeLists.txt
# for what it leaves to build/), then in the sanitizer trees build-asan/ (ASan + UBSan) and
# build-tsan/ (TSan). .ci/run calls exactly this. Extra arguments go to every ctest run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${LATHE_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/build.sh" all
status=0
# build-asan/ and build-tsan/: the sanitizer trees (README: Developers); any report fails its test.
for dir in "$BUILD" "$BUILD-debian" "$BUILD-asan" "$BUILD-tsan"; do
  start=$(date +%s)
  echo "test.sh: ctest in $dir" >&2
  ctest --test-dir "$dir" --output-on-failure -j2 "$@" || status=1
  echo "test.sh: $dir tested in $(( $(date +%s) - start )) s" >&2
done
exit $status
