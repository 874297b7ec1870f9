#!/usr/bin/env bash
# The newcomer's first run, timed as a user meets it: the demo project (lathe-cli demo, its
# default 1,000 training and 100 validation images per class), its conversion, and a training
# run with the recipe the demo chose for this machine (project/recipe.json; on a CPU-only
# machine the quick CPU recipe, core/workspace/quick_recipe.cpp). Prints one JSON document:
# seconds per part, the run's validation top-1 per epoch, and the load average before and after.
# The first-hour goal (issue: defaults that finish): val_top1 >= 0.85 with train_s + convert_s
# under 300 on 2 cores.
# Usage: bench_first_hour.sh LATHE_CLI [WORK_DIR]
set -euo pipefail
CLI=$1
WORK=${2:-$(mktemp -d)}
load() { cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g'; }
before=$(load)
t0=$(date +%s.%N)
"$CLI" demo --dir "$WORK/demo" >/dev/null
t1=$(date +%s.%N)
"$CLI" convert "$WORK/demo/fashion-mnist" "$WORK/demo/project/datasets/fashion-mnist" >/dev/null
t2=$(date +%s.%N)
"$CLI" train --config "$WORK/demo/project/recipe.json" --data "$WORK/demo/project/datasets/fashion-mnist" \
  --out "$WORK/demo/project/runs/first" >/dev/null
t3=$(date +%s.%N)
python3 - "$WORK/demo/project/runs/first/metrics.jsonl" "$t0" "$t1" "$t2" "$t3" "$before" "$(load)" <<'PY'
import json, sys
path, t0, t1, t2, t3, before, after = sys.argv[1:]
t0, t1, t2, t3 = map(float, (t0, t1, t2, t3))
epochs = [e for e in map(json.loads, open(path)) if e["type"] == "epoch"]
print(json.dumps({"demo_s": round(t1 - t0, 1), "convert_s": round(t2 - t1, 1), "train_s": round(t3 - t2, 1),
                  "val_top1": [round(e["val_top1"], 4) for e in epochs],
                  "goal_met": epochs[-1]["val_top1"] >= 0.85 and (t3 - t1) < 300,
                  "load_before": [float(x) for x in before.split(", ")],
                  "load_after": [float(x) for x in after.split(", ")]}, indent=2))
PY
