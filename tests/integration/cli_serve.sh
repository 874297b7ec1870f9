#!/usr/bin/env bash
# lathe-cli serve end to end on 127.0.0.1: two small real exports (ResNet-18 at 32 px, 3 classes,
# torchvision weights with BatchNorm statistics and head moved off their initial values), served
# with TF Serving's REST API and driven by serve_client.py (the venv's Python, urllib): every
# endpoint, every error path (hostile bodies, bombs, bad base64, wrong shapes and dtypes), the
# predictions against `lathe-cli predict` and TorchScript in PyTorch, dynamic batching, the
# bounded queue's 503, bearer auth, hot reload under load (a good version switched to, a failed
# and a corrupt one refused), SIGTERM draining a request in flight. Loops are bounded; nothing
# asserts on timings. Then tfserving_api_client.py drives a server of version 1 and of its
# --softmax --preprocessing export (uint8 input, one output) as a TF Serving client: TF Serving's
# documented REST requests, and tensorflow-serving-api's protobufs (PredictRequest,
# ClassificationRequest, GetModelStatus/GetModelMetadata) mapped to REST JSON the way TF Serving
# maps them and the answers parsed back into its response protobufs. Exits 77 (skipped) when the
# venv has no tensorflow-serving-api (python/requirements-nodeps.txt), after serve_client passed.
#   LATHE_PYTHON=.venv/bin/python cli_serve.sh LATHE_CLI
set -euo pipefail
CLI="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/assert.sh"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

mkdir "$TMP/photos"
for f in baboon.jpg fruits.jpg HappyFish.jpg butterfly.jpg apple.jpg home.jpg box.png; do
  cp "/usr/share/doc/opencv-doc/examples/data/$f" "$TMP/photos/"
done

"$PY" - "$TMP" <<'PYEOF'
import sys
import torch, torchvision
from safetensors.torch import save_file
torch.set_num_threads(1)
tmp = sys.argv[1]
for version in (1, 2):
    torch.manual_seed(version)
    model = torchvision.models.resnet18(num_classes=3)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.normal_(0, 0.2); m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5); m.bias.normal_(0, 0.2)
        model.fc.weight.normal_(0, 0.2); model.fc.bias.normal_(0, 0.5)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, f"{tmp}/w{version}.safetensors")
PYEOF

export_model() { # VERSION OUT FORMATS... (and export flags, --softmax)
  local v="$1" out="$2"; shift 2
  local formats=()
  for f in "$@"; do
    case "$f" in --*) formats+=("$f") ;; *) formats+=(--format "$f") ;; esac
  done
  "$CLI" --json export --arch resnet18 --weights "$TMP/w$v.safetensors" --labels cat dog fish --image-size 32 \
    --verify-data "$TMP/photos" --verify-images 4 --accuracy-images 0 --no-benchmark "${formats[@]}" --out "$out" \
    > "$out.report.json" || fail "export of version $v failed: $(cat "$out.report.json")"
}
export_model 1 "$TMP/e1" torchscript safetensors onnx
export_model 2 "$TMP/e2" torchscript
export_model 1 "$TMP/e3" torchscript --softmax --preprocessing

# The reference: lathe-cli predict with the same weights (every class's probability).
for v in 1 2; do
  "$CLI" --json predict --weights "$TMP/w$v.safetensors" --arch resnet18 --image-size 32 --classes cat,dog,fish \
    --top-k 3 "$TMP/photos" > "$TMP/predict$v.json" || fail "predict with version $v failed"
done

"$PY" "$HERE/serve_client.py" "$CLI" "$TMP"
rc=0
"$PY" "$HERE/tfserving_api_client.py" "$CLI" "$TMP" || rc=$?
if [ "$rc" -eq 77 ]; then
  echo "cli_serve: serve_client ok; the tensorflow-serving-api checks were skipped (run scripts/install-python.sh)"
  exit 77
fi
[ "$rc" -eq 0 ] || fail "tfserving_api_client.py exited with $rc"
echo "cli_serve: ok"
