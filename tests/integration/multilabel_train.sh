#!/usr/bin/env bash
# Multi-label from a CSV to predictions: Fashion-MNIST demo images labelled with their class and
# a coarse group (a labels file), converted, trained (a sigmoid head, binary cross-entropy),
# validated with mAP and F1-tuned thresholds kept in the checkpoint, evaluated (mAP checked
# against scikit-learn), predicted as label sets from the checkpoint, and exported to ONNX and
# TFLite whose label sets are the checkpoint's. Then k-fold cross-validation and label-issues on
# the multi-label run.
# Usage: multilabel_train.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$CLI" demo-data "$WORK/images" --per-class 20 --test-per-class 6 >/dev/null
"$PY" - "$WORK/images" "$WORK/labels.csv" <<'PYEOF'
import os, sys
root, out = sys.argv[1:]
group = {"Sandal": "feet", "Sneaker": "feet", "Ankle_boot": "feet", "Trouser": "legs", "Bag": "carried"}
rows = ["path,labels"]
for split in ("train", "test"):
    for cls in sorted(os.listdir(os.path.join(root, split))):
        for f in sorted(os.listdir(os.path.join(root, split, cls))):
            rows.append(f"{split}/{cls}/{f},{cls};{group.get(cls, 'body')}")
open(out, "w").write("\n".join(rows) + "\n")
PYEOF
"$CLI" convert "$WORK/images" "$WORK/shards" --labels "$WORK/labels.csv" >/dev/null
expect_eq "$(json_get 'd["task"]' <"$WORK/shards/dataset.json")" "multi_label" "dataset task"
K=$(json_get 'len(d["classes"])' <"$WORK/shards/dataset.json")
expect_eq "$K" "14" "classes and groups"

BASE=(--data "$WORK/shards" --arch resnet18 --image-size 28 --batch 20 --lr 0.05 --seed 2
      --set model.in_channels=1 --set 'data.augment=[]' --set data.val_split=test --set data.workers=1
      --set feature_cache.mode=off --set checkpoints.best_metric=val_map)
"$CLI" train --out "$WORK/run" --epochs 4 "${BASE[@]}" >/dev/null 2>"$WORK/train.err" ||
    { cat "$WORK/train.err" >&2; fail "multi-label training failed"; }
grep -q "multi-label: binary cross-entropy per label" "$WORK/run/metrics.jsonl" || fail "the run does not say its loss"
"$PY" - "$WORK/run/metrics.jsonl" "$K" <<'PYEOF'
import json, sys
epochs = [e for e in map(json.loads, open(sys.argv[1])) if e["type"] == "epoch"]
last, k = epochs[-1], int(sys.argv[2])
assert len(last["thresholds"]) == k and len(last["per_label_ap"]) == k, last
assert 0 < last["val_map"] <= 1 and 0 < last["val_f1"] <= 1, last
assert epochs[-1]["train_loss"] < epochs[0]["train_loss"], "the BCE did not go down"
print(f"val_map {last['val_map']:.3f} val_f1 {last['val_f1']:.3f} after {len(epochs)} epochs")
PYEOF

# eval: the mAP is scikit-learn's over the same scores.
"$CLI" --json eval --run "$WORK/run" --split test --top-k "$K" --predictions "$WORK/pred.jsonl" >"$WORK/eval.json" 2>/dev/null
"$PY" - "$WORK/eval.json" "$WORK/pred.jsonl" <<'PYEOF'
import json, sys
import numpy as np
from sklearn.metrics import average_precision_score
m = json.load(open(sys.argv[1]))
assert m["task"] == "multi_label", m.get("task")
rows = [json.loads(l) for l in open(sys.argv[2])]
k = len(m["classes"])
scores = np.zeros((len(rows), k)); truth = np.zeros((len(rows), k), dtype=int)
for i, r in enumerate(rows):
    scores[i, r["top_classes"]] = r["top_probs"]
    truth[i, r["labels"]] = 1
has = truth.sum(0) > 0
ref = average_precision_score(truth[:, has], scores[:, has], average="macro")
assert abs(ref - m["map"]) < 1e-6, (ref, m["map"])
micro = average_precision_score(truth, scores, average="micro")
assert abs(micro - m["map_micro"]) < 1e-6, (micro, m["map_micro"])
print(f"eval mAP {m['map']:.4f} = scikit-learn's {ref:.4f}; micro {micro:.4f}")
PYEOF

# predict: label sets from the checkpoint, and the same from the exported ONNX and TFLite files.
# Training images: the thresholds are scores of the validation (test) images themselves, so a test
# image sits exactly on its threshold and the runtimes' last-bit differences could flip its label.
IMAGES=("$WORK"/images/train/Sandal/*.png)
"$CLI" --json predict --run "$WORK/run" "${IMAGES[@]:0:4}" >"$WORK/ckpt.json"
"$CLI" export --run "$WORK/run" --out "$WORK/export" --format onnx --format tflite --softmax >"$WORK/export.out" 2>&1 ||
    { cat "$WORK/export.out" >&2; fail "export of a multi-label run"; }
for model in model.onnx model.tflite; do
    "$CLI" --json predict --model "$WORK/export/$model" "${IMAGES[@]:0:4}" >"$WORK/$model.json"
    "$PY" - "$WORK/ckpt.json" "$WORK/$model.json" "$model" <<'PYEOF'
import json, sys
ckpt, exported = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
a = [sorted(p["labels"]) for p in ckpt]
b = [sorted(p["labels"]) for p in exported["predictions"]]
assert a == b, (sys.argv[3], a, b)
print(f"{sys.argv[3]}: the checkpoint's label sets {a[0]}...")
PYEOF
done
expect_eq "$(json_get 'd["source"]["task"]' <"$WORK/export/report.json")" "multi_label" "export report task"

# Two folds and label-issues on the multi-label run's out-of-fold scores.
"$CLI" train --folds 2 --out "$WORK/cv" --epochs 2 "${BASE[@]}" >"$WORK/cv.out" 2>"$WORK/cv.err" ||
    { cat "$WORK/cv.err" >&2; fail "train --folds on a multi-label dataset"; }
expect_eq "$(json_get 'd["task"] + " " + d["metric"]' <"$WORK/cv/folds.json")" "multi_label val_map" "folds.json"
"$CLI" --json label-issues --folds-run "$WORK/cv" --top 0 >"$WORK/issues.json"
json_get 'd["examples"]' <"$WORK/issues.json" >/dev/null
