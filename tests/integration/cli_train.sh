#!/usr/bin/env bash
# lathe-cli train end to end on Fashion-MNIST demo shards: every schedule, the CPU precisions
# (fp16 refused), every freezing policy, a run killed with kill -9 and resumed, the run folder's
# files (checkpoints read by Hugging Face's safetensors), and the run in TensorBoard itself.
# Usage: cli_train.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$CLI" demo-data "$WORK/images" --per-class 8 --test-per-class 2 >/dev/null
"$CLI" convert "$WORK/images" "$WORK/shards" >/dev/null
[ -f "$WORK/shards/dataset.json" ] || fail "no shards"

# Tiny runs: mobilenet_v3_small (small checkpoints) on 32x32 grey images, 80 training images,
# batch 16, no augmentation; checkpoints at the end only.
ARCH=mobilenet_v3_small
BASE=(--data "$WORK/shards" --image-size 32 --batch 16 --seed 1
      --set model.in_channels=1 --set data.val_split=test --set 'data.augment=[]' --set data.workers=1
      --set feature_cache.mode=off --set checkpoints.every_epochs=0)

run_ok() { # name, extra args...
    local name=$1; shift
    "$CLI" train --out "$WORK/runs/$name" --arch "$ARCH" --epochs "${EPOCHS:-2}" "${BASE[@]}" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
        fail "train $name: $(tail -3 "$WORK/$name.err")"
    grep -q '"type":"finished"' "$WORK/runs/$name/metrics.jsonl" || fail "$name: no finished event"
}

for schedule in constant step multi_step exponential cosine cosine_restarts one_cycle plateau; do
    extra=()
    [ "$schedule" == multi_step ] && extra=(--set "schedule.milestones=[1]")
    [ "$schedule" == step ] && extra=(--set schedule.step_size=1)
    [ "$schedule" == cosine_restarts ] && extra=(--set schedule.restart_epochs=1)
    run_ok "schedule-$schedule" --schedule "$schedule" "${extra[@]}"
done
echo "schedules ok"

EPOCHS=1 run_ok precision-fp32 --precision fp32
EPOCHS=1 run_ok precision-bf16 --precision bf16
if "$CLI" train --out "$WORK/runs/fp16" --arch "$ARCH" "${BASE[@]}" --precision fp16 >/dev/null 2>"$WORK/fp16.err"; then
    fail "fp16 on CPU was accepted"
fi
expect_contains "$(cat "$WORK/fp16.err")" "precision" "fp16 refusal names the field"
echo "precisions ok"

EPOCHS=1 run_ok freeze-train_all --freeze train_all
EPOCHS=1 run_ok freeze-head_only --freeze head_only
EPOCHS=1 run_ok freeze-up_to_stage --freeze up_to_stage --set model.freeze.frozen_stages=2
ARCH=resnet18 run_ok freeze-cached --freeze head_only --set feature_cache.mode=auto
grep -q '"feature_cache"' "$WORK/runs/freeze-cached/metrics.jsonl" || fail "feature cache not reported"
echo "freezing ok"

# The run folder.
R="$WORK/runs/schedule-cosine"
for f in config.json metrics.jsonl log.txt checkpoints/last.json checkpoints/last.safetensors; do
    [ -e "$R/$f" ] || fail "run folder lacks $f"
done
ls "$R"/events.out.tfevents.* >/dev/null 2>&1 || fail "no TensorBoard event file"
# --json: events as JSON lines on stdout, then the summary.
"$CLI" --json train --out "$WORK/runs/json" --arch "$ARCH" "${BASE[@]}" --epochs 1 >"$WORK/json.out" 2>/dev/null
tail -1 "$WORK/json.out" | json_get 'd["type"], d["status"]' | grep "summary finished" >/dev/null || fail "--json summary"
grep -q '"type":"epoch"' "$WORK/json.out" || fail "--json epoch events"

# TensorBoard itself: the run folder in its EventAccumulator, then served by `tensorboard` on
# 127.0.0.1 and read over its HTTP data API; tags, steps and values as metrics.jsonl has them.
"$PY" "$HERE/../parity/tensorboard_read.py" check "$R" > "$WORK/tb.json" 2>"$WORK/tb.err" ||
    fail "TensorBoard's EventAccumulator disagrees: $(tail -5 "$WORK/tb.err")"
