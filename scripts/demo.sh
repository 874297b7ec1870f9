#!/usr/bin/env bash
# Quick start: builds Lathe if needed and opens the workbench on the Fashion-MNIST demo
# project. With --headless, runs the same demo in lathe-cli and prints what it did.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${LATHE_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/build.sh"
if [ "${1:-}" = "--headless" ]; then
  shift
  exec "$BUILD/app/lathe-cli" demo "$@"
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "demo: no display found; run 'scripts/demo.sh --headless' to run the demo in lathe-cli" >&2
  exit 2
fi
exec "$BUILD/app/lathe" --demo "$@"
