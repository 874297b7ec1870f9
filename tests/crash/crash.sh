#!/usr/bin/env bash
# ctest's entry to crash_kill.py with the project venv's python (LATHE_PYTHON).
set -euo pipefail
exec "${LATHE_PYTHON:?LATHE_PYTHON must name the project venv python}" "$(dirname "$0")/crash_kill.py" "$@"
