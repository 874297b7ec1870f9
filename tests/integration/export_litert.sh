#!/usr/bin/env bash
# lathe-cli export of TFLite files against the real runtime: for each CNN family (ResNet,
# MobileNetV3, EfficientNet, ConvNeXt) the FP32, FP16 and full-integer INT8 files Lathe writes
# itself run in LiteRT (PyPI ai-edge-litert, tests/parity/litert_run.py) and match torchvision (the
# venv's torch 2.11) holding the same weights: FP32 within 1e-4, FP16 on top-1 and within 5e-2,
# INT8 following the float model (correlation > 0.9) on real photos. The files describe
# themselves (metadata "lathe": labels, mean, std, input), labels.txt lies beside them, and
# --int8-io int8 gives an int8 model that LiteRT runs too; lathe-cli predict reads the files.
#   LATHE_PYTHON=.venv/bin/python export_litert.sh LATHE_CLI
set -euo pipefail
CLI="$1"
TEST=export_litert
source "$(dirname "$0")/export_setup.sh"

for arch in $ARCHES; do
  "$CLI" --json export --arch "$arch" --weights "$TMP/$arch.weights.safetensors" --image-size 64 \
    --verify-data "$TMP/photos" --calib-data "$TMP/photos" --calib-images 8 --no-benchmark \
    --format tflite --format tflite-fp16 --format tflite-int8 \
    --out "$TMP/$arch" > "$TMP/$arch.report.json" || fail "export of $arch failed: $(cat "$TMP/$arch.report.json")"
  for f in model.tflite model.fp16.tflite model.int8.tflite labels.txt report.json; do
    [ -f "$TMP/$arch/$f" ] || fail "$arch: $f missing"
  done
done
"$CLI" --json export --arch resnet18 --weights "$TMP/resnet18.weights.safetensors" --image-size 64 \
  --verify-data "$TMP/photos" --calib-data "$TMP/photos" --calib-images 8 --no-benchmark \
  --format tflite-int8 --int8-io int8 --out "$TMP/resnet18-int8io" > "$TMP/int8io.report.json" \
  || fail "export with --int8-io int8 failed: $(cat "$TMP/int8io.report.json")"

# The inputs: the photos (resized with PIL: any real pixels do, LiteRT and torchvision see the
# same ones) as normalised NHWC floats for the float files and as pixels for INT8; torchvision's
# outputs on them.
"$PY" - "$TMP" $ARCHES <<'PYEOF'
import sys
import numpy as np
import torch, torchvision
from PIL import Image
from safetensors.torch import load_file
torch.set_num_threads(1)
tmp, arches = sys.argv[1], sys.argv[2:]
names = ["baboon", "fruits", "HappyFish", "butterfly", "apple", "building", "home", "aero1"]
pixels = np.stack([np.asarray(Image.open(f"{tmp}/photos/{n}.jpg").convert("RGB").resize((64, 64), Image.BILINEAR))
                   for n in names]).astype(np.uint8)
pixels.tofile(f"{tmp}/pixels.u8.bin")
(pixels.astype(np.int16) - 128).astype(np.int8).tofile(f"{tmp}/pixels.i8.bin")
mean = np.array([0.485, 0.456, 0.406], np.float32)
std = np.array([0.229, 0.224, 0.225], np.float32)
normalised = torch.from_numpy(((pixels / 255.0 - mean) / std).astype(np.float32)).permute(0, 3, 1, 2).contiguous()
normalised.permute(0, 2, 3, 1).contiguous().numpy().tofile(f"{tmp}/x.nhwc.bin")
for arch in arches:
    model = getattr(torchvision.models, arch)(num_classes=10)
    model.load_state_dict(load_file(f"{tmp}/{arch}.weights.safetensors"), strict=True)
    model.eval()
    with torch.no_grad():
        model(normalised).numpy().tofile(f"{tmp}/{arch}.ref.bin")
PYEOF

run() { # MODEL INPUT OUTPUT
  "$PY" "$ROOT/tests/parity/litert_run.py" run "$1" "$2" "$3" > "$3.json" || fail "LiteRT could not run $1"
}
for arch in $ARCHES; do
  run "$TMP/$arch/model.tflite" "$TMP/x.nhwc.bin" "$TMP/$arch.fp32.out"
  run "$TMP/$arch/model.fp16.tflite" "$TMP/x.nhwc.bin" "$TMP/$arch.fp16.out"
  run "$TMP/$arch/model.int8.tflite" "$TMP/pixels.u8.bin" "$TMP/$arch.int8.out"
  "$PY" "$ROOT/tests/parity/litert_run.py" describe "$TMP/$arch/model.int8.tflite" > "$TMP/$arch.describe.json" \
    || fail "LiteRT could not describe $arch/model.int8.tflite"
