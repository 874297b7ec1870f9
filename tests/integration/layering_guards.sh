#!/usr/bin/env bash
# The layering guards hold, shown on deliberate violations (tests/integration/layering): an engine
# subsystem cannot include one above it (core/engine/CMakeLists.txt), and code above the engine
# cannot include LibTorch, OpenCV or libjpeg, directly or through an engine header
# (lathe_forbid_engine_internals). Each probe is compiled by the build itself, as its layer's
# sources are.
set -uo pipefail
BUILD="$1"
ABOVE="${2:-1}" # 0 in the engine-only build: no workspace or widgets
fail() { echo "FAIL: $*" >&2; exit 1; }
probe() { cmake --build "$BUILD" --target "layering_probe_$1" 2>&1; }

out=$(probe formats_ok) || { echo "$out"; fail "formats/ cannot use base/"; }
out=$(probe formats_includes_training) && fail "formats/ compiled with an include of training/"
grep -q "engine/training/trainer.h: No such file" <<<"$out" || { echo "$out"; fail "formats/ -> training/ failed for another reason"; }
out=$(probe tune_includes_serve) && fail "tune/ compiled with an include of serve/"
grep -q "engine/serve/model_registry.h: No such file" <<<"$out" || { echo "$out"; fail "tune/ -> serve/ failed for another reason"; }
echo "engine subsystems: an upward include fails the build"

if [ "$ABOVE" = 1 ]; then
  out=$(probe above_ok) || { echo "$out"; fail "the workspace cannot use torch-free engine headers"; }
  out=$(probe above_includes_torch) && fail "an engine header exposing LibTorch compiled above the engine"
  grep -q "included above the engine" <<<"$out" || { echo "$out"; fail "the torch guard failed for another reason"; }
  out=$(probe above_includes_opencv) && fail "OpenCV compiled above the engine"
  grep -q "<opencv2/core.hpp> included above the engine" <<<"$out" || { echo "$out"; fail "the OpenCV guard failed for another reason"; }
  echo "above the engine: LibTorch and OpenCV headers fail the build"
fi
echo "layering guards: ok"
