#!/usr/bin/env bash
# lathe-cli export against independent runtimes: every exported ONNX file (FP32, FP16, INT8 QDQ)
# runs in ONNX Runtime (PyPI onnxruntime) and in OpenVINO (PyPI openvino, CPU, float32 inference
# precision) through tests/parity/ort_run.py, and each runtime's outputs match torchvision (the
# venv's torch 2.11) holding the exported safetensors (read by Hugging Face's safetensors, loaded
# with strict=True) within the same per-format limits; the two runtimes also agree with each other
# within those limits. The TorchScript file loads with torch.jit.load and matches too.
#   LATHE_PYTHON=.venv/bin/python export_onnxruntime.sh LATHE_CLI
set -euo pipefail
CLI="$1"
TEST=export_onnxruntime
source "$(dirname "$0")/export_setup.sh"

for arch in $ARCHES; do
  "$CLI" --json export --arch "$arch" --weights "$TMP/$arch.weights.safetensors" --image-size 64 \
    --verify-data "$TMP/photos" --calib-data "$TMP/photos" --calib-images 8 --no-benchmark \
    --format onnx --format onnx-fp16 --format onnx-int8 --format torchscript --format safetensors \
    --out "$TMP/$arch" > "$TMP/$arch.report.json" || fail "export of $arch failed: $(cat "$TMP/$arch.report.json")"
  for f in model.onnx model.fp16.onnx model.int8.onnx model.pt model.safetensors model.json report.json; do
    [ -f "$TMP/$arch/$f" ] || fail "$arch: $f missing"
  done
done

# torchvision with the exported weights: the reference outputs, and TorchScript against them.
"$PY" - "$TMP" $ARCHES <<'PYEOF'
import json, sys
import torch, torchvision
from safetensors.torch import load_file
torch.set_num_threads(1)
tmp, arches = sys.argv[1], sys.argv[2:]

for arch in arches:
    meta = json.load(open(f"{tmp}/{arch}/model.json"))
    assert meta["arch"] == arch and meta["num_classes"] == 10, meta
    model = getattr(torchvision.models, arch)(num_classes=10)
    model.load_state_dict(load_file(f"{tmp}/{arch}/model.safetensors"), strict=True)
    model.eval()
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 3, 64, 64, generator=g)
    with torch.no_grad():
        ref = model(x)
        ts = torch.jit.load(f"{tmp}/{arch}/model.pt")(x)
    scale = max(1.0, ref.abs().max().item())
    d = (ts - ref).abs().max().item()
    assert d <= 1e-4 * scale, f"{arch}: TorchScript differs from torchvision by {d}"
    x.numpy().tofile(f"{tmp}/{arch}.input.bin")
    ref.numpy().tofile(f"{tmp}/{arch}.ref.bin")
    print(f"{arch}: torchvision strict load ok, TorchScript max|diff| {d:.2e}")
PYEOF

for arch in $ARCHES; do
  for f in model.onnx model.fp16.onnx model.int8.onnx; do
    "$PY" "$ROOT/tests/parity/ort_run.py" run "$TMP/$arch/$f" "$TMP/$arch.input.bin" 4,3,64,64 "$TMP/$arch.$f.onnxruntime.bin" > /dev/null \
      || fail "ONNX Runtime could not run $arch/$f"
    "$PY" "$ROOT/tests/parity/ort_run.py" --runtime openvino run "$TMP/$arch/$f" "$TMP/$arch.input.bin" 4,3,64,64 "$TMP/$arch.$f.openvino.bin" > /dev/null \
      || fail "OpenVINO could not run $arch/$f"
  done
done

