# Sourced by the export tests against independent runtimes (export_onnxruntime.sh,
# export_litert.sh) after `set -euo pipefail`, with TEST set to the script's name. Sets ROOT, PY
# (the project venv's python), TMP (removed on exit) and fail; copies 8 real photos (Debian's
# opencv-doc) into $TMP/photos; writes torchvision weights that matter for each of ARCHES (one per
# CNN family) as $TMP/<arch>.weights.safetensors.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PY="${LATHE_PYTHON:?LATHE_PYTHON must name the project venv python (scripts/install-python.sh)}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "$TEST: $*" >&2; exit 1; }

mkdir "$TMP/photos"
for f in baboon fruits HappyFish butterfly apple building home aero1; do
  cp "/usr/share/doc/opencv-doc/examples/data/$f.jpg" "$TMP/photos/"
done

ARCHES="resnet18 mobilenet_v3_small efficientnet_b0 convnext_tiny"
"$PY" "$ROOT/tests/parity/make_test_weights.py" "$TMP" $ARCHES
