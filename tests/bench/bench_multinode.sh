#!/usr/bin/env bash
# The communication share of a training step across two network hosts: two namespaces joined by
# a veth pair (tests/integration/netns_hosts.sh), one lathe-cli train per namespace, one CPU rank
# each, Gloo over the veth. For ResNet-18 and ResNet-50 it reports the step time, the share of it
# spent in the gradient all-reduce (the step events' comm_fraction, median over the steps after
# the first), the all-reduce milliseconds per step and the buckets (the run's log line). Both
# ranks share this machine's cores, so the figures say what the exchange costs, not how training
# scales. Needs root (network namespaces).
# Usage: bench_multinode.sh LATHE_CLI [IMAGE_SIZE=64] [BATCH=16] [PER_CLASS=48]
set -euo pipefail
CLI=$1
SIZE=${2:-64}
BATCH=${3:-16}
PER_CLASS=${4:-48}
HERE=$(cd "$(dirname "$0")" && pwd)
PY="${LATHE_PYTHON:-$HERE/../../.venv/bin/python}"
source "$HERE/../integration/netns_hosts.sh"
WORK=$(mktemp -d)
trap 'hosts_down; rm -rf "$WORK"' EXIT
hosts_up || { echo '{"error": "cannot create network namespaces and their link (needs root)"}'; exit 1; }
load() { cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g'; }
LOAD_BEFORE=$(load)

"$CLI" demo-data "$WORK/images" --per-class "$PER_CLASS" --test-per-class 1 >/dev/null
"$CLI" convert "$WORK/images" "$WORK/shards" >/dev/null
rows=()
port=29600
for arch in resnet18 resnet50; do
    port=$((port + 1))
    common=(train --data "$WORK/shards" --arch "$arch" --image-size "$SIZE" --batch "$BATCH" --epochs 1
            --nnodes 2 --master "$ADDR0:$port" --set data.val_split= --set checkpoints.best_metric=train_loss --set feature_cache.mode=off
            --set checkpoints.every_epochs=0 --set data.workers=1)
    ip netns exec "$NS0" "$CLI" "${common[@]}" --node-rank 0 --out "$WORK/$arch" >/dev/null 2>"$WORK/$arch.err" &
    p0=$!
    ip netns exec "$NS1" "$CLI" "${common[@]}" --node-rank 1 --out "$WORK/$arch-1" >/dev/null 2>"$WORK/$arch-1.err" &
    p1=$!
    wait $p0 || { echo "{\"error\": \"$arch node 0: $(tail -1 "$WORK/$arch.err")\"}"; exit 1; }
    wait $p1 || { echo "{\"error\": \"$arch node 1: $(tail -1 "$WORK/$arch-1.err")\"}"; exit 1; }
    rows+=("$("$PY" - "$WORK/$arch" "$arch" "$BATCH" <<'PYEOF'
import json, statistics, sys
run, arch, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
events = [json.loads(l) for l in open(run + "/metrics.jsonl")]
steps = [e for e in events if e["type"] == "step"][1:]
buckets = next(e["message"] for e in events if e["type"] == "log" and e["message"].startswith("gradient all-reduce"))
share = statistics.median(e["comm_fraction"] for e in steps)
step_ms = statistics.median(2 * batch / e["images_per_s"] * 1000 for e in steps)
print(json.dumps({"arch": arch, "ranks": 2, "global_batch": 2 * batch, "steps_measured": len(steps),
                  "step_ms": round(step_ms, 1), "comm_fraction": round(share, 4),
                  "allreduce_ms_per_step": round(share * step_ms, 1), "buckets": buckets}))
PYEOF
)")
done
printf '{"benchmark": "multinode_comm", "hosts": "2 network namespaces, veth, Gloo", "image_size": %s, "batch_per_rank": %s,\n "load_average_before": [%s], "load_average_after": [%s],\n "command": "tests/bench/bench_multinode.sh LATHE_CLI %s %s %s",\n "rows": [%s]}\n' \
    "$SIZE" "$BATCH" "$LOAD_BEFORE" "$(load)" "$SIZE" "$BATCH" "$PER_CLASS" "$(IFS=,; echo "${rows[*]}")"
