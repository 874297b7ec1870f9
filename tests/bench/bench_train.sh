#!/usr/bin/env bash
# Training throughput: `lathe-cli bench train` against PyTorch 2.11 (the venv's, the version of
# the LibTorch the default build links; tests/bench/torch_train_reference.py), same models,
# synthetic data, 2 threads. Rows: ResNet-18, ResNet-50 and MobileNetV3-Small at 64 px batch 32
# and ResNet-18 at 224 px batch 16, each with SGD and AdamW, in fp32 and bf16 (CPU autocast on
# both sides). Each row is the best of ROUNDS runs per side, the sides alternating so both see the
# same machine load. Sides:
#   lathe            lathe-cli as users run it (its OpenMP wait policy, see trainer.h)
#   lathe_passive    the same with GOMP_SPINCOUNT=0: OpenMP's threads sleep at once after a
#                    parallel region instead of spinning ~30 us first (the setting for a machine
#                    shared with other work; app/common/passive_openmp_waits.cpp)
#   pytorch          PyTorch with the environment as given (GNU OpenMP spins by default)
# Prints one JSON document: per row both sides' best images/s, CPU ms per step and the step's
# forward/backward/optimizer split, the ratio,
# the load average before and after, and the commands.
# Usage: bench_train.sh LATHE_CLI [STEPS=10] [ROUNDS=3] [ROWS=auto|all|quick]
#   auto: the bf16 rows only where the CPU computes bf16 natively (avx512_bf16 or amx_bf16); on
#         others both sides emulate it about 28x slower than fp32 (measured 2026-12-03 on an AVX2
#         EPYC, ResNet-18 64 px: Lathe 3.34, PyTorch 3.42 images/s), and the JSON says it skipped them
#   all:  every row;  quick: only the SGD fp32 rows of the 64 px models (a fast check)
set -euo pipefail
CLI=$1
STEPS=${2:-10}
ROUNDS=${3:-3}
ROWS=${4:-auto}
bf16_skipped=null
if [ "$ROWS" = auto ] && ! grep -qE 'avx512_bf16|amx_bf16' /proc/cpuinfo; then
    bf16_skipped='"this CPU has no native bf16 (avx512_bf16, amx_bf16)"'
fi
HERE=$(cd "$(dirname "$0")" && pwd)
PY="${LATHE_PYTHON:-$HERE/../../.venv/bin/python}" # torch 2.11 of the project venv
load() { cut -d' ' -f1-3 /proc/loadavg | sed 's/ /, /g'; }

rows=() # arch image_size batch optimizer precision
for precision in fp32 bf16; do
    [ "$precision" = bf16 ] && { [ "$ROWS" = quick ] || [ "$bf16_skipped" != null ]; } && continue
    for optimizer in sgd adamw; do
        [ "$ROWS" = quick ] && [ "$optimizer" = adamw ] && continue
        for arch in resnet18 resnet50 mobilenet_v3_small; do
            rows+=("$arch 64 32 $optimizer $precision")
        done
        [ "$ROWS" = quick ] || rows+=("resnet18 224 16 $optimizer $precision")
    done
done

results=()
before=$(load)
for row in "${rows[@]}"; do
    read -r arch size batch optimizer precision <<<"$row"
    args=(--arch "$arch" --image-size "$size" --batch "$batch" --steps "$STEPS" --threads 2
          --optimizer "$optimizer" --precision "$precision")
    lathe_cmd=("$CLI" bench train "${args[@]}")
    passive_cmd=(env GOMP_SPINCOUNT=0 "${lathe_cmd[@]}")
    torch_cmd=("$PY" "$HERE/torch_train_reference.py" "${args[@]}")
    runs=()
    for _ in $(seq "$ROUNDS"); do
        runs+=("$("${lathe_cmd[@]}")" "$("${passive_cmd[@]}")" "$("${torch_cmd[@]}")")
    done
    results+=("$(
        "$PY" - "${lathe_cmd[*]}" "${passive_cmd[*]}" "${torch_cmd[*]}" "${runs[@]}" <<'PYEOF'
import json, sys
lathe_cmd, passive_cmd, torch_cmd, *runs = sys.argv[1:]
runs = [json.loads(r) for r in runs]
lathe = max(runs[0::3], key=lambda r: r["images_per_s"])
passive = max(runs[1::3], key=lambda r: r["images_per_s"])
torch = max(runs[2::3], key=lambda r: r["images_per_s"])
print(json.dumps({
    "arch": lathe["arch"], "image_size": lathe["image_size"], "batch": lathe["batch"],
    "optimizer": lathe["optimizer"], "precision": lathe["precision"],
    "lathe_images_per_s": round(lathe["images_per_s"], 1),
    "pytorch_images_per_s": round(torch["images_per_s"], 1),
    "lathe_over_pytorch": round(lathe["images_per_s"] / torch["images_per_s"], 3),
    "lathe_passive_images_per_s": round(passive["images_per_s"], 1),
    "lathe_passive_over_pytorch": round(passive["images_per_s"] / torch["images_per_s"], 3),
    "lathe_cpu_ms_per_step": round(lathe["cpu_ms_per_step"], 1),
    "pytorch_cpu_ms_per_step": round(torch["cpu_ms_per_step"], 1),
    # Where each side's best step went, ms: forward with the loss, backward, optimizer step.
    "lathe_phases_ms": [round(lathe[k], 1) for k in ("forward_ms", "backward_ms", "optimizer_ms")],
    "pytorch_phases_ms": [round(torch[k], 1) for k in ("forward_ms", "backward_ms", "optimizer_ms")],
    "lathe_omp_wait_policy": lathe["omp_wait_policy"],
    "commands": {"lathe": lathe_cmd, "lathe_passive": passive_cmd, "pytorch": torch_cmd},
}))
PYEOF
    )")
    echo "${results[-1]}" >&2
done
"$PY" - "$before" "$(load)" "$ROUNDS" "$bf16_skipped" "${results[@]}" <<'PYEOF'
import json, sys
before, after, rounds, bf16_skipped, *rows = sys.argv[1:]
rows = [json.loads(r) for r in rows]
ratios = [r["lathe_over_pytorch"] for r in rows]
passive_ratios = [r["lathe_passive_over_pytorch"] for r in rows]
print(json.dumps({"benchmark": "train_step", "rounds": int(rounds), "torch_threads": 2,
                  "load_before": [float(x) for x in before.split(", ")],
                  "load_after": [float(x) for x in after.split(", ")],
                  "bf16_skipped": json.loads(bf16_skipped),
                  "min_ratio": min(ratios), "min_passive_ratio": min(passive_ratios), "rows": rows}, indent=2))
PYEOF
