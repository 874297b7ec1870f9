#!/usr/bin/env bash
# lathe-cli train across real network hosts: two network namespaces joined by a veth pair, each
# with its own address and its own copy of the shards, one lathe-cli per namespace.
#   - the two-node run equals a one-process run with the same global batch; every training record
#     is taken exactly once per epoch across the nodes; only rank 0's node writes a run folder;
#   - the same run launched by torchrun in each namespace, with no Lathe flag about nodes;
#   - refusals: a flag that contradicts the launcher's environment; shards that differ;
#   - kill -9 of one node mid-epoch, and a node whose link goes down: the other exits non-zero
#     within the timeout naming the lost rank; --resume on both nodes then finishes and equals
#     the uninterrupted run; the killed run also resumes on one process (another world size).
# Every loop and wait is bounded; the namespaces are removed on any exit. Exit 77 (skipped)
# where namespaces cannot be made (not root, no CAP_NET_ADMIN).
# Usage: cli_multinode.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
TORCHRUN="$(dirname "$PY")/torchrun"
source "$HERE/netns_hosts.sh"
WORK=$(mktemp -d)
TIMEOUT=15 # distributed.timeout_seconds of these runs
trap 'hosts_down; rm -rf "$WORK"' EXIT
up=0
hosts_up || up=$?
if [ $up == 1 ]; then
    echo "skipped: cannot create network namespaces here (needs root / CAP_NET_ADMIN)"
    exit 77
fi
[ $up == 0 ] || fail "the namespaces' link could not be set up"

# The same shards on each "machine", at different paths.
"$CLI" demo-data "$WORK/images" --per-class 16 --test-per-class 2 >/dev/null
"$CLI" convert "$WORK/images" "$WORK/node0/shards" >/dev/null
cp -r "$WORK/node0/shards" "$WORK/node1-shards"

# A run whose arithmetic does not depend on how the global batch is split: no augmentation,
# BatchNorm statistics frozen, no dropout, no momentum.
BASE=(--arch mobilenet_v3_small --image-size 32 --seed 3 --lr 0.005 --schedule constant
      --set model.in_channels=1 --set model.head.dropout=0 --set model.freeze.freeze_batch_norm=true
      --set optimizer.momentum=0 --set optimizer.weight_decay=0 --set data.val_split=
      --set 'data.augment=[]' --set data.workers=1 --set feature_cache.mode=off
      --set checkpoints.best_metric=train_loss --set distributed.timeout_seconds=$TIMEOUT)

# wait_exit PID SECONDS: the process's exit status in RC; fails (after killing it) past SECONDS.
wait_exit() {
    local pid=$1 limit=$2 waited=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ $waited -ge $((limit * 10)) ]; then
            kill -9 "$pid" 2>/dev/null || true
            fail "process $pid still running after $limit s"
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    RC=0
    wait "$pid" || RC=$?
}
# node N PORT ARGS...: lathe-cli train on node N in the background (PID in NODE_PID).
node() {
    local n=$1 port=$2; shift 2
    local ns=$NS0 data="$WORK/node0/shards"
    [ "$n" == 1 ] && ns=$NS1 && data="$WORK/node1-shards"
    ip netns exec $ns "$CLI" train --data "$data" --nnodes 2 --node-rank "$n" --master $ADDR0:"$port" "$@" \
        >"$WORK/node$n.out" 2>"$WORK/node$n.err" &
    NODE_PID=$!
}
last_line() { tail -2 "$1" | tr '\n' ' '; }

# ---- one process, the reference: the same global batch (16) on one rank -------------------------
"$CLI" train --out "$WORK/ref-one-rank" --data "$WORK/node0/shards" "${BASE[@]}" --epochs 2 --batch 16 \
    >/dev/null 2>"$WORK/ref.err" || fail "reference run: $(last_line "$WORK/ref.err")"

# ---- two nodes --------------------------------------------------------------------------------
mkdir -p "$WORK/records"
node 0 29510 --out "$WORK/node0/run" "${BASE[@]}" --epochs 2 --batch 8 --record-log "$WORK/records"
P0=$NODE_PID
node 1 29510 --out "$WORK/node1/run" "${BASE[@]}" --epochs 2 --batch 8 --record-log "$WORK/records"
P1=$NODE_PID
wait_exit $P0 300
rc0=$RC
wait_exit $P1 60
rc1=$RC
[ "$rc0" == 0 ] || fail "node 0 exited $rc0: $(last_line "$WORK/node0.err")"
[ "$rc1" == 0 ] || fail "node 1 exited $rc1: $(last_line "$WORK/node1.err")"
grep -q '"type":"finished"' "$WORK/node0/run/metrics.jsonl" || fail "node 0's run did not finish"
ls "$WORK/node0/run"/events.out.tfevents.* >/dev/null 2>&1 || fail "no TensorBoard file on rank 0's node"
[ ! -e "$WORK/node1/run" ] || fail "node 1 wrote a run folder: $(ls -R "$WORK/node1/run" | head -5)"
grep -q "distributed: node 1 of 2" "$WORK/node1.err" || fail "node 1 did not say where it stands: $(head -3 "$WORK/node1.err")"
"$PY" "$HERE/multinode_check.py" same "$WORK/node0/run/checkpoints/last.safetensors" \
    "$WORK/ref-one-rank/checkpoints/last.safetensors" 2e-5 1e-4 || fail "two nodes differ from one process"