"$PY" - "$TMP" $ARCHES <<'PYEOF'
import sys
import numpy as np
tmp, arches = sys.argv[1], sys.argv[2:]
# FP32: as tight as float arithmetic allows; FP16: float16 storage; INT8: 8-bit steps on random
# weights (the accuracy of INT8 on a trained model is the unit test's).
# The same limits hold for each runtime against torchvision and for the runtimes against each other.
limits = {"model.onnx": 1e-4, "model.fp16.onnx": 5e-2, "model.int8.onnx": 0.5}
runtimes = {"onnxruntime": "ONNX Runtime", "openvino": "OpenVINO"}
failures = []
def agree(what, out, ref, limit, scale, int8):
    """max|diff| and correlation of out against ref; a failure message appended if over the limits."""
    d = float(np.abs(out - ref).max())
    corr = float(np.corrcoef(out.ravel(), ref.ravel())[0, 1])
    if not d <= limit * scale:
        failures.append(f"{what}: max|diff| {d:.3g} over {limit * scale:.3g}")
    if int8 and not corr > 0.9:
        failures.append(f"{what}: INT8 outputs do not follow (correlation {corr:.4f})")
    return f"max|diff| {d:.2e}, correlation {corr:.4f}"
for arch in arches:
    ref = np.fromfile(f"{tmp}/{arch}.ref.bin", dtype=np.float32).reshape(4, 10)
    scale = max(1.0, float(np.abs(ref).max()))
    assert ref.std() > 1e-2, f"{arch}: reference outputs nearly constant"
    for f, limit in limits.items():
        outs = {}
        for rt in runtimes:
            outs[rt] = np.fromfile(f"{tmp}/{arch}.{f}.{rt}.bin", dtype=np.float32).reshape(4, 10)
            assert np.isfinite(outs[rt]).all(), f"{arch}/{f}: non-finite outputs from {runtimes[rt]}"
        int8 = f == "model.int8.onnx"
        line = "; ".join(f"{runtimes[rt]} {agree(f'{arch}/{f}: {runtimes[rt]} vs torchvision', outs[rt], ref, limit, scale, int8)}"
                         for rt in runtimes)
        both = agree(f"{arch}/{f}: OpenVINO vs ONNX Runtime", outs["openvino"], outs["onnxruntime"], limit, scale, int8)
        print(f"{arch} {f} (scale {scale:.2f}): {line}; OpenVINO vs ONNX Runtime {both}")
assert not failures, "; ".join(failures)
PYEOF

# predict runs an exported file through OpenCV DNN.
"$CLI" --json predict --model "$TMP/resnet18/model.onnx" --top 3 "$TMP/photos/baboon.jpg" > "$TMP/predict.json" \
  || fail "predict failed"
grep -q '"label": "class_' "$TMP/predict.json" || fail "predict printed no labels: $(cat "$TMP/predict.json")"
# The same verb with a weights file (the exported safetensors) on a folder: the same top class.
"$CLI" --json predict --weights "$TMP/resnet18/model.safetensors" --arch resnet18 --image-size 64 --top-k 3 "$TMP/photos" \
  > "$TMP/predict-weights.json" || fail "predict --weights failed"
"$PY" - "$TMP/predict.json" "$TMP/predict-weights.json" <<'PYEOF' || fail "predict --model and --weights disagree"
import json, sys
onnx, weights = (json.load(open(p)) for p in sys.argv[1:])
by_path = {r["path"].rsplit("/", 1)[-1]: r for r in weights}
assert len(by_path) == 8, by_path.keys()
assert by_path["baboon.jpg"]["predictions"][0]["index"] == onnx["predictions"][0]["top"][0]["index"]
PYEOF
# Exactly one model source.
if "$CLI" predict "$TMP/photos/baboon.jpg" 2> "$TMP/err"; then fail "predict without a model succeeded"; fi
grep -q -- "--model FILE.onnx, --run RUN_DIR or --weights FILE" "$TMP/err" || fail "unclear error: $(cat "$TMP/err")"
if "$CLI" predict --model "$TMP/resnet18/model.onnx" --weights "$TMP/resnet18/model.safetensors" "$TMP/photos" 2> "$TMP/err"; then
  fail "predict with two models succeeded"
fi
grep -q "give only one" "$TMP/err" || fail "unclear error: $(cat "$TMP/err")"
echo "export_onnxruntime: ok"
