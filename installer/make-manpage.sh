#!/usr/bin/env bash
# Writes lathe-cli's man page from its own --help (help2man), with a section per verb.
# Usage: make-manpage.sh LATHE_CLI OUT.1
set -euo pipefail
CLI="$1"
OUT="$2"
INCLUDE=$(mktemp)
trap 'rm -f "$INCLUDE"' EXIT
{
  echo "[VERBS]"
  "$CLI" --help | awk '/^Subcommands:/ {on=1; next} on && NF {print $1}' | while read -r verb; do
    echo ".SS $verb"
    echo ".nf"
    "$CLI" "$verb" --help 2>&1 | sed 's/\\/\\\\/g; s/^\./\\\&./'
    echo ".fi"
  done
  echo "[SEE ALSO]"
  echo "lathe(1) is the desktop workbench; the README and docs/ of the source tree describe the formats."
} > "$INCLUDE"
help2man --no-info --no-discard-stderr --name="train image classifiers from the command line" \
  --include="$INCLUDE" --output="$OUT" "$CLI"
