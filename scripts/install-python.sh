#!/usr/bin/env bash
# The project's one Python environment: ROOT/.venv, filled from python/requirements.txt (exact
# versions). It carries the PyPI torch wheel whose LibTorch (with CUDA) the default build links,
# and the tools the tests compare Lathe with (tf.data, TensorBoard, ONNX Runtime, DALI,
# safetensors, torchvision). Nothing goes into the system Python. Idempotent: when the venv
# matches the requirements it only compares a stamp and exits.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${LATHE_VENV:-$ROOT/.venv}"
REQ="$ROOT/python/requirements.txt"
STAMP="$VENV/.lathe-requirements"
if [ -x "$VENV/bin/python" ] && cmp -s "$REQ" "$STAMP"; then
  exit 0
fi
# The Python on PATH (3.11 here); Debian's own needs python3-venv for this.
PY="$(command -v python3)"
start=$(date +%s)
if [ ! -x "$VENV/bin/python" ]; then
  echo "install-python: creating $VENV with $("$PY" --version 2>&1)" >&2
  "$PY" -m venv "$VENV"
fi
echo "install-python: installing python/requirements.txt into $VENV" >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQ"
cp "$REQ" "$STAMP"
echo "install-python: done in $(( $(date +%s) - start )) s, $(du -sh "$VENV" | cut -f1) on disk" >&2
