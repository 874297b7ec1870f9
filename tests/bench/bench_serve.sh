#!/usr/bin/env bash
# Serving benchmark (not a test): `lathe-cli serve` under wrk (Debian's) posting a real JPEG as a
# TF Serving :predict request (serve_post.lua), at 1, 8 and 64 connections, without and with
# dynamic batching; throughput, p50/p99 latency. The ceiling is the same model file's raw
# in-process batched throughput (TorchScript in the venv's PyTorch, the same LibTorch, batches of
# MAX_BATCH, no HTTP and no JPEG decoding). Prints JSON lines, the load average beside each (the
# machine may be shared), and a summary line with the batched 64-connection throughput as a
# share of the ceiling (the issue's target: 80%).
#   bench_serve.sh LATHE_CLI
#   ARCH (resnet18), IMAGE_SIZE (224), DURATION seconds per run (10), MAX_BATCH (32),
#   BATCH_TIMEOUT_MS (5), PHOTO (opencv-doc's fruits.jpg)
set -euo pipefail
CLI="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PY="${LATHE_PYTHON:-$ROOT/.venv/bin/python}"
ARCH="${ARCH:-resnet18}"
IMAGE_SIZE="${IMAGE_SIZE:-224}"
DURATION="${DURATION:-10}"
MAX_BATCH="${MAX_BATCH:-32}"
BATCH_TIMEOUT_MS="${BATCH_TIMEOUT_MS:-5}"
PHOTO="${PHOTO:-/usr/share/doc/opencv-doc/examples/data/fruits.jpg}"
command -v wrk > /dev/null || { echo "bench_serve: wrk is missing (scripts/install-deps.sh)" >&2; exit 1; }
TMP="$(mktemp -d)"
SERVER=""
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2> /dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

mkdir "$TMP/photos"
cp "$PHOTO" "$TMP/photos/"
"$CLI" --json export --arch "$ARCH" --num-classes 10 --image-size "$IMAGE_SIZE" --verify-data "$TMP/photos" \
  --verify-images 1 --accuracy-images 0 --no-benchmark --format torchscript --format safetensors --out "$TMP/model" \
  > "$TMP/export.json"
"$PY" -c 'import base64, json, sys; print(json.dumps({"instances": [{"b64": base64.b64encode(open(sys.argv[1], "rb").read()).decode()}]}))' \
  "$PHOTO" > "$TMP/body.json"

# The ceiling: the same model.pt run in-process by the same LibTorch (the venv's PyTorch), on
# batches of MAX_BATCH, as many threads as the server's LibTorch (every core), no HTTP, no decoding.
CEILING=$("$PY" - "$TMP/model/model.pt" "$MAX_BATCH" "$IMAGE_SIZE" "$DURATION" <<'PYEOF'
import os, sys, time
import torch
path, batch, size, duration = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
torch.set_num_threads(os.cpu_count())
model = torch.jit.load(path).eval()
x = torch.randn(batch, 3, size, size)
with torch.no_grad():
    for _ in range(3):
        model(x)
    n, start = 0, time.perf_counter()
    while n < 3 or time.perf_counter() - start < duration:
        model(x)
        n += 1
    print(f"{n * batch / (time.perf_counter() - start):.2f}")
PYEOF
)
echo "{\"run\": \"in-process\", \"arch\": \"$ARCH\", \"image_size\": $IMAGE_SIZE, \"batch\": $MAX_BATCH, \"images_per_s\": $CEILING, \"loadavg_1m\": $(cut -d' ' -f1 /proc/loadavg)}"

for mode in off on; do
  extra=()
  [ "$mode" = on ] && extra=(--max-batch "$MAX_BATCH" --batch-timeout-ms "$BATCH_TIMEOUT_MS" --max-queue 1024)
  "$CLI" serve --model m="$TMP/model" --port 0 --device cpu --threads 80 --no-access-log "${extra[@]}" \
    2> "$TMP/server-$mode.log" &
  SERVER=$!
  for _ in $(seq 1 600); do
    grep -q '"event":"listening"' "$TMP/server-$mode.log" && break
    kill -0 "$SERVER" 2> /dev/null || { cat "$TMP/server-$mode.log" >&2; exit 1; }
    sleep 0.1
  done
  port=$("$PY" -c 'import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line) if line.startswith("{") else {}
    if d.get("event") == "listening": print(d["port"])' "$TMP/server-$mode.log")
  for conns in 1 8 64; do
    threads=$((conns < 2 ? 1 : 2))
    load=$(cut -d' ' -f1 /proc/loadavg)
    BODY_FILE="$TMP/body.json" wrk -t"$threads" -c"$conns" -d"${DURATION}s" --timeout 30s -s "$HERE/serve_post.lua" \
      "http://127.0.0.1:$port/v1/models/m:predict" > "$TMP/wrk.txt"
    line=$(grep '^{"requests"' "$TMP/wrk.txt")
    "$PY" - "$line" "$mode" "$conns" "$load" "$CEILING" <<'PYEOF' | tee -a "$TMP/results.jsonl"
import json, sys
r, mode, conns, load, ceiling = json.loads(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
rps = r["requests"] / (r["duration_us"] / 1e6)
print(json.dumps({"run": "serve", "batching": mode, "connections": conns, "requests_per_s": round(rps, 2),
                  "share_of_in_process": round(rps / ceiling, 3), "p50_ms": r["latency_us"]["p50"] / 1000,
                  "p99_ms": r["latency_us"]["p99"] / 1000, "errors": r["errors"], "requests": r["requests"],
                  "loadavg_1m_before": load}))
PYEOF

  done
  kill -TERM "$SERVER"
  wait "$SERVER" || true
  SERVER=""
done
"$PY" - "$TMP/results.jsonl" "$CEILING" <<'PYEOF'
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
ceiling = float(sys.argv[2])
at64 = {r["batching"]: r for r in runs if r["connections"] == 64}
print(json.dumps({"summary": "64 connections", "in_process_images_per_s": ceiling,
                  "batched_requests_per_s": at64["on"]["requests_per_s"], "batched_share": at64["on"]["share_of_in_process"],
                  "batched_p99_ms": at64["on"]["p99_ms"], "unbatched_requests_per_s": at64["off"]["requests_per_s"],
                  "unbatched_share": at64["off"]["share_of_in_process"], "target_share": 0.8}))
PYEOF
