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
# node N PORT ARGS...: lathe-cli train on node N in the background, its PID in P0 or P1.
node() {
    local n=$1 port=$2; shift 2
    local ns=$NS0 data="$WORK/node0/shards"
    [ "$n" == 1 ] && ns=$NS1 && data="$WORK/node1-shards"
    ip netns exec $ns "$CLI" train --data "$data" --nnodes 2 --node-rank "$n" --master $ADDR0:"$port" "$@" \
        >"$WORK/node$n.out" 2>"$WORK/node$n.err" &
    eval P$n=\$!
}
# nodes PORT ARGS...: the same command on both nodes.
nodes() {
    node 0 "$@"
    node 1 "$@"
}
# wait_nodes LIMIT: both nodes' exit statuses in RC0 and RC1 (node 1 gets LIMIT once node 0 ended).
wait_nodes() {
    wait_exit $P0 "$1"
    RC0=$RC
    wait_exit $P1 "$1"
    RC1=$RC
}
last_line() { tail -2 "$1" | tr '\n' ' '; }
both_ok() {
    [ "$RC0" == 0 ] || fail "$1: node 0 exited $RC0: $(last_line "$WORK/node0.err")"
    [ "$RC1" == 0 ] || fail "$1: node 1 exited $RC1: $(last_line "$WORK/node1.err")"
}
# same RUN REFERENCE WHAT: the runs' last weights agree within the Gloo ranks test's tolerance.
same() {
    "$PY" "$HERE/multinode_check.py" same "$1/checkpoints/last.safetensors" "$2/checkpoints/last.safetensors" \
        2e-5 1e-4 || fail "$3"
}

# ---- one process, the reference: the same global batch (16) on one rank -------------------------
REF="$WORK/ref-one-rank"
"$CLI" train --out "$REF" --data "$WORK/node0/shards" "${BASE[@]}" --epochs 2 --batch 16 \
    >/dev/null 2>"$WORK/ref.err" || fail "reference run: $(last_line "$WORK/ref.err")"

# ---- two nodes --------------------------------------------------------------------------------
mkdir -p "$WORK/records"
node 0 29510 --out "$WORK/node0/run" "${BASE[@]}" --epochs 2 --batch 8 --record-log "$WORK/records"
node 1 29510 --out "$WORK/node1/run" "${BASE[@]}" --epochs 2 --batch 8 --record-log "$WORK/records"
wait_nodes 300
both_ok "two nodes"
grep -q '"type":"finished"' "$WORK/node0/run/metrics.jsonl" || fail "node 0's run did not finish"
ls "$WORK/node0/run"/events.out.tfevents.* >/dev/null 2>&1 || fail "no TensorBoard file on rank 0's node"
[ ! -e "$WORK/node1/run" ] || fail "node 1 wrote a run folder: $(ls -R "$WORK/node1/run" | head -5)"
grep -q "distributed: node 1 of 2" "$WORK/node1.err" || fail "node 1 did not say where it stands: $(head -3 "$WORK/node1.err")"
same "$WORK/node0/run" "$REF" "two nodes differ from one process"
"$PY" "$HERE/multinode_check.py" records "$WORK/records" "$WORK/node0/shards" 16 2 || fail "record split"
# Several ranks per node, as one process per machine trains one rank per device: 2 x 2 ranks.
nodes 29515 --out "$WORK/four-ranks" "${BASE[@]}" --epochs 2 --batch 4 --devices cpu,cpu
wait_nodes 300
both_ok "2 x 2 ranks"
grep -q "ranks 2-3 of 4" "$WORK/node1.err" || fail "node 1 did not train ranks 2-3: $(head -3 "$WORK/node1.err")"
same "$WORK/four-ranks" "$REF" "2 x 2 ranks differ from one process"
echo "two nodes ok"

