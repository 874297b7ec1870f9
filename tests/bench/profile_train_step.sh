#!/usr/bin/env bash
# Where a training step's CPU time goes, Lathe against PyTorch 2.11 on the same row of
# bench_train.sh: both sides run under `perf record -e cpu-clock` (a software clock, so it works in
# a VM without hardware counters) and every sample is put in one bucket by the shared object and
# symbol it fell in:
#   onednn_jit     code oneDNN generates at run time (convolutions, pooling, ...)
#   aten_kernels   LibTorch's own compute: MKL/oneDNN/BLAS symbols and ATen's vectorised and
#                  OpenMP-outlined loops (the same libtorch_cpu.so on both sides)
#   framework      the rest of LibTorch (dispatcher, autograd engine, tensor bookkeeping)
#   openmp_runtime libgomp (its barriers; spinning waits land here)
#   python         the interpreter and its extension modules (PyTorch only)
#   libc           memset/memcpy, malloc, and the dynamic loader (start-up)
#   os             the Linux kernel (page faults, scheduling, futexes)
#   other          everything else
# Both sides take the same steps, so equal compute buckets mean equal kernel work; what differs is
# the overhead around it. Samples cover the whole process (start-up and warm-up included).
# Prints one JSON document: per side images/s and CPU ms per step of the timed steps (the tool's
# own JSON), the buckets in CPU seconds and shares, the top symbols, and the load.
# Usage: profile_train_step.sh LATHE_CLI ARCH IMAGE_SIZE BATCH OPTIMIZER [STEPS=20]
set -euo pipefail
CLI=$1 ARCH=$2 SIZE=$3 BATCH=$4 OPTIMIZER=$5 STEPS=${6:-20}
HERE=$(cd "$(dirname "$0")" && pwd)
PY="${LATHE_PYTHON:-$HERE/../../.venv/bin/python}"
FREQ=999
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }

args=(--arch "$ARCH" --image-size "$SIZE" --batch "$BATCH" --steps "$STEPS" --threads 2
      --optimizer "$OPTIMIZER" --precision fp32)
before=$(load)
perf record -q -e cpu-clock -F "$FREQ" -o "$WORK/lathe.data" -- "$CLI" bench train "${args[@]}" >"$WORK/lathe.json" 2>/dev/null
perf record -q -e cpu-clock -F "$FREQ" -o "$WORK/pytorch.data" -- "$PY" "$HERE/torch_train_reference.py" "${args[@]}" >"$WORK/pytorch.json" 2>/dev/null
after=$(load)
for side in lathe pytorch; do
    perf report -i "$WORK/$side.data" --sort dso,sym --stdio --percent-limit 0 -F sample,dso,sym 2>/dev/null >"$WORK/$side.txt"
done

"$PY" - "$WORK" "$FREQ" "$before" "$after" "$CLI bench train ${args[*]}" "$PY $HERE/torch_train_reference.py ${args[*]}" <<'PYEOF'
import json, re, sys
work, freq, before, after, lathe_cmd, torch_cmd = sys.argv[1:]
freq = float(freq)
COMPUTE = re.compile(r"dnnl|mkl|gemm|_omp_fn|Vectorized|vec::|vectorized|cpu_kernel|_kernel_impl|"
                     r"kernel<|Kernel|batch_norm_cpu|max_pool|adaptive_avg|_fused_|add_stub|relu|threshold", re.I)

def bucket(dso, sym):
    if dso.startswith("[JIT]"):
        return "onednn_jit"
    if dso.startswith("[kernel"):
        return "os"
    if "libgomp" in dso or "libiomp" in dso:
        return "openmp_runtime"
    if dso.startswith("python") or "libpython" in dso or dso.endswith(".cpython-312-x86_64-linux-gnu.so") \
            or "cpython" in dso or dso.startswith("_C") or "libtorch_python" in dso:
        return "python"
    if dso.startswith(("libc.so", "libc-", "ld-linux", "libm.so", "libstdc++", "libgcc")):
        return "libc"
    if dso.startswith(("libtorch", "libc10", "liblathe", "lathe-cli", "libmkl", "libdnnl", "libblas", "libopenblas")):
        return "aten_kernels" if COMPUTE.search(sym) or dso.startswith(("libmkl", "libdnnl", "libblas", "libopenblas")) \
            else "framework"
    return "other"

out = {"command_lathe": lathe_cmd, "command_pytorch": torch_cmd, "load_before": before, "load_after": after,
       "perf": "perf record -e cpu-clock -F %d" % freq}
for side in ("lathe", "pytorch"):
    tool = json.loads(open(f"{work}/{side}.json").read().strip().splitlines()[-1])
    buckets, per_symbol = {}, {}
    for line in open(f"{work}/{side}.txt"):
        if not line.strip() or line.startswith("#"):
            continue
        m = re.match(r"\s*(\d+)\s+(.+?)\s+\[.\]\s+(.*)", line)
        if not m:
            continue
        samples, dso, sym = int(m.group(1)), m.group(2), m.group(3).strip()
        if dso.startswith("[JIT]"):
            dso, sym = "[JIT]", "oneDNN generated code"
        b = bucket(dso, sym)
        buckets[b] = buckets.get(b, 0) + samples
        per_symbol[(dso, sym, b)] = per_symbol.get((dso, sym, b), 0) + samples
    symbols = [(n, d, y, b) for (d, y, b), n in per_symbol.items()]
    total = sum(buckets.values()) or 1
    symbols.sort(reverse=True)
    out[side] = {
        "images_per_s": round(tool["images_per_s"], 1),
        "cpu_ms_per_step": round(tool["cpu_ms_per_step"], 1),
        "phases_ms": [round(tool[k], 1) for k in ("forward_ms", "backward_ms", "optimizer_ms")],
        "cpu_s": {k: round(v / freq, 2) for k, v in sorted(buckets.items(), key=lambda kv: -kv[1])},
        "share": {k: round(v / total, 3) for k, v in sorted(buckets.items(), key=lambda kv: -kv[1])},
        "top_symbols": [{"cpu_s": round(s / freq, 2), "dso": d, "symbol": y[:120], "bucket": b}
                        for s, d, y, b in symbols[:15]],
    }
l, p = out["lathe"], out["pytorch"]
compute = ("onednn_jit", "aten_kernels")
out["lathe_over_pytorch"] = round(l["images_per_s"] / p["images_per_s"], 3)
out["compute_cpu_s"] = {s: round(sum(out[s]["cpu_s"].get(k, 0) for k in compute), 2) for s in ("lathe", "pytorch")}
print(json.dumps(out, indent=1))
PYEOF
