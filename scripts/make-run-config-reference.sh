#!/usr/bin/env bash
# Writes docs/run-config.md from `lathe-cli config schema`, so the run-config reference is made
# from the same field table that parses configs and never drifts from it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLI="${1:-${LATHE_BUILD_DIR:-$ROOT/build}/app/lathe-cli}"
OUT="$ROOT/docs/run-config.md"
TMP="$(mktemp "$OUT.XXXXXX")"
trap 'rm -f "$TMP"' EXIT
"$CLI" config schema > "$TMP"
# The example in the reference must itself be a valid config.
EXAMPLE="$(mktemp)"
trap 'rm -f "$TMP" "$EXAMPLE"' EXIT
awk '/^```json$/ {on=1; next} /^```$/ && on {exit} on' "$TMP" > "$EXAMPLE"
"$CLI" config check "$EXAMPLE" > /dev/null
chmod 644 "$TMP"
mv "$TMP" "$OUT"
trap - EXIT
rm -f "$EXAMPLE"
echo "$OUT"
