# Small assertion helpers for the integration scripts (sourced).
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" == "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_contains() { grep -qF -- "$2" <<<"$1" || fail "$3: '$2' not in: $1"; }
# The project venv's Python (scripts/install-python.sh), passed in by ctest.
PY="${LATHE_PYTHON:?LATHE_PYTHON must name the project venv python (scripts/install-python.sh)}"
json_get() { "$PY" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