json_get 'd["tags"]' < "$WORK/tb.json" | grep "epoch/val/top1" >/dev/null || fail "TensorBoard lacks epoch/val/top1: $(cat "$WORK/tb.json")"
timeout 150 "$PY" "$HERE/../parity/tensorboard_read.py" serve "$R" > "$WORK/tbserve.json" 2>"$WORK/tbserve.err" ||
    fail "tensorboard's server disagrees: $(tail -5 "$WORK/tbserve.err")"
echo "tensorboard ok: $(cat "$WORK/tb.json")"

# The checkpoints load in Hugging Face's safetensors: the model and its optimizer state.
"$PY" - "$R/checkpoints" <<'PYEOF' || fail "safetensors cannot load the checkpoints"
import json, sys
import torch
from safetensors import safe_open
from safetensors.torch import load_file
folder = sys.argv[1]
model = load_file(f"{folder}/last.safetensors")
state = load_file(f"{folder}/last.state.safetensors")
assert len(model) > 50 and len(state) > 0, (len(model), len(state))
assert all(torch.isfinite(t.float()).all() for t in model.values()), "non-finite weights"
assert "features.0.0.weight" in model and model["features.0.0.weight"].shape[1] == 1, "the grey stem"
with safe_open(f"{folder}/last.safetensors", "pt") as f:
    print("checkpoint metadata:", json.dumps(f.metadata()))
PYEOF

# kill -9 mid-training, then --resume finishes the run.
K="$WORK/runs/killed"
"$CLI" train --out "$K" --arch "$ARCH" "${BASE[@]}" --epochs 30 --set checkpoints.every_steps=2 >/dev/null 2>"$WORK/killed.err" &
PID=$!
for _ in $(seq 1 600); do
    ls "$K"/checkpoints/step-*.json >/dev/null 2>&1 && break
    sleep 0.2
done
kill -9 $PID 2>/dev/null || fail "the run ended before it could be killed"
wait $PID 2>/dev/null || true
grep -q '"type":"finished"' "$K/metrics.jsonl" && fail "killed run says finished"
"$CLI" train --out "$K" --resume --epochs 1 >/dev/null 2>"$WORK/resume.err" || fail "resume: $(tail -3 "$WORK/resume.err")"
grep -q '"type":"resumed"' "$K/metrics.jsonl" || fail "no resumed event"
grep -q '"type":"finished"' "$K/metrics.jsonl" || fail "resumed run did not finish"
echo "kill -9 + resume ok"

# SIGINT: cancel, checkpoint, exit 130.
I="$WORK/runs/interrupted"
"$CLI" train --out "$I" --arch "$ARCH" "${BASE[@]}" --epochs 30 >/dev/null 2>"$WORK/int.err" &
PID=$!
for _ in $(seq 1 600); do
    grep -q '"type":"step"' "$I/metrics.jsonl" 2>/dev/null && break
    sleep 0.2
done
kill -INT $PID
set +e
wait $PID
rc=$?
set -e
expect_eq "$rc" "130" "exit status after SIGINT"
grep -q '"reason":"cancel"' "$I/metrics.jsonl" || fail "no checkpoint on cancel"
echo "sigint ok"
# The OpenMP wait the program starts itself with (app/common/passive_openmp_waits.cpp): passive
# with a short spin unless the environment says otherwise (ctest's sets OMP_WAIT_POLICY).
omp_wait() { # env args... -> "policy spin" from bench train's JSON
    env "$@" "$CLI" bench train --arch mobilenet_v3_small --image-size 32 --batch 2 --steps 1 |
        "$PY" -c 'import json, sys; d = json.loads(sys.stdin.read().strip().splitlines()[-1]); print(d["omp_wait_policy"], d["omp_spin_count"] or "-")'
}
expect_eq "$(omp_wait -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT)" "PASSIVE 3000" "default OpenMP wait"
expect_eq "$(omp_wait -u OMP_WAIT_POLICY GOMP_SPINCOUNT=0)" "PASSIVE 0" "GOMP_SPINCOUNT kept"
expect_eq "$(omp_wait -u GOMP_SPINCOUNT OMP_WAIT_POLICY=ACTIVE)" "ACTIVE -" "OMP_WAIT_POLICY kept"
echo "omp waits ok"
echo "cli_train: all ok"
