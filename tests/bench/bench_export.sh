#!/usr/bin/env bash
# Export benchmark (not a test): time of `lathe-cli export` with verification, and ONNX Runtime
# CPU latency of the INT8 QDQ file against FP32 (and FP16) at batch 1 and 32. Prints JSON lines.
#   bench_export.sh LATHE_CLI PEERS_DIR [ARCH...]     (default: resnet18 resnet50)
#   THREADS=N: ONNX Runtime intra-op threads (default: all cores)
set -euo pipefail
CLI="$1"
PEERS="$2"
shift 2
ARCHES="${*:-resnet18 resnet50}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
export ONNXRUNTIME_NODE_INSTALL=skip
if ! NODE_PATH="$PEERS/node_modules" node -e "require('onnxruntime-node')" 2>/dev/null; then
  bash "$ROOT/scripts/install-test-peers.sh" "$PEERS"
fi
export NODE_PATH="$PEERS/node_modules"
THREADS="${THREADS:-0}"
PHOTOS=/usr/share/doc/opencv-doc/examples/data
mkdir "$TMP/photos"
cp "$PHOTOS"/{baboon,fruits,HappyFish,butterfly,apple,building,home,aero1,board,lena}.jpg "$TMP/photos/" 2>/dev/null || true

for arch in $ARCHES; do
  start=$(date +%s.%N)
  "$CLI" --json export --arch "$arch" --num-classes 1000 --verify-data "$TMP/photos" --calib-data "$TMP/photos" \
    --calib-images 10 --format onnx --out "$TMP/$arch-fp32" > "$TMP/$arch-fp32.json" || true
  end=$(date +%s.%N)
  "$CLI" --json export --arch "$arch" --num-classes 1000 --verify-data "$TMP/photos" --calib-data "$TMP/photos" \
    --calib-images 10 --no-benchmark --format onnx-fp16 --format onnx-int8 --out "$TMP/$arch-q" > "$TMP/$arch-q.json" || true
  end2=$(date +%s.%N)
  echo "{\"arch\": \"$arch\", \"export_fp32_with_verification_s\": $(echo "$end - $start" | bc), \"export_fp16_int8_with_verification_s\": $(echo "$end2 - $end" | bc), \"fp32_bytes\": $(stat -c %s "$TMP/$arch-fp32/model.onnx"), \"int8_bytes\": $(stat -c %s "$TMP/$arch-q/model.int8.onnx")}"
  for batch in 1 32; do
    reps=$([ "$batch" = 1 ] && echo 20 || echo 3)
    fp32=$(node "$ROOT/tests/integration/ort_run.js" bench "$TMP/$arch-fp32/model.onnx" "$batch,3,224,224" "$reps" "$THREADS")
    fp16=$(node "$ROOT/tests/integration/ort_run.js" bench "$TMP/$arch-q/model.fp16.onnx" "$batch,3,224,224" "$reps" "$THREADS")
    int8=$(node "$ROOT/tests/integration/ort_run.js" bench "$TMP/$arch-q/model.int8.onnx" "$batch,3,224,224" "$reps" "$THREADS")
    "$(command -v python3)" - "$arch" "$batch" "$fp32" "$fp16" "$int8" <<'PYEOF'
import json, sys
arch, batch, fp32, fp16, int8 = sys.argv[1], int(sys.argv[2]), *(json.loads(a) for a in sys.argv[3:])
print(json.dumps({"arch": arch, "runtime": "onnxruntime-node cpu", "batch": batch,
                  "fp32_ms_per_image": round(fp32["ms_per_image"], 3), "fp16_ms_per_image": round(fp16["ms_per_image"], 3),
                  "int8_ms_per_image": round(int8["ms_per_image"], 3),
                  "int8_speedup": round(fp32["ms_per_image"] / int8["ms_per_image"], 2)}))
PYEOF
  done
done
