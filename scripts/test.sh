#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs every ctest test.
# .ci/run calls exactly this.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${LATHE_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/build.sh"
"$ROOT/scripts/install-test-peers.sh" "$BUILD/peers"
ctest --test-dir "$BUILD" --output-on-failure -j2 "$@"
