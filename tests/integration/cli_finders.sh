#!/usr/bin/env bash
# lathe-cli lr-find and batch-find end to end on Fashion-MNIST demo shards: the curve and its
# suggestions, nothing written, Ctrl+C; the batch found within --max-memory and the split's cap.
# Usage: cli_finders.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$CLI" demo-data "$WORK/images" --per-class 8 --test-per-class 2 >/dev/null
"$CLI" convert "$WORK/images" "$WORK/shards" >/dev/null
cat >"$WORK/run.json" <<'JSON'
{"data": {"image_size": 32, "augment": [], "workers": 1, "val_split": "test"},
 "model": {"arch": "mobilenet_v3_small", "in_channels": 1},
 "optimizer": {"batch_size": 16}, "feature_cache": {"mode": "off"}}
JSON
before=$(cd "$WORK" && find . -type f | sort | xargs sha256sum)

out=$("$CLI" --json lr-find --data "$WORK/shards" --config "$WORK/run.json" --steps 40 --start-lr 1e-4 2>/dev/null) ||
    fail "lr-find failed"
expect_eq "$(json_get 'all(a["lr"] < b["lr"] for a, b in zip(d["points"], d["points"][1:]))' <<<"$out")" True "lr increases"
expect_eq "$(json_get 'd["points"][0]["lr"]' <<<"$out")" 0.0001 "first lr"
expect_eq "$(json_get 'sorted(s["rule"] for s in d["suggestions"])' <<<"$out")" "['steepest', 'valley']" "suggestions"
expect_eq "$(json_get 'all(d["points"][0]["lr"] <= s["lr"] <= d["points"][-1]["lr"] for s in d["suggestions"])' <<<"$out")" \
    True "suggestions on the curve"
text=$("$CLI" lr-find --data "$WORK/shards" --config "$WORK/run.json" --steps 20 --set optimizer.name=adamw 2>/dev/null)
expect_contains "$text" "steepest  lr " "text output"
expect_eq "$(cd "$WORK" && find . -type f | sort | xargs sha256sum)" "$before" "lr-find writes nothing"

# Ctrl+C: cancelled within a step, exit 130 (a sweep that never diverges, so only the signal ends it).
"$CLI" lr-find --data "$WORK/shards" --config "$WORK/run.json" --steps 100000 --end-lr 1e-5 >"$WORK/int.out" 2>"$WORK/int.err" &
pid=$!
sleep 4
kill -INT $pid
rc=0; wait $pid || rc=$?
expect_eq "$rc" 130 "lr-find after SIGINT"
expect_contains "$(cat "$WORK/int.err")" "cancelled" "SIGINT message"

# batch-find: 80 training records cap it; a limit between batch 20 and 21 stops it at 20.
out=$("$CLI" --json batch-find --data "$WORK/shards" --config "$WORK/run.json" --max-memory 1000000) || fail "batch-find failed"
expect_eq "$(json_get '(d["batch_size"], d["stopped_by"], d["dataset_cap"])' <<<"$out")" "(80, 'dataset', 80)" "dataset cap"
limit=$(json_get '(d["bytes_fixed"] + 20.5 * d["bytes_per_image"]) / 1048576' <<<"$out")
out=$("$CLI" --json batch-find --data "$WORK/shards" --config "$WORK/run.json" --max-memory "$limit") || fail "batch-find (limit)"
expect_eq "$(json_get '(d["batch_size"], d["stopped_by"])' <<<"$out")" "(20, 'memory')" "memory limit"
expect_eq "$(json_get '[t["fits"] for t in d["trials"] if t["batch"] in (20, 21, 32)]' <<<"$out")" "[False, True, False]" \
    "trials 32, 20, 21"
expect_contains "$("$CLI" batch-find --data "$WORK/shards" --config "$WORK/run.json" --max-batch 12)" "batch size: 12" "--max-batch"

err=$("$CLI" lr-find --config "$WORK/run.json" 2>&1 >/dev/null) && fail "lr-find without data must fail"
expect_contains "$err" "data.shards" "missing data named"
"$CLI" lr-find --data "$WORK/shards" --steps 1 >/dev/null 2>&1 && fail "--steps 1 must be refused"
echo "cli finders: all passed"
