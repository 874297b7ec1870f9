#!/usr/bin/env bash
# Refreshes translations/*.ts from the tr() strings in the sources (app, workspace, widgets).
# New strings arrive marked unfinished; translate them (Qt Linguist or by hand) before
# committing: the translations_complete test fails otherwise.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LUPDATE=$(command -v lupdate6 || true)
[ -n "$LUPDATE" ] || LUPDATE=/usr/lib/qt6/bin/lupdate
cd "$ROOT"
"$LUPDATE" -locations none -no-obsolete app core/workspace widgets -ts translations/*.ts