done
run "$TMP/resnet18-int8io/model.int8.tflite" "$TMP/pixels.i8.bin" "$TMP/resnet18.int8io.out"

"$PY" - "$TMP" $ARCHES <<'PYEOF'
import json, sys
import numpy as np
tmp, arches = sys.argv[1], sys.argv[2:]
failures = []

def check(ok, what):
    if not ok:
        failures.append(what)

def load(path):
    return np.fromfile(path, dtype=np.float32).reshape(8, 10)

for arch in arches:
    ref = load(f"{tmp}/{arch}.ref.bin")
    scale = max(1.0, float(np.abs(ref).max()))
    check(ref.std() > 1e-2, f"{arch}: reference outputs nearly constant")
    fp32, fp16, int8 = load(f"{tmp}/{arch}.fp32.out"), load(f"{tmp}/{arch}.fp16.out"), load(f"{tmp}/{arch}.int8.out")
    d32, d16 = float(np.abs(fp32 - ref).max()), float(np.abs(fp16 - ref).max())
    top16 = float((fp16.argmax(1) == ref.argmax(1)).mean())
    corr8 = float(np.corrcoef(int8.ravel(), ref.ravel())[0, 1])
    top8 = float((int8.argmax(1) == ref.argmax(1)).mean())
    print(f"{arch}: LiteRT FP32 max|diff| {d32:.2e} (scale {scale:.2f}); FP16 max|diff| {d16:.2e}, top-1 {top16:.2f}; "
          f"INT8 correlation {corr8:.4f}, top-1 {top8:.2f}")
    check(d32 <= 1e-4 * scale, f"{arch}: LiteRT FP32 differs from torchvision by {d32}")
    check(d16 <= 5e-2 * scale and top16 == 1.0, f"{arch}: LiteRT FP16 differs from torchvision ({d16}, top-1 {top16})")
    check(np.isfinite(int8).all() and corr8 > 0.9, f"{arch}: LiteRT INT8 does not follow the float model ({corr8})")
    report = json.load(open(f"{tmp}/{arch}/report.json"))
    check(report["status"] == "passed", f"{arch}: report {report['status']}")
    by = {a["format"]: a for a in report["artifacts"]}
    check(by["tflite-int8"]["input"]["type"] == "UINT8", f"{arch}: INT8 input {by['tflite-int8']['input']}")
    check(by["tflite-int8"]["output"]["type"] == "UINT8", f"{arch}: INT8 output {by['tflite-int8']['output']}")
    d = json.load(open(f"{tmp}/{arch}.describe.json"))
    meta = d["metadata"]["lathe"]
    check(meta["labels"] == [f"class_{i}" for i in range(10)] and meta["image_size"] == 64 and meta["variant"] == "int8",
          f"{arch}: metadata {meta}")
    labels = open(f"{tmp}/{arch}/labels.txt").read().split("\n")
    check(labels[:10] == [f"class_{i}" for i in range(10)], f"{arch}: labels.txt {labels}")

int8io = load(f"{tmp}/resnet18.int8io.out")
u8 = load(f"{tmp}/resnet18.int8.out")
d = float(np.abs(int8io - u8).max())
print(f"resnet18 --int8-io int8 vs uint8 in LiteRT: max|diff| {d:.3e}")
check(d <= 0.15 * max(1.0, float(np.abs(u8).max())), f"resnet18: int8 and uint8 I/O disagree by {d}")
if failures:
    print("export_litert: " + "\n  ".join(failures), file=sys.stderr)
    sys.exit(1)
PYEOF
# predict classifies with a TFLite file through the reference runtime: FP32 and INT8 agree on
# the photos' top class.
for f in model.tflite model.int8.tflite; do
  "$CLI" --json predict --model "$TMP/resnet18/$f" --top 3 "$TMP"/photos/*.jpg > "$TMP/predict-$f.json" \
    || fail "predict --model $f failed: $(cat "$TMP/predict-$f.json")"
done
"$PY" - "$TMP/predict-model.tflite.json" "$TMP/predict-model.int8.tflite.json" <<'PYEOF' || fail "predict with the FP32 and INT8 TFLite files disagree"
import json, sys
fp32, int8 = (json.load(open(p)) for p in sys.argv[1:])
assert fp32["runtime"] == "tflite_reference", fp32["runtime"]
assert len(fp32["predictions"]) == 8 and all(len(p["top"]) == 3 for p in int8["predictions"])
agree = sum(a["top"][0]["index"] == b["top"][0]["index"] for a, b in zip(fp32["predictions"], int8["predictions"]))
assert agree >= 7, agree
assert fp32["predictions"][0]["top"][0]["label"].startswith("class_")
PYEOF
echo "export_litert: ok"