"$PY" "$HERE/multinode_check.py" records "$WORK/records" "$WORK/node0/shards" 16 2 || fail "record split"
echo "two nodes ok"

# ---- torchrun in each namespace, no Lathe flag about nodes ----------------------------------------
for n in 0 1; do
    ns=$NS0; data="$WORK/node0/shards"
    [ $n == 1 ] && ns=$NS1 && data="$WORK/node1-shards"
    ip netns exec $ns "$TORCHRUN" --nnodes 2 --nproc-per-node 1 --node-rank $n --master-addr $ADDR0 --master-port 29520 \
        --no-python "$CLI" train --data "$data" --out "$WORK/torchrun$n" "${BASE[@]}" --epochs 2 --batch 8 \
        >"$WORK/torchrun$n.out" 2>"$WORK/torchrun$n.err" &
    eval T$n=\$!
done
wait_exit $T0 300
rc0=$RC
wait_exit $T1 60
rc1=$RC
[ "$rc0" == 0 ] || fail "torchrun node 0 exited $rc0: $(last_line "$WORK/torchrun0.err")"
[ "$rc1" == 0 ] || fail "torchrun node 1 exited $rc1: $(last_line "$WORK/torchrun1.err")"
grep -q "(torchrun)" "$WORK/torchrun1.err" || fail "node 1 did not read torchrun's environment"
[ ! -e "$WORK/torchrun1" ] || fail "torchrun's node 1 wrote a run folder"
"$PY" "$HERE/multinode_check.py" same "$WORK/torchrun0/checkpoints/last.safetensors" \
    "$WORK/ref-one-rank/checkpoints/last.safetensors" 2e-5 1e-4 || fail "torchrun's run differs from one process"
# One machine, one process per device as torchrun --nproc-per-node starts them (each takes "cpu").
"$TORCHRUN" --standalone --nproc-per-node 2 --no-python "$CLI" train --data "$WORK/node0/shards" \
    --out "$WORK/torchrun-local" "${BASE[@]}" --epochs 2 --batch 8 >/dev/null 2>"$WORK/torchrun-local.err" ||
    fail "torchrun --nproc-per-node 2: $(last_line "$WORK/torchrun-local.err")"
grep -q "process 1 of 2 (torchrun)" "$WORK/torchrun-local.err" || fail "the second process did not say where it stands"
"$PY" "$HERE/multinode_check.py" same "$WORK/torchrun-local/checkpoints/last.safetensors" \
    "$WORK/ref-one-rank/checkpoints/last.safetensors" 2e-5 1e-4 || fail "torchrun's local processes differ from one process"
echo "torchrun ok"

# ---- refusals -----------------------------------------------------------------------------------
if RANK=0 WORLD_SIZE=2 MASTER_ADDR=$ADDR0 MASTER_PORT=29530 "$CLI" train --data "$WORK/node0/shards" \
    --out "$WORK/conflict" "${BASE[@]}" --nnodes 3 >/dev/null 2>"$WORK/conflict.err"; then
    fail "a flag contradicting the launcher was accepted"
fi
expect_contains "$(cat "$WORK/conflict.err")" "distributed.nnodes is 3" "conflict names the flag"
expect_contains "$(cat "$WORK/conflict.err")" "2 machines" "conflict names the launcher's value"

"$CLI" convert "$WORK/images" "$WORK/other-shards" --max-side 20 --quality 50 >/dev/null # re-encoded: other bytes
node 0 29540 --out "$WORK/mismatch0" "${BASE[@]}" --epochs 1 --batch 8
P0=$NODE_PID
ip netns exec $NS1 "$CLI" train --data "$WORK/other-shards" --nnodes 2 --node-rank 1 --master $ADDR0:29540 \
    --out "$WORK/mismatch1" "${BASE[@]}" --epochs 1 --batch 8 >/dev/null 2>"$WORK/node1.err" &
P1=$!
wait_exit $P0 $((TIMEOUT + 30))
rc0=$RC
wait_exit $P1 $((TIMEOUT + 30))
rc1=$RC
[ "$rc0" != 0 ] && [ "$rc1" != 0 ] || fail "different shards were accepted ($rc0, $rc1)"
expect_contains "$(cat "$WORK/node1.err")" "differs from rank 0's" "node 1 names the shard"
expect_contains "$(cat "$WORK/node0.err")" "refused to join" "node 0 says why"
[ ! -e "$WORK/mismatch0/checkpoints" ] || fail "a refused run trained"
echo "refusals ok"

