#!/usr/bin/env bash
# The project's one Python environment: ROOT/.venv, filled from python/requirements.txt (exact
# versions). It carries the PyPI torch wheel whose LibTorch (with CUDA) the default build links,
# and the tools the tests compare Lathe with (tf.data, TensorBoard, ONNX Runtime, DALI,
# safetensors, torchvision). Then python/requirements-nodeps.txt, installed without
# dependencies: packages whose declared dependencies requirements.txt already covers under
# another name (tensorflow-serving-api wants `tensorflow`; the venv has tensorflow_cpu), so pip
# would otherwise pull a second copy. Nothing goes into the system Python. Idempotent: when the
# venv matches both files it only compares their stamps and exits.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${LATHE_VENV:-$ROOT/.venv}"
REQ="$ROOT/python/requirements.txt"
STAMP="$VENV/.lathe-requirements"
REQ_NODEPS="$ROOT/python/requirements-nodeps.txt"
STAMP_NODEPS="$VENV/.lathe-requirements-nodeps"
if [ -x "$VENV/bin/python" ] && cmp -s "$REQ" "$STAMP" && cmp -s "$REQ_NODEPS" "$STAMP_NODEPS"; then
  exit 0
fi
# The Python on PATH (3.11 here); Debian's own needs python3-venv for this.
PY="$(command -v python3)"
PIP=("$VENV/bin/python" -m pip install --quiet --disable-pip-version-check)
start=$(date +%s)
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-python: creating $VENV with $("$PY" --version 2>&1)" >&2
  "$PY" -m venv "$VENV"
fi
if ! cmp -s "$REQ" "$STAMP"; then
  echo "install-python: installing python/requirements.txt into $VENV" >&2
  "${PIP[@]}" -r "$REQ"
  cp "$REQ" "$STAMP"
  rm -f "$STAMP_NODEPS" # the no-deps packages are checked again against what was just installed
fi
if ! cmp -s "$REQ_NODEPS" "$STAMP_NODEPS"; then
  echo "install-python: installing python/requirements-nodeps.txt into $VENV (--no-deps)" >&2
  "${PIP[@]}" --no-deps -r "$REQ_NODEPS"
  # They must import with requirements.txt's packages standing in for their declared ones.
  "$VENV/bin/python" -c "from tensorflow_serving.apis import (predict_pb2, classification_pb2,
    get_model_status_pb2, get_model_metadata_pb2)" ||
    { echo "install-python: tensorflow_serving.apis does not import in $VENV" >&2; exit 1; }
  cp "$REQ_NODEPS" "$STAMP_NODEPS"
fi
echo "install-python: done in $(( $(date +%s) - start )) s, $(du -sh "$VENV" | cut -f1) on disk" >&2
