#!/usr/bin/env bash
# Confident learning finds labels flipped on purpose: Fashion-MNIST demo images with 5% of the
# training images moved to a wrong class folder, k-fold cross-validation (lathe-cli train --folds)
# for out-of-fold predictions, then lathe-cli label-issues. The flipped images must be found near
# the top of the ranking, and the real cleanlab (PyPI), run on the same out-of-fold predictions,
# must flag the same images in the same order.
# Usage: label_issues_flips.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PER_CLASS=${PER_CLASS:-60}
FOLDS=${FOLDS:-4}
EPOCHS=${EPOCHS:-8}
"$CLI" demo-data "$WORK/images" --per-class "$PER_CLASS" --test-per-class 0 >/dev/null
# Flip every 20th image (sorted by path, so the same ones each time) into the next class.
"$PY" - "$WORK/images" "$WORK/flipped.txt" <<'PYEOF'
import os, sys
root, out = sys.argv[1], sys.argv[2]
base = os.path.join(root, "train") if os.path.isdir(os.path.join(root, "train")) else root
classes = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
files = sorted((c, f) for c in classes for f in os.listdir(os.path.join(base, c)))
flipped = []
for i, (c, f) in enumerate(files):
    if i % 20 == 7:
        to = classes[(classes.index(c) + 1) % len(classes)]
        name = "flipped_" + f
        os.rename(os.path.join(base, c, f), os.path.join(base, to, name))
        flipped.append(os.path.relpath(os.path.join(base, to, name), root))
open(out, "w").write("\n".join(flipped) + "\n")
print(len(files), len(flipped))
PYEOF
"$CLI" convert "$WORK/images" "$WORK/shards" --val 0 --test 0 >/dev/null

# mobilenet_v3_small would do; resnet18 from scratch on 28 px grey images learns these classes in
# a few epochs. Every fold trains on the other folds and predicts its own.
"$CLI" train --folds "$FOLDS" --out "$WORK/cv" --data "$WORK/shards" --arch resnet18 --image-size 28 \
    --epochs "$EPOCHS" --batch 32 --lr 0.05 --seed 3 --set model.in_channels=1 --set 'data.augment=[]' \
    --set feature_cache.mode=off --set checkpoints.every_epochs=0 >"$WORK/cv.out" 2>"$WORK/cv.err" ||
    { cat "$WORK/cv.err" >&2; fail "train --folds failed"; }
for k in $(seq 1 "$FOLDS"); do [ -f "$WORK/cv/fold-$k/config.json" ] || fail "no run fold-$k"; done
[ -f "$WORK/cv/folds.json" ] || fail "no folds.json"
expect_eq "$(json_get 'd["folds"]' <"$WORK/cv/folds.json")" "$FOLDS" "folds.json folds"
ROWS=$(wc -l <"$WORK/cv/oof_predictions.jsonl")
expect_eq "$ROWS" "$((PER_CLASS * 10))" "one out-of-fold prediction per training image"

"$CLI" --json label-issues --folds-run "$WORK/cv" >"$WORK/issues.json"
"$CLI" label-issues --folds-run "$WORK/cv" --top 5 >"$WORK/issues.txt"
[ -s "$WORK/issues.txt" ] || fail "label-issues printed nothing"

# The measurement, and the comparison with cleanlab on the same predictions.
"$PY" - "$WORK" <<'PYEOF'
import json, sys
import numpy as np
from cleanlab.filter import find_label_issues
work = sys.argv[1]
flipped = set(open(work + "/flipped.txt").read().split())
rows = [json.loads(l) for l in open(work + "/cv/oof_predictions.jsonl")]
ours = json.load(open(work + "/issues.json"))
names = [i["filename"] for i in ours["issues"]]
n = len(rows)
top = names[: n // 10]
found = len(flipped & set(top))
accuracy = np.mean([int(np.argmax(r["probs"]) == r["label"]) for r in rows])
print(f"images {n}, flipped {len(flipped)}, out-of-fold accuracy {accuracy:.3f}, "
      f"issues {len(names)}, flipped in the top 10%: {found} ({found / len(flipped):.0%})")
# Measured with the same seed: 27 of 30 (90%) at an out-of-fold accuracy of 0.68 on an AMD EPYC
# host (2026-12-04); 22 of 30 (73%) at 0.692 on an Intel Xeon host (2026-12-05), the CPU's
# kernels training the folds a little differently. The bar is the issue's: 60%.
assert found >= 0.6 * len(flipped), "confident learning found too few of the flipped labels"
labels = np.array([r["label"] for r in rows])
probs = np.array([r["probs"] for r in rows])
probs = probs / probs.sum(axis=1, keepdims=True)
ranked = find_label_issues(labels, probs, return_indices_ranked_by="self_confidence")
theirs = [rows[i]["filename"] for i in ranked]
union, common = set(theirs) | set(names), set(theirs) & set(names)
print(f"cleanlab {len(theirs)} issues, Lathe {len(names)}, in common {len(common)} of {len(union)}")
# Where calibrating the confident joint meets equal values, cleanlab's pick follows numpy's
# unstable sort: the sets may differ by a few borderline images, never by more than 5%.
assert len(common) >= 0.95 * len(union), f"issue sets differ: {sorted(union - common)[:10]}"
assert [f for f in theirs if f in common] == [f for f in names if f in common], "cleanlab ranks the issues in another order"
# Given Lathe's confident joint, cleanlab must flag exactly the same images in the same order.
joint = np.array(ours["confident_joint"])
same = find_label_issues(labels, probs, confident_joint=joint, return_indices_ranked_by="self_confidence")
assert [rows[i]["filename"] for i in same] == names, "with the same confident joint cleanlab flags other images"
print("with Lathe's confident joint, cleanlab flags the same images in the same order")
PYEOF