# ---- failures: the uninterrupted reference, then kill -9 and a cut link ---------------------------
LONG=(--epochs 4 --batch 8 --set checkpoints.every_steps=3 --set checkpoints.keep=50)
"$CLI" train --out "$WORK/ref-long" --data "$WORK/node0/shards" --devices cpu,cpu "${BASE[@]}" "${LONG[@]}" \
    >/dev/null 2>"$WORK/ref.err" || fail "long reference run: $(last_line "$WORK/ref.err")"

# wait_checkpoint RUN PID: until RUN has a checkpoint past step 6 (bounded), while PID runs.
wait_checkpoint() {
    for _ in $(seq 600); do
        ls "$1"/checkpoints/step-*.json 2>/dev/null | grep -qv 'step-[0-6]\.json' && return 0
        kill -0 "$2" 2>/dev/null || fail "the run ended before it could be interrupted: $(last_line "$WORK/node0.err")"
        sleep 0.2
    done
    fail "no checkpoint after 120 s"
}
# resume_both PORT RUN: --resume on both nodes (node 1 with a run folder that does not exist there).
resume_both() {
    node 0 "$1" --out "$2" --resume
    local p0=$NODE_PID
    node 1 "$1" --out "$WORK/nowhere" --resume
    local p1=$NODE_PID
    local r0 r1
    wait_exit $p0 300
    r0=$RC
    wait_exit $p1 60
    r1=$RC
    [ "$r0" == 0 ] || fail "resume node 0 exited $r0: $(last_line "$WORK/node0.err")"
    [ "$r1" == 0 ] || fail "resume node 1 exited $r1: $(last_line "$WORK/node1.err")"
    grep -q '"type":"resumed"' "$2/metrics.jsonl" || fail "no resumed event"
    "$PY" "$HERE/multinode_check.py" same "$2/checkpoints/last.safetensors" \
        "$WORK/ref-long/checkpoints/last.safetensors" 2e-5 1e-4 || fail "the resumed run differs from the uninterrupted one"
}

# kill -9 of node 1's process mid-epoch.
node 0 29550 --out "$WORK/killed" "${BASE[@]}" "${LONG[@]}"
P0=$NODE_PID
node 1 29550 --out "$WORK/killed" "${BASE[@]}" "${LONG[@]}"
P1=$NODE_PID
wait_checkpoint "$WORK/killed" $P0
kill -9 $P1
start=$(date +%s)
wait_exit $P0 $((TIMEOUT + 30))
rc0=$RC
[ "$rc0" != 0 ] || fail "node 0 finished although node 1 was killed"
expect_contains "$(cat "$WORK/node0.err")" "lost rank 1" "node 0 names the lost rank"
echo "kill -9: node 0 stopped after $(( $(date +%s) - start )) s: $(grep -o 'lost rank 1[^[]*' "$WORK/node0.err" | head -1)"
cp -r "$WORK/killed" "$WORK/killed-one-process"
resume_both 29560 "$WORK/killed"
echo "kill -9 + resume on both nodes ok"

# The same killed run resumed by one process: another world size.
"$CLI" train --out "$WORK/killed-one-process" --resume --nnodes 1 >/dev/null 2>"$WORK/one.err" ||
    fail "resume on one process: $(last_line "$WORK/one.err")"
grep -q '"type":"finished"' "$WORK/killed-one-process/metrics.jsonl" || fail "one-process resume did not finish"
grep -q "2 ranks before, 1 now" "$WORK/killed-one-process/log.txt" || fail "the world-size change is not logged"
echo "resume with another world size ok"

# Node 1's link goes down mid-epoch.
node 0 29570 --out "$WORK/cut" "${BASE[@]}" "${LONG[@]}"
P0=$NODE_PID
node 1 29570 --out "$WORK/cut" "${BASE[@]}" "${LONG[@]}"
P1=$NODE_PID
wait_checkpoint "$WORK/cut" $P0
ip -n $NS1 link set $VETH1 down
start=$(date +%s)
wait_exit $P0 $((TIMEOUT + 40))
rc0=$RC
wait_exit $P1 $((TIMEOUT + 40))
rc1=$RC
[ "$rc0" != 0 ] && [ "$rc1" != 0 ] || fail "a node finished although the link was down ($rc0, $rc1)"
expect_contains "$(cat "$WORK/node0.err")" "lost rank 1" "node 0 names the lost rank"
expect_contains "$(cat "$WORK/node1.err")" "out of reach" "node 1 says rank 0 is out of reach"
echo "link down: both stopped within $(( $(date +%s) - start )) s"
ip -n $NS1 link set $VETH1 up
resume_both 29580 "$WORK/cut"
echo "link down + resume ok"
echo "cli_multinode ok"