# ---- torchrun in each namespace, no Lathe flag about nodes ----------------------------------------
# torchrun's agent serves the store, so lathe-cli must speak its PyTorch's store protocol. A
# lathe-cli on another LibTorch (the Debian 1.13 build) must refuse within the timeout, not hang.
LATHE_TORCH=$("$CLI" info | awk '$1 == "LibTorch" {print $2}')
RUN_TORCH=$("$PY" -c 'import torch; print(torch.__version__.split("+")[0])')
for n in 0 1; do
    ns=$NS0; data="$WORK/node0/shards"
    [ $n == 1 ] && ns=$NS1 && data="$WORK/node1-shards"
    ip netns exec $ns "$TORCHRUN" --nnodes 2 --nproc-per-node 1 --node-rank $n --master-addr $ADDR0 --master-port 29520 \
        --no-python "$CLI" train --data "$data" --out "$WORK/torchrun$n" "${BASE[@]}" --epochs 2 --batch 8 \
        >"$WORK/node$n.out" 2>"$WORK/node$n.err" &
    eval P$n=\$!
done
wait_nodes 300
if [ "$LATHE_TORCH" != "$RUN_TORCH" ]; then
    [ "$RC0" != 0 ] && [ "$RC1" != 0 ] || fail "torchrun $RUN_TORCH with lathe-cli on LibTorch $LATHE_TORCH did not fail"
    for n in 0 1; do
        expect_contains "$(cat "$WORK/node$n.err")" "their store protocols differ" "node $n names the foreign store"
    done
    echo "torchrun ($RUN_TORCH) refused within the timeout by lathe-cli on LibTorch $LATHE_TORCH, as it must"
else
    both_ok "torchrun"
    grep -q "(torchrun)" "$WORK/node1.err" || fail "node 1 did not read torchrun's environment"
    [ ! -e "$WORK/torchrun1" ] || fail "torchrun's node 1 wrote a run folder"
    same "$WORK/torchrun0" "$REF" "torchrun's run differs from one process"
    # One machine, one process per device as torchrun --nproc-per-node starts them (each takes "cpu").
    ip netns exec $NS0 "$TORCHRUN" --standalone --local-addr 127.0.0.1 --nproc-per-node 2 --no-python \
        "$CLI" train --data "$WORK/node0/shards" \
        --out "$WORK/torchrun-local" "${BASE[@]}" --epochs 2 --batch 8 >/dev/null 2>"$WORK/torchrun-local.err" ||
        fail "torchrun --nproc-per-node 2: $(last_line "$WORK/torchrun-local.err")"
    grep -q "process 1 of 2 (torchrun)" "$WORK/torchrun-local.err" || fail "the second process did not say where it stands"
    same "$WORK/torchrun-local" "$REF" "torchrun's local processes differ from one process"
    echo "torchrun ok"
fi

# ---- refusals -----------------------------------------------------------------------------------
if RANK=0 WORLD_SIZE=2 MASTER_ADDR=$ADDR0 MASTER_PORT=29530 "$CLI" train --data "$WORK/node0/shards" \
    --out "$WORK/conflict" "${BASE[@]}" --nnodes 3 >/dev/null 2>"$WORK/conflict.err"; then
    fail "a flag contradicting the launcher was accepted"
fi
expect_contains "$(cat "$WORK/conflict.err")" "distributed.nnodes is 3" "conflict names the flag"
expect_contains "$(cat "$WORK/conflict.err")" "2 machines" "conflict names the launcher's value"

"$CLI" convert "$WORK/images" "$WORK/other-shards" --max-side 20 --quality 50 >/dev/null # re-encoded: other bytes
node 0 29540 --out "$WORK/mismatch0" "${BASE[@]}" --epochs 1 --batch 8
ip netns exec $NS1 "$CLI" train --data "$WORK/other-shards" --nnodes 2 --node-rank 1 --master $ADDR0:29540 \
    --out "$WORK/mismatch1" "${BASE[@]}" --epochs 1 --batch 8 >/dev/null 2>"$WORK/node1.err" &
