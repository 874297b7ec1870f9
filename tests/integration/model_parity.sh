#!/usr/bin/env bash
# Every registry backbone against torchvision (the project venv's 0.26 with torch 2.11), both ways:
#  1. torchvision's weights (safetensors and torch.save .pth) loaded by `lathe-cli forward`
#     give torchvision's eval-mode output;
#  2. weights Lathe saves load into torchvision with strict=True and give Lathe's output.
# Plus: ImageNet-style 1000-class weights into --num-classes 7 report the head replacement,
# a grey-image model adapts the stem, and weights of another architecture are refused.
# Usage: model_parity.sh LATHE_CLI [ARCH...]   (default: every architecture of `lathe-cli models`)
set -uo pipefail
CLI="$1"
shift
source "$(dirname "$0")/assert.sh"
PARITY="$(cd "$(dirname "$0")/../parity" && pwd)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TOL=1e-4

"$PY" -c 'import torch, torchvision' || fail "$PY lacks torch/torchvision: run scripts/install-python.sh"

archs=("$@")
if [ ${#archs[@]} -eq 0 ]; then
  models=$("$CLI" --json models) || fail "models"
  mapfile -t archs < <(json_get '"\n".join(m["name"] for m in d)' <<<"$models")
fi
[ ${#archs[@]} -ge 1 ] || fail "no architectures"

# The smallest input each family takes keeps this fast; ViT's position embeddings fix 224.
size_of() {
  case "$1" in
    vit_*) echo 224 ;;
    *) echo 64 ;;
  esac
}

table="$(printf '%-20s %5s %12s %12s %10s %12s %12s %10s' ARCH SIZE SAFETENSORS PTH '|OUTPUT|' RESAVED INIT '|OUTPUT|')"
failed=0
for arch in "${archs[@]}"; do
  dir="$TMP/$arch"
  size=$(size_of "$arch")
  $PY "$PARITY/torchvision_reference.py" "$arch" "$dir" --size "$size" || fail "$arch: torchvision reference"
  # torchvision's weights in both formats; the .pth run also saves what Lathe loaded.
  "$CLI" forward --arch "$arch" --weights "$dir/weights.safetensors" --input "$dir/input.safetensors" \
    --output "$dir/out-st.safetensors" >"$dir/log" 2>&1 || { cat "$dir/log"; fail "$arch: forward with safetensors"; }
  "$CLI" forward --arch "$arch" --weights "$dir/weights.pth" --input "$dir/input.safetensors" \
    --output "$dir/out-pth.safetensors" --save-weights "$dir/resaved.safetensors" >"$dir/log" 2>&1 \
    || { cat "$dir/log"; fail "$arch: forward with .pth"; }
  out=$($PY "$PARITY/compare_outputs.py" "$dir/expected.safetensors" "$dir/out-st.safetensors" \
    "$dir/out-pth.safetensors" --tolerance $TOL) || { echo "MISMATCH: $arch: $out" >&2; failed=1; }
  read -r st pth scale <<<"$out"
  rm -f "$dir/weights.pth" "$dir/weights.safetensors"
  # Reverse: weights Lathe saved load into torchvision with strict=True and give Lathe's output,
  # both for torchvision's weights passed through Lathe and for Lathe's own initialisation.
  out=$($PY "$PARITY/check_lathe_weights.py" "$arch" "$dir/resaved.safetensors" "$dir/input.safetensors" \
    "$dir/out-pth.safetensors" --tolerance $TOL 2>&1) || { echo "MISMATCH: $arch resaved: $out" >&2; failed=1; }
  read -r resaved _ <<<"$out"
  rm -f "$dir/resaved.safetensors"
  "$CLI" forward --arch "$arch" --input "$dir/input.safetensors" --output "$dir/lathe.safetensors" \
    --save-weights "$dir/lathe-weights.safetensors" >"$dir/log" 2>&1 || { cat "$dir/log"; fail "$arch: forward --save-weights"; }
  out=$($PY "$PARITY/check_lathe_weights.py" "$arch" "$dir/lathe-weights.safetensors" "$dir/input.safetensors" \
    "$dir/lathe.safetensors" --tolerance $TOL 2>&1) || { echo "MISMATCH: $arch init: $out" >&2; failed=1; }
  read -r init initScale <<<"$out"
  table+=$'\n'"$(printf '%-20s %5s %12s %12s %10s %12s %12s %10s' "$arch" "$size" "$st" "$pth" "$scale" "$resaved" \
    "$init" "$initScale")"
  # Keep the disk use of the big models down.
  rm -rf "$dir"
done
echo "$table"
echo "(max abs differences: torchvision's weights from safetensors and .pth vs torchvision's output;"
echo " RESAVED: those weights saved by Lathe, in torchvision; INIT: Lathe's initialisation saved, in torchvision."
echo " |OUTPUT|: the largest output magnitude. Pass: difference <= $TOL x max(1, |OUTPUT|).)"
[ $failed -eq 0 ] || fail "parity"

# 1000-class weights into 7 classes: the head is replaced and the report says so.
$PY "$PARITY/torchvision_reference.py" resnet18 "$TMP/r18" --size 64 || fail "resnet18 reference"
out=$("$CLI" --json forward --arch resnet18 --weights "$TMP/r18/weights.pth" --num-classes 7 \
  --input "$TMP/r18/input.safetensors" --output "$TMP/r18/out7.safetensors") || fail "forward --num-classes 7"
expect_eq "$(json_get 'd["load"]["head_replaced"]' <<<"$out")" "True" "head replaced"
expect_eq "$(json_get 'd["output_shape"]' <<<"$out")" "[2, 7]" "7-class output"
expect_contains "$(json_get 'd["load"]["text"]' <<<"$out")" "Head replaced" "report text"
text=$("$CLI" forward --arch resnet18 --weights "$TMP/r18/weights.safetensors" --num-classes 7 \
  --input "$TMP/r18/input.safetensors" --output "$TMP/r18/out7.safetensors") || fail "forward text"
expect_contains "$text" "Head replaced" "text output"

# A grey model: the stem is adapted; its output on grey x equals the RGB model's on (x, x, x).
$PY - "$PARITY" "$TMP/r18" <<'PY' || fail "grey input"
import sys, torch
sys.path.insert(0, sys.argv[1])
import safetensors_io
x = safetensors_io.load(sys.argv[2] + "/input.safetensors")["input"][:, :1]
safetensors_io.save(sys.argv[2] + "/grey.safetensors", {"input": x.contiguous()})
safetensors_io.save(sys.argv[2] + "/grey3.safetensors", {"input": x.repeat(1, 3, 1, 1).contiguous()})
PY
out=$("$CLI" --json forward --arch resnet18 --weights "$TMP/r18/weights.pth" --in-channels 1 \
  --input "$TMP/r18/grey.safetensors" --output "$TMP/r18/grey-out.safetensors") || fail "forward --in-channels 1"
expect_contains "$(json_get 'd["load"]["stem_adapted"]' <<<"$out")" "summed into 1 input channel" "stem adapted"
"$CLI" forward --arch resnet18 --weights "$TMP/r18/weights.pth" --input "$TMP/r18/grey3.safetensors" \
  --output "$TMP/r18/grey3-out.safetensors" >/dev/null || fail "forward grey x3"
$PY "$PARITY/compare_outputs.py" "$TMP/r18/grey3-out.safetensors" "$TMP/r18/grey-out.safetensors" >/dev/null \
  || fail "grey model differs from the RGB model on a grey image"

# Weights of another architecture are refused, naming the file and what did not fit.
err=$("$CLI" forward --arch resnet34 --weights "$TMP/r18/weights.pth" --input "$TMP/r18/input.safetensors" \
  --output "$TMP/r18/o.safetensors" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] || fail "resnet18 weights into resnet34 must fail"
expect_contains "$err" "weights.pth: does not fit resnet34" "refusal"
expect_contains "$err" "Missing from the file" "refusal lists missing tensors"
# A hostile weights file: an error naming it, no crash.
printf 'PK\003\004garbage' > "$TMP/bad.pth"
err=$("$CLI" forward --arch resnet18 --weights "$TMP/bad.pth" --input "$TMP/r18/input.safetensors" \
  --output "$TMP/r18/o.safetensors" 2>&1 >/dev/null); rc=$?
[ $rc -eq 1 ] || fail "hostile .pth: exit $rc"
expect_contains "$err" "bad.pth" "hostile .pth named"
echo "model parity: OK"
