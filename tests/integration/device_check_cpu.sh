#!/usr/bin/env bash
# scripts/device-check.sh --device cpu: the GPU device check at its tiny CPU sizes writes a
# device-check.json of the agreed shape (every part present, ok or skipped with its reason; the
# bench rows' figures positive and their ratios the quotients of them; the runs' step events with
# input_wait_fraction) and its logs' archive. Then with a lathe-cli that does not exist: the JSON
# is still written, each part that needs the program failed naming it, the parts after it skipped
# or run, and the exit status 1.
# Usage: device_check_cpu.sh LATHE_CLI
set -euo pipefail
CLI=$1
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/assert.sh"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
CHECK="$HERE/../../scripts/device-check.sh"

"$CHECK" --device cpu --cli "$CLI" --python "$PY" --out "$WORK/out" --work "$WORK/work" --budget-s 400 \
    2>"$WORK/check.err" || fail "device-check.sh --device cpu failed: $(tail -5 "$WORK/check.err")"
for f in device-check.json device-check.log device-check-logs.tar.gz; do
    [ -s "$WORK/out/$f" ] || fail "no $f in --out"
done
# The listing whole, then grep: `tar | grep -q` under pipefail fails when grep's early exit makes
# tar's next write a SIGPIPE.
listing=$(tar tzf "$WORK/out/device-check-logs.tar.gz")
grep -x "device-check-logs/train.metrics.jsonl" <<<"$listing" >/dev/null ||
    fail "the logs' archive has no train.metrics.jsonl: $(tr '\n' ' ' <<<"$listing")"

"$PY" - "$WORK/out/device-check.json" "$CLI" <<'PYEOF'
import json, os, sys

d = json.load(open(sys.argv[1]))
cli = os.path.abspath(sys.argv[2])
errors = []


def check(condition, what):
    if not condition:
        errors.append(what)


def number(value, positive=True):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and (value > 0 or not positive)


PARTS = {"info", "gpu", "data", "train", "nccl", "bench", "gpu_memory"}
ROWS = ["resnet50_bf16", "resnet50_fp16", "resnet18_bf16", "vit_b_16_bf16"]
check(d.get("check") == "lathe-device-check" and d.get("schema") == 1, "check/schema")
check(d.get("device") == "cpu" and d.get("sizes") == "tiny", "device cpu, sizes tiny")
check(d.get("cli") == cli, f"cli {d.get('cli')} is not {cli}")
for key in ("started_utc", "finished_utc", "python"):
    check(isinstance(d.get(key), str) and d[key], f"{key} a string")
check(number(d.get("budget_s")) and number(d.get("wall_s")), "budget_s and wall_s positive")
check(d.get("wall_s", 1e9) <= d.get("budget_s", 0), "wall_s within the budget")
check(isinstance(d.get("host"), dict) and number(d["host"].get("cpus")), "host.cpus")
check(d.get("status") == "ok" and d.get("failed_parts") == [], f"status ok: {d.get('failed_parts')}")
parts = d.get("parts", {})
check(set(parts) == PARTS, f"parts {sorted(parts)}")
for name, part in parts.items():
    status = part.get("status")
    check(status in ("ok", "failed", "timeout", "skipped"), f"{name}: status {status}")
    if status != "ok":
        check(isinstance(part.get("error"), str) and part["error"], f"{name}: {status} without an error string")
    if name in ("gpu", "gpu_memory"):
        check(status == "skipped" and "--device cpu" in part.get("error", ""), f"{name} skipped on the CPU")
    else:
        check(status == "ok", f"{name} ok: {part.get('error')}")

info = parts["info"].get("result", {})
check(isinstance(info.get("libtorch"), str) and isinstance(info.get("devices"), list), "info: libtorch, devices")

data = parts["data"]
check(data.get("splits", {}).get("train") == 160 and data["splits"].get("val") == 40, f"data splits {data.get('splits')}")
check(data.get("make", {}).get("result", {}).get("images") == 200, "data: 200 images made")
check(number(data.get("shard_bytes")), "data: shard bytes")

for name in ("train", "nccl"):
    part = parts[name]
    r = part.get("result", {})
    check(part.get("config", {}).get("devices") == ["cpu"], f"{name}: devices [cpu]")
    check(r.get("finished") is True and number(r.get("steps")) and number(r.get("step_events")), f"{name}: finished")
    check("input_wait_fraction" in r.get("step_event_keys", []), f"{name}: step events with input_wait_fraction")
    check(number(r.get("images_per_s", {}).get("median")), f"{name}: images/s")
    wait = r.get("input_wait_fraction", {})
    check(all(number(wait.get(k), False) and wait[k] <= 1 for k in ("median", "mean", "max")),
          f"{name}: input wait fraction in [0, 1]: {wait}")
    check(isinstance(r.get("memory_keys"), dict), f"{name}: memory_keys")
    check(0 <= r.get("epoch", {}).get("val_top1", -1) <= 1, f"{name}: val_top1")
    check(number(r.get("epoch_images_per_s")), f"{name}: epoch images/s")
