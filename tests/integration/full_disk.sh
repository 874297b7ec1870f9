#!/usr/bin/env bash
# A full disk (issue 21): conversion, checkpointing and export into a small tmpfs that has no
# room left. Each fails with a message that names the file and says the disk is full; what was
# written earlier on the same file system is unchanged and still loads; no partial output looks
# finished; and once there is room again the same command succeeds.
#   LATHE_PYTHON=.venv/bin/python full_disk.sh LATHE_CLI
# Runs in a private mount namespace (unshare), so the tmpfs never outlives the test; where no
# namespace or tmpfs can be made (not root, no user namespaces) it is skipped with exit 77.
set -euo pipefail
CLI=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"

if [ -z "${LATHE_FULL_DISK_NS:-}" ]; then
    for flags in "--mount" "--map-root-user --mount"; do
        # shellcheck disable=SC2086
        if unshare $flags --propagation private true 2>/dev/null; then
            # shellcheck disable=SC2086
            LATHE_FULL_DISK_NS=1 exec unshare $flags --propagation private bash "$0" "$@"
        fi
    done
    echo "skipped: cannot make a private mount namespace here (needs root or unprivileged user namespaces)"
    exit 77
fi

WORK=$(mktemp -d)
DISK="$WORK/disk"
# KEEP=1 keeps the work folder (the tmpfs itself goes with the namespace) for a look afterwards.
trap 'umount "$DISK" 2>/dev/null || true; if [ -n "${KEEP:-}" ]; then echo "kept: $WORK"; else rm -rf "$WORK"; fi' EXIT
mkdir "$DISK"
if ! mount -t tmpfs -o size=128m tmpfs "$DISK" 2>"$WORK/mount.err"; then
    echo "skipped: cannot mount a tmpfs here: $(cat "$WORK/mount.err")"
    exit 77
fi

# Fills the tmpfs to the last byte, then gives back $1 KiB: what a writer then finds free.
leave_kib() {
    rm -f "$DISK/filler"
    dd if=/dev/zero of="$DISK/filler" bs=64k status=none 2>/dev/null || true
    [ "$1" -gt 0 ] && truncate -s "-$1K" "$DISK/filler"
    return 0
}
room() { rm -f "$DISK/filler"; }
# The SHA-256 of every file under a folder, hidden ones included, with their names.
sums() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
expect_full_message() { # stderr file, the path it must name, what
    local err
    err=$(cat "$1")
    expect_contains "$err" "the disk is full" "$3 says the disk is full"
    expect_contains "$err" "$2" "$3 names the file"
}

"$CLI" demo-data "$WORK/images" --per-class 8 --test-per-class 2 >/dev/null

# 1. Conversion: an earlier dataset in the same file system, then one that does not fit.
"$CLI" convert "$WORK/images" "$DISK/first" >/dev/null || fail "convert with room"
"$CLI" verify "$DISK/first" >/dev/null || fail "verify of the first dataset"
sums "$DISK/first" >"$WORK/first.sums"
leave_kib 8
if "$CLI" convert "$WORK/images" "$DISK/second" >"$WORK/convert.out" 2>"$WORK/convert.err"; then
    fail "convert into a full disk succeeded"
fi
expect_full_message "$WORK/convert.err" "$DISK/" "conversion"
expect_contains "$(cat "$WORK/convert.err")" "second" "conversion names its output"
[ ! -e "$DISK/second" ] || fail "a partial output folder was left: $(ls -A "$DISK/second")"
expect_eq "$(ls -A "$DISK" | tr '\n' ' ')" "filler first " "what the full disk holds after a failed conversion"
sums "$DISK/first" | cmp -s - "$WORK/first.sums" || fail "the earlier dataset changed"
"$CLI" verify "$DISK/first" >/dev/null || fail "the earlier dataset no longer verifies"
room
"$CLI" convert "$WORK/images" "$DISK/second" >/dev/null || fail "convert once there is room again"
"$CLI" verify "$DISK/second" >/dev/null || fail "verify of the conversion made with room"
echo "conversion ok: $(head -1 "$WORK/convert.err")"

# 2. Checkpointing: a run with one checkpoint, resumed on a full disk. The first checkpoint
# that cannot be written stops the run with the message (training on without checkpoints would
# put hours of work at risk unseen); the earlier checkpoint stays complete and loadable, and
# --resume finishes the run once there is room.
R="$DISK/run"
BASE=(--data "$DISK/first" --image-size 32 --batch 16 --seed 1 --arch mobilenet_v3_small
      --set model.in_channels=1 --set data.val_split=test --set 'data.augment=[]' --set data.workers=1
      --set feature_cache.mode=off --set checkpoints.every_epochs=1)
