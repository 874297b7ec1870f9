#!/usr/bin/env bash
# The engine-only configuration that scripts/build.sh configured with LATHE_ENGINE_ONLY=ON while
# Qt could not be found at all, and built: no Qt found, no GUI, a lathe-cli that links no Qt and
# has no workspace verbs but runs the engine's. Compiles nothing itself.
set -euo pipefail
BUILD="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -x "$BUILD/app/lathe-cli" ] || fail "$BUILD/app/lathe-cli missing: scripts/build.sh all builds it"
grep -q "^LATHE_ENGINE_ONLY:BOOL=ON" "$BUILD/CMakeCache.txt" || fail "$BUILD is not an engine-only configuration"
grep -qE "^CMAKE_DISABLE_FIND_PACKAGE_Qt6:(BOOL|UNINITIALIZED)=ON" "$BUILD/CMakeCache.txt" || fail "$BUILD could look for Qt"
if grep -q "Qt6_DIR:PATH=/" "$BUILD/CMakeCache.txt"; then fail "Qt 6 was found"; fi
[ ! -e "$BUILD/app/lathe" ] || fail "the GUI was built"
# lathe-cli links no Qt library itself. (Debian's libtorch_cpu pulls in OpenCV's highgui and
# with it Qt 5 indirectly; that is the package's doing, so only direct dependencies count.)
if readelf -d "$BUILD/app/lathe-cli" | grep NEEDED | grep -i qt; then fail "lathe-cli links Qt"; fi
"$BUILD/app/lathe-cli" --version
if "$BUILD/app/lathe-cli" --help | grep "project" >/dev/null; then fail "workspace verbs in an engine-only build"; fi
# The engine runs: the backbone registry and a forward pass of a real network.
"$BUILD/app/lathe-cli" models | grep resnet18 >/dev/null || fail "models"
"$BUILD/app/lathe-cli" --json bench train --arch mobilenet_v3_small --image-size 32 --batch 4 --steps 2 >/dev/null \
  || fail "bench train in the engine-only build"
echo "engine-only build: ok"