nccl = parts["nccl"]
check(nccl.get("backend") == "gloo" and nccl.get("launch", {}).get("WORLD_SIZE") == "1", "nccl: gloo, world size 1")
check(nccl.get("process_group_said") is True and isinstance(nccl.get("process_group_lines"), list),
      "nccl: process_group_said, process_group_lines")
# A launcher's single rank trains in a process group of its own, as DDP's would (Gloo here).
check(any("Gloo process group of 1 rank" in line for line in nccl["process_group_lines"]),
      f"nccl: no Gloo process group of 1 rank in {nccl['process_group_lines']}")

bench = parts["bench"]
check(bench.get("compile") is False and "--compile on" in bench.get("compile_skipped", ""), "bench: compile skipped")
rows = bench.get("rows", [])
check([r.get("id") for r in rows] == ROWS, f"bench rows {[r.get('id') for r in rows]}")
check(bench.get("compile_not_measured") == ROWS, "bench: compile_not_measured lists every row")
for row in rows:
    rid = row.get("id")
    for side in ("lathe", "pytorch_eager"):
        part = row.get(side, {})
        r = part.get("result", {})
        check(part.get("status") == "ok" and number(r.get("images_per_s")), f"{rid} {side}: ok, images/s")
        for key in ("arch", "batch", "image_size", "precision", "channels_last"):
            check(r.get(key) == row.get(key), f"{rid} {side}: {key} {r.get(key)} is not the row's {row.get(key)}")
        check(r.get("device") == "cpu", f"{rid} {side}: device cpu")
    lathe, eager = row.get("lathe_images_per_s"), row.get("pytorch_eager_images_per_s")
    check(number(lathe) and lathe == row["lathe"].get("result", {}).get("images_per_s"), f"{rid}: lathe_images_per_s")
    check(number(eager) and eager == row["pytorch_eager"].get("result", {}).get("images_per_s"), f"{rid}: eager")
    check(number(lathe) and number(eager) and row.get("lathe_over_eager") == round(lathe / eager, 3),
          f"{rid}: lathe_over_eager")
    check(row.get("pytorch_compile", {}).get("status") == "skipped", f"{rid}: compile skipped")
    check(row.get("pytorch_compile_images_per_s") is None and row.get("lathe_over_compile") is None
          and row.get("pytorch_compile_error") == row["pytorch_compile"].get("error"), f"{rid}: compile figures null")
check(rows and rows[1].get("precision") == "fp32" and "fp16 needs CUDA" in rows[1].get("note", ""),
      "the fp16 row is fp32 on the CPU, saying so")
if errors:
    sys.exit("device-check.json: " + "; ".join(errors))
PYEOF

# A lathe-cli that is not there: every part that runs it fails naming it, the check goes on.
status=0
"$CHECK" --device cpu --cli "$WORK/no-such-lathe-cli" --python "$PY" --out "$WORK/missing" --rows resnet18_bf16 \
    --budget-s 120 2>"$WORK/missing.err" || status=$?
expect_eq "$status" 1 "exit status with failed parts"
"$PY" - "$WORK/missing/device-check.json" <<'PYEOF'
import json, sys

d = json.load(open(sys.argv[1]))
p = d["parts"]
errors = []
expect = {"info": "failed", "gpu": "skipped", "data": "failed", "train": "skipped", "nccl": "skipped",
          "bench": "failed", "gpu_memory": "skipped"}
got = {name: part["status"] for name, part in p.items()}
if got != expect:
    errors.append(f"statuses {got}")
if d["status"] != "failed" or d["failed_parts"] != ["info", "data", "bench"]:
    errors.append(f"status {d['status']}, failed {d['failed_parts']}")
for name in ("info", "data", "bench"):
    if "no-such-lathe-cli" not in p[name].get("error", ""):
        errors.append(f"{name}'s error does not name the program: {p[name].get('error')}")
if "convert" not in p["data"].get("error", "") or p["data"].get("make", {}).get("status") != "ok":
    errors.append(f"data: images made, convert failed: {p['data']}")
for name in ("train", "nccl"):
    if "no shards" not in p[name].get("error", ""):
        errors.append(f"{name}: {p[name].get('error')}")
row = p["bench"]["rows"][0]
if [r["id"] for r in p["bench"]["rows"]] != ["resnet18_bf16"] or row["lathe"]["status"] != "failed":
    errors.append("bench: one row, lathe failed")
if row["pytorch_eager"]["status"] != "ok" or not row["pytorch_eager_images_per_s"] > 0 or row["lathe_over_eager"] is not None:
    errors.append(f"bench: the PyTorch side still ran: {row['pytorch_eager']}")
if errors:
    sys.exit("device-check.json with a missing lathe-cli: " + "; ".join(errors))
PYEOF
echo "device_check_cpu: ok"
