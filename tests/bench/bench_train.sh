#!/usr/bin/env bash
# Training throughput: `lathe-cli bench train` against PyTorch (torch_train_reference.py, same
# models, synthetic data, SGD, fp32, 64x64, batch 32, 2 threads), measured in the same run,
# alternating so both see the same machine load. Prints one JSON document with, per model:
#   lathe            lathe-cli as users run it (it asks OpenMP for passive waits, see trainer.h)
#   pytorch          PyTorch with the environment as given (GNU OpenMP spins by default)
#   pytorch_passive  PyTorch with OMP_WAIT_POLICY=PASSIVE: the same per-step work as Lathe's
# the ratios of images/s and of CPU time per step, and the load average before and after.
# Usage: bench_train.sh LATHE_CLI [STEPS]
set -euo pipefail
CLI=$1
STEPS=${2:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
PY="${LATHE_PYTHON:-$HERE/../../.venv/bin/python}" # torch 2.11 of the project venv
ARGS=(--image-size 64 --batch 32 --steps "$STEPS" --threads 2)
load() { cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g'; }
out="{\"load_before\": [$(load)]"
for arch in resnet18 mobilenet_v3_small; do
    lathe=$("$CLI" bench train --arch "$arch" "${ARGS[@]}" --precision fp32)
    torch=$($PY "$HERE/torch_train_reference.py" --arch "$arch" "${ARGS[@]}")
    passive=$(OMP_WAIT_POLICY=PASSIVE $PY "$HERE/torch_train_reference.py" --arch "$arch" "${ARGS[@]}")
    ratios=$($PY - "$lathe" "$torch" "$passive" <<'PYEOF'
import json, sys
lathe, torch, passive = (json.loads(a) for a in sys.argv[1:])
def r(a, b): return round(a / b, 3)
print(json.dumps({"lathe_over_pytorch": r(lathe["images_per_s"], torch["images_per_s"]),
                  "lathe_over_pytorch_passive": r(lathe["images_per_s"], passive["images_per_s"]),
                  "cpu_per_step_lathe_over_pytorch": r(lathe["cpu_ms_per_step"], torch["cpu_ms_per_step"]),
                  "cpu_per_step_lathe_over_pytorch_passive": r(lathe["cpu_ms_per_step"], passive["cpu_ms_per_step"])}))
PYEOF
)
    out+=", \"$arch\": {\"lathe\": $lathe, \"pytorch\": $torch, \"pytorch_passive\": $passive, \"ratios\": $ratios}"
done
out+=", \"load_after\": [$(load)]}"
$PY -c "import json,sys; print(json.dumps(json.loads(sys.argv[1]), indent=2))" "$out"