P1=$!
wait_nodes $((TIMEOUT + 30))
[ "$RC0" != 0 ] && [ "$RC1" != 0 ] || fail "different shards were accepted ($RC0, $RC1)"
expect_contains "$(cat "$WORK/node1.err")" "differs from rank 0's" "node 1 names the shard"
expect_contains "$(cat "$WORK/node0.err")" "refused to join" "node 0 says why"
[ ! -e "$WORK/mismatch0/checkpoints" ] || fail "a refused run trained"
echo "refusals ok"

# ---- failures: the uninterrupted reference, then kill -9 and a cut link ---------------------------
LONG=(--epochs 4 --batch 8 --set checkpoints.every_steps=3 --set checkpoints.keep=50)
REF_LONG="$WORK/ref-long"
"$CLI" train --out "$REF_LONG" --data "$WORK/node0/shards" --devices cpu,cpu "${BASE[@]}" "${LONG[@]}" \
    >/dev/null 2>"$WORK/ref.err" || fail "long reference run: $(last_line "$WORK/ref.err")"

# interrupted RUN PORT: a two-node run into RUN, left running until it has a checkpoint past step 6.
interrupted() {
    nodes "$2" --out "$1" "${BASE[@]}" "${LONG[@]}"
    for _ in $(seq 600); do
        ls "$1"/checkpoints/step-*.json 2>/dev/null | grep -v 'step-[0-6]\.json' >/dev/null && return 0
        kill -0 $P0 2>/dev/null || fail "the run ended before it could be interrupted: $(last_line "$WORK/node0.err")"
        sleep 0.2
    done
    fail "no checkpoint after 120 s"
}
# resume_both RUN PORT: --resume on both nodes (node 1 names a run folder that does not exist
# there: rank 0's process sends it the config and the checkpoint), equal to the uninterrupted run.
resume_both() {
    node 0 "$2" --out "$1" --resume
    node 1 "$2" --out "$WORK/nowhere" --resume
    wait_nodes 300
    both_ok "resume"
    grep -q '"type":"resumed"' "$1/metrics.jsonl" || fail "no resumed event"
    same "$1" "$REF_LONG" "the resumed run differs from the uninterrupted one"
}

# kill -9 of node 1's process mid-epoch.
interrupted "$WORK/killed" 29550
kill -9 $P1
start=$(date +%s)
wait_exit $P0 $((TIMEOUT + 30))
[ "$RC" != 0 ] || fail "node 0 finished although node 1 was killed"
expect_contains "$(cat "$WORK/node0.err")" "lost rank 1" "node 0 names the lost rank"
echo "kill -9: node 0 stopped after $(( $(date +%s) - start )) s: $(grep -o 'lost rank 1[^[]*' "$WORK/node0.err" | head -1)"
cp -r "$WORK/killed" "$WORK/killed-one-process"
resume_both "$WORK/killed" 29560
echo "kill -9 + resume on both nodes ok"

# The same killed run resumed by one process: another world size.
"$CLI" train --out "$WORK/killed-one-process" --resume --nnodes 1 >/dev/null 2>"$WORK/one.err" ||
    fail "resume on one process: $(last_line "$WORK/one.err")"
grep -q '"type":"finished"' "$WORK/killed-one-process/metrics.jsonl" || fail "one-process resume did not finish"
grep -q "2 ranks before, 1 now" "$WORK/killed-one-process/log.txt" || fail "the world-size change is not logged"
echo "resume with another world size ok"

# Node 1's link goes down mid-epoch.
interrupted "$WORK/cut" 29570
ip -n $NS1 link set $VETH1 down
start=$(date +%s)
wait_nodes $((TIMEOUT + 40))
[ "$RC0" != 0 ] && [ "$RC1" != 0 ] || fail "a node finished although the link was down ($RC0, $RC1)"
expect_contains "$(cat "$WORK/node0.err")" "lost rank 1" "node 0 names the lost rank"
expect_contains "$(cat "$WORK/node1.err")" "out of reach" "node 1 says rank 0 is out of reach"
echo "link down: both stopped within $(( $(date +%s) - start )) s"
ip -n $NS1 link set $VETH1 up
resume_both "$WORK/cut" 29580
echo "link down + resume ok"
echo "cli_multinode ok"
