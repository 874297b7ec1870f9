#!/usr/bin/env bash
# A run trained by one LibTorch build loads in the other: lathe-cli of the default build
# (LibTorch 2.11) and of the Debian build (LibTorch 1.13) each train a short run, and the other
# evaluates it (the same metrics to float precision) and resumes it to its next epoch.
#   cross_build_runs.sh LATHE_CLI_2_11 LATHE_CLI_1_13
set -euo pipefail
A="$1"
B="$2"
source "$(dirname "$0")/assert.sh"
[ -x "$B" ] || fail "$B missing: scripts/build.sh all builds both trees before the tests"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
expect_contains "$("$A" info)" "LibTorch       2." "first lathe-cli is the LibTorch 2.x build"
expect_contains "$("$B" info)" "LibTorch       1.13" "second lathe-cli is the Debian LibTorch 1.13 build"

"$A" demo-data "$WORK/images" --per-class 6 --test-per-class 2 >/dev/null
"$A" convert "$WORK/images" "$WORK/shards" >/dev/null
BASE=(--data "$WORK/shards" --arch mobilenet_v3_small --image-size 32 --batch 12 --seed 3 --epochs 1
      --set model.in_channels=1 --set data.val_split=test --set 'data.augment=[]' --set data.workers=1
      --set feature_cache.mode=off)

for pair in "A B" "B A"; do
  set -- $pair
  trainer=${!1}; other=${!2}
  run="$WORK/run-$1"
  "$trainer" train --out "$run" "${BASE[@]}" >/dev/null 2>"$WORK/$1.err" || fail "$1 train: $(tail -3 "$WORK/$1.err")"
  mine=$("$trainer" --json eval --run "$run" --split test --threads 1) || fail "$1 evaluates its own run"
  theirs=$("$other" --json eval --run "$run" --split test --threads 1) || fail "$2 cannot evaluate the run of $1"
  "$PY" - "$mine" "$theirs" <<'PYEOF' || fail "$1's run evaluates differently in $2"
import json, sys
a, b = (json.loads(x) for x in sys.argv[1:])
def num(d):
    return {k: v for k, v in d.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
na, nb = num(a), num(b)
assert na.keys() == nb.keys() and na, (sorted(na), sorted(nb))
for k in na:
    assert abs(na[k] - nb[k]) <= 1e-4 * max(1.0, abs(na[k])), f"{k}: {na[k]} vs {nb[k]}"
print("same metrics:", {k: na[k] for k in sorted(na)})
PYEOF
  "$other" train --out "$run" --resume --epochs 2 >/dev/null 2>"$WORK/$2.resume.err" ||
    fail "$2 cannot resume the run of $1: $(tail -3 "$WORK/$2.resume.err")"
  grep -q '"type":"resumed"' "$run/metrics.jsonl" || fail "no resumed event"
  [ "$(grep -c '"type":"epoch"' "$run/metrics.jsonl")" -eq 2 ] || fail "the resumed run of $1 lacks its second epoch"
done
echo "cross-build runs: ok"
