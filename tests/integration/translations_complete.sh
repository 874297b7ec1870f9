#!/usr/bin/env bash
# Fails when a tr() string in the sources is missing from lathe_zh_CN.ts (a %n string from
# lathe_en.ts), is left unfinished, or when the file keeps obsolete entries. Runs lupdate on a copy.
set -euo pipefail
LUPDATE="$1"
SRC="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for ts in "$SRC"/translations/*.ts; do
  cp "$ts" "$TMP/"
  copy="$TMP/$(basename "$ts")"
  only=() # lathe_en.ts: English is the source language, only its plural forms are translated
  [ "$(basename "$ts")" = lathe_en.ts ] && only=(-pluralonly -source-language en -target-language en)
  "$LUPDATE" -silent -I "$SRC/core" -I "$SRC/widgets" -locations none -no-obsolete "${only[@]}" "$SRC/app" "$SRC/core/workspace" "$SRC/widgets" -ts "$copy"
  unfinished=$(grep -c 'type="unfinished"' "$copy" || true)
  vanished=$(grep -cE 'type="(vanished|obsolete)"' "$copy" || true)
  if [ "$unfinished" -ne 0 ] || [ "$vanished" -ne 0 ] || ! cmp -s "$ts" "$copy"; then
    echo "FAIL: $(basename "$ts"): $unfinished unfinished, $vanished obsolete; differs from lupdate's view:" >&2
    diff "$ts" "$copy" | head -40 >&2 || true
    echo "Run scripts/update-translations.sh and translate what it marks unfinished." >&2
    exit 1
  fi
  echo "$(basename "$ts"): $(grep -c '<message' "$ts") messages, all translated"
done
