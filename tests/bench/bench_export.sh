#!/usr/bin/env bash
# Export benchmark (not a test): time of `lathe-cli export` of every format with verification and
# latency (wall and CPU seconds, the load average beside them: the machine may be shared), and
# the CPU latency of the INT8 QDQ file against FP32 (and FP16) at batch 1 and 32 in ONNX Runtime
# and in OpenVINO (one line each), the files' runs interleaved so that the ratios hold on a busy
# machine (tests/parity/ort_run.py compare), and LiteRT's (XNNPACK) of the TFLite FP32, FP16 and
# INT8 files at batch 1 (tests/parity/litert_run.py compare). Prints JSON lines.
# ONNX Runtime and OpenVINO are the PyPI onnxruntime and openvino of the project venv
# (scripts/install-python.sh); OpenVINO computes in float32 (INFERENCE_PRECISION_HINT f32).
#   bench_export.sh LATHE_CLI [ARCH...]     (default: resnet18 resnet50)
#   THREADS=N: ONNX Runtime intra-op threads, OpenVINO INFERENCE_NUM_THREADS (default: all cores)
set -euo pipefail
CLI="$1"
shift
ARCHES="${*:-resnet18 resnet50}"
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
PY="${LATHE_PYTHON:-$ROOT/.venv/bin/python}"
THREADS="${THREADS:-0}"
PHOTOS=/usr/share/doc/opencv-doc/examples/data
mkdir "$TMP/photos"
cp "$PHOTOS"/{baboon,fruits,HappyFish,butterfly,apple,building,home,aero1,board}.jpg "$TMP/photos/" 2>/dev/null || true

for arch in $ARCHES; do
  load_before=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %S' -o "$TMP/$arch.time" \
    "$CLI" --json export --arch "$arch" --num-classes 1000 --verify-data "$TMP/photos" --calib-data "$TMP/photos" \
    --format onnx --format onnx-fp16 --format onnx-int8 --format tflite --format tflite-fp16 --format tflite-int8 \
    --format torchscript --format safetensors --out "$TMP/$arch" > "$TMP/$arch.json" || true
  "$PY" - "$arch" "$TMP" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" <<'PYEOF'
import json, os, sys
arch, tmp, load_before, load_after = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
wall, user, sys_ = (float(v) for v in open(f"{tmp}/{arch}.time").read().split()[-3:])
report = json.load(open(f"{tmp}/{arch}.json"))
print(json.dumps({"arch": arch, "export": "onnx onnx-fp16 onnx-int8 tflite tflite-fp16 tflite-int8 torchscript safetensors, verified, with latency",
                  "status": report["status"], "wall_s": wall, "cpu_s": round(user + sys_, 2),
                  "user_s": user, "sys_s": sys_, "loadavg_1m_before": load_before, "loadavg_1m_after": load_after,
                  "cores": os.cpu_count(),
                  "phases": {p["phase"]: [round(p["wall_s"], 2), round(p["cpu_s"], 2)] for p in report.get("timing", [])},
                  "fp32_bytes": os.path.getsize(f"{tmp}/{arch}/model.onnx"),
                  "int8_bytes": os.path.getsize(f"{tmp}/{arch}/model.int8.onnx"),
                  "tflite_fp32_bytes": os.path.getsize(f"{tmp}/{arch}/model.tflite"),
                  "tflite_int8_bytes": os.path.getsize(f"{tmp}/{arch}/model.int8.tflite")}))
PYEOF
  # LiteRT (XNNPACK) runs the TFLite files at batch 1, as phones do; ONNX Runtime and OpenVINO
  # the ONNX files at batch 1 and 32. Each compare interleaves a format's three files.
  "$PY" "$ROOT/tests/parity/litert_run.py" compare 20 "$THREADS" \
    "$TMP/$arch/model.tflite" "$TMP/$arch/model.fp16.tflite" "$TMP/$arch/model.int8.tflite" > "$TMP/latency-litert.json"
  for batch in 1 32; do
    reps=$([ "$batch" = 1 ] && echo 20 || echo 3)
    for runtime in onnxruntime openvino; do
      "$PY" "$ROOT/tests/parity/ort_run.py" --runtime "$runtime" compare "$batch,3,224,224" "$reps" "$THREADS" \
        "$TMP/$arch/model.onnx" "$TMP/$arch/model.fp16.onnx" "$TMP/$arch/model.int8.onnx" > "$TMP/latency-$runtime-$batch.json"
    done
  done
  "$PY" - "$arch" "$TMP"/latency-*.json <<'PYEOF'
import json, sys
arch = sys.argv[1]
for path in sys.argv[2:]:
    r = json.load(open(path))
    # FP32, FP16 and INT8 by the file's name: model[.fp16|.int8].onnx|tflite
    names = {k: k.rsplit("/", 1)[-1].split(".") for k in r["ms_per_image"]}
    ms = {names[k][1] if len(names[k]) > 2 else "fp32": v for k, v in r["ms_per_image"].items()}
    runtime = r["runtime"] + (" xnnpack" if all(r.get("xnnpack", {"": False}).values()) else "")
    print(json.dumps({"arch": arch, "runtime": runtime, "batch": r["batch"],
                      "fp32_ms_per_image": round(ms["fp32"], 3), "fp16_ms_per_image": round(ms["fp16"], 3),
                      "int8_ms_per_image": round(ms["int8"], 3), "int8_speedup": round(ms["fp32"] / ms["int8"], 2)}))
PYEOF
done
