#!/usr/bin/env bash
# Configures and builds with LATHE_ENGINE_ONLY=ON while Qt cannot be found at all, then
# runs the engine tests and lathe-cli from that build.
set -euo pipefail
SRC="$1"
BUILD="$2"
PEERS="$3"
cmake -S "$SRC" -B "$BUILD" -G Ninja -DLATHE_ENGINE_ONLY=ON -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON -DLATHE_PEERS_DIR="$PEERS" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$BUILD.configure.log" 2>&1 || { cat "$BUILD.configure.log"; exit 1; }
cmake --build "$BUILD" -j2
# lathe-cli links no Qt library itself. (Debian's libtorch_cpu pulls in OpenCV's highgui and
# with it Qt 5 indirectly; that is the package's doing, so only direct dependencies count.)
if readelf -d "$BUILD/app/lathe-cli" | grep NEEDED | grep -i qt; then echo "FAIL: lathe-cli links Qt" >&2; exit 1; fi
if grep -q "Qt6_DIR:PATH=/" "$BUILD/CMakeCache.txt"; then echo "FAIL: Qt 6 was found" >&2; exit 1; fi
[ ! -e "$BUILD/app/lathe" ] || { echo "FAIL: the GUI was built" >&2; exit 1; }
"$BUILD/app/lathe-cli" --version
if "$BUILD/app/lathe-cli" --help | grep -q "project"; then echo "FAIL: workspace verbs in an engine-only build" >&2; exit 1; fi
# The long end-to-end checks (torchvision parity, training runs, ONNX Runtime) already run in
# the main build against the same engine sources; here the unit tests and the CLI basics.
ctest --test-dir "$BUILD" --output-on-failure -j2 -E "model_parity|cli_train|export_onnxruntime"
