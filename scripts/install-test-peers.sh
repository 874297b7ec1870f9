#!/usr/bin/env bash
# Installs the npm packages the tests compare Lathe with (tests/peers/package.json, pinned by
# its package-lock.json) into BUILD/peers. Quick when they are already there.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${1:-${LATHE_BUILD_DIR:-$ROOT/build}/peers}"
mkdir -p "$DEST"
if [ -d "$DEST/node_modules/tfrecord" ] && cmp -s "$ROOT/tests/peers/package-lock.json" "$DEST/package-lock.json"; then
  exit 0
fi
command -v npm >/dev/null || { echo "install-test-peers: npm not found (install nodejs and npm)" >&2; exit 1; }
cp "$ROOT/tests/peers/package.json" "$ROOT/tests/peers/package-lock.json" "$DEST/"
# onnxruntime-node: its CPU runtime ships inside the package; skip the optional GPU download.
(cd "$DEST" && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error)