"$CLI" train --out "$R" --epochs 1 "${BASE[@]}" >/dev/null 2>"$WORK/train1.err" ||
    fail "train with room: $(tail -3 "$WORK/train1.err")"
sums "$R/checkpoints" >"$WORK/ckpt.sums"
last_step=$(json_get 'd["step"]' <"$R/checkpoints/last.json")
leave_kib 256
if "$CLI" train --out "$R" --resume --epochs 3 >"$WORK/train2.out" 2>"$WORK/train2.err"; then
    fail "training with a checkpoint on a full disk succeeded"
fi
expect_full_message "$WORK/train2.err" "$R/checkpoints/" "a checkpoint write"
finished() { grep -c '"type":"finished"' "$R/metrics.jsonl" || true; }
expect_eq "$(finished)" "1" "finished events after the run that could not checkpoint"
expect_eq "$(tail -1 "$R/metrics.jsonl" | json_get 'd["type"]')" "failed" "the last event of the run that could not checkpoint"
expect_eq "$(json_get 'd["step"]' <"$R/checkpoints/last.json")" "$last_step" "last.json after the failed checkpoint"
# Every file of the earlier checkpoint is unchanged (new files may be left only under hidden
# temporary names, which the checkpoint list never offers and the next write removes).
(cd "$R/checkpoints" && sha256sum --quiet -c "$WORK/ckpt.sums") || fail "the earlier checkpoint files changed"
"$PY" - "$R/checkpoints" <<'PYEOF' || fail "the earlier checkpoint does not load"
import json, sys
from safetensors.torch import load_file
folder = sys.argv[1]
last = json.load(open(f"{folder}/last.json"))
for entry in last["files"].values():
    tensors = load_file(f"{folder}/{entry['name']}")
    assert tensors, entry
PYEOF
room
"$CLI" train --out "$R" --resume --epochs 3 >/dev/null 2>"$WORK/train3.err" ||
    fail "resume once there is room: $(tail -3 "$WORK/train3.err")"
expect_eq "$(finished)" "2" "finished events after the resumed run"
echo "checkpointing ok: $(grep -m1 'the disk is full' "$WORK/train2.err")"

# 3. Export: an earlier export on the same file system, then one into a full disk.
EXPORT=(--run "$R" --checkpoint last --format onnx --format torchscript)
"$CLI" export "${EXPORT[@]}" --out "$DISK/export1" >/dev/null 2>"$WORK/export1.err" ||
    fail "export with room: $(tail -3 "$WORK/export1.err")"
sums "$DISK/export1" >"$WORK/export1.sums"
leave_kib 16
if "$CLI" export "${EXPORT[@]}" --out "$DISK/export2" >"$WORK/export2.out" 2>"$WORK/export2.err"; then
    fail "export into a full disk succeeded"
fi
cat "$WORK/export2.out" >>"$WORK/export2.err"
expect_full_message "$WORK/export2.err" "$DISK/export2/model.onnx" "the ONNX export"
expect_full_message "$WORK/export2.err" "$DISK/export2/model.pt" "the TorchScript export"
for f in model.onnx model.pt; do
    [ ! -e "$DISK/export2/$f" ] || fail "export2/$f looks finished on a full disk"
done
if [ -e "$DISK/export2/report.json" ]; then
    expect_eq "$(json_get 'd["status"]' <"$DISK/export2/report.json")" "failed" "the report of a failed export"
fi
if ls -A "$DISK/export2" 2>/dev/null | grep 'tmp-' >/dev/null; then fail "temporary files left: $(ls -A "$DISK/export2")"; fi
sums "$DISK/export1" | cmp -s - "$WORK/export1.sums" || fail "the earlier export changed"
room
"$CLI" export "${EXPORT[@]}" --out "$DISK/export3" >/dev/null 2>"$WORK/export3.err" ||
    fail "export once there is room: $(tail -3 "$WORK/export3.err")"
expect_eq "$(json_get 'd["status"]' <"$DISK/export3/report.json")" "passed" "export once there is room"
echo "export ok: $(grep -m1 'the disk is full' "$WORK/export2.err")"
echo "full_disk: ok"
