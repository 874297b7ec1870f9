#!/usr/bin/env bash
# Input pipeline benchmark: `lathe-cli bench pipeline` against its peers on the same ~500x375
# JPEG photos, all with two threads/workers, batch 64, the ImageNet training recipe (random
# resized crop to 224 (area 0.08-1, aspect 3/4-4/3) + random horizontal flip + ImageNet
# mean/std normalisation), each side giving float32 batches:
#   lathe         lathe-cli bench pipeline on the shards (NCHW); lathe_cached adds --cache-mb
#                 (decoded images in RAM: the first epoch decodes, later ones crop from RAM)
#   torchvision   tests/bench/torchvision_loader.py: DataLoader over the image folder (NCHW)
#   tfdata        tests/bench/tfdata_loader.py: tf.data over the same shards, ROI decode
#                 (decode_and_crop_jpeg) as TF's performance guide writes it (NHWC, TF's own
#                 layout); tfdata_cached adds --cache (tf.data cache() of the decoded images,
#                 the first epoch in its warm-up)
#   dali          tests/bench/dali_loader.py: NVIDIA DALI's CPU-only pipeline (device_id=None)
#                 over the same shards and .idx files, ROI decode (NCHW); if DALI cannot run
#                 here its error is recorded as dali_error
#   decode        one core's full-size libjpeg-turbo decode rate (`--augment decode-only`), so
#                 "lathe >= 70% of two cores' full-size decode rate" can be checked
#   lathe_threads_1 (and lathe_threads_$(nproc) when nproc > 2): Lathe without cache at other
#                 thread counts, for lathe_thread_scaling (its "2" is the lathe side)
# Prints one JSON line with wall-clock rates and, because a shared machine's neighbours skew
# those, rates per CPU second (all threads/processes of each side, after its warm-up); on a
# machine that gives every side its two cores the two agree. Lathe decodes as PIL does (its
# training default; `lathe-cli bench pipeline --fast-decode true` shows the fast-decode option).
# Sides run one after another. "commands" holds each side's exact command.
# Usage: bench_pipeline.sh [LATHE_CLI=build/app/lathe-cli] [WORK_DIR=mktemp] [SECONDS=20] [N=2000]
# The corpus (tests/bench/make_scan_corpus.sh: cuts of Debian's darknet photos) and its shards
# are kept in WORK_DIR and reused by later runs. The Python sides use the project venv
# (LATHE_PYTHON overrides it): torchvision 0.26, tensorflow_cpu 2.21, nvidia-dali-cuda130 2.4.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
CLI="$(realpath "${1:-build/app/lathe-cli}")"
WORK="${2:-$(mktemp -d)}"
S="${3:-20}"
N="${4:-2000}"
THREADS=2
BATCH=64

mkdir -p "$WORK"
[ -d "$WORK/images" ] || "$here/make_scan_corpus.sh" "$WORK/images" "$N" >&2
[ -f "$WORK/shards/dataset.json" ] || "$CLI" convert "$WORK/images" "$WORK/shards" --val-fraction 0 --test-fraction 0 >&2
cat "$WORK"/images/*/*.jpg "$WORK"/shards/*.tfrecord > /dev/null # every side reads from the page cache

PY="${LATHE_PYTHON:-$here/../../.venv/bin/python}"
tv_cmd=("$PY" "$here/torchvision_loader.py" "$WORK/images" --workers "$THREADS" --batch "$BATCH" --seconds "$S")
lathe_cmd=("$CLI" bench pipeline --data "$WORK/shards" --threads "$THREADS" --batch "$BATCH" --seconds "$S")
decode_cmd=("$CLI" bench pipeline --data "$WORK/shards" --augment decode-only --seconds "$(( (S + 1) / 2 ))")
cached_cmd=("${lathe_cmd[@]}" --cache-mb 2048) # torchvision has no such option
tf_cmd=("$PY" "$here/tfdata_loader.py" "$WORK/shards" --threads "$THREADS" --batch "$BATCH" --image-size 224 --seconds "$S")
tf_cached_cmd=("${tf_cmd[@]}" --cache)
dali_cmd=("$PY" "$here/dali_loader.py" "$WORK/shards" --threads "$THREADS" --batch "$BATCH" --image-size 224 --seconds "$S")

LOAD_BEFORE="$(cut -d' ' -f1 /proc/loadavg)" # before any side runs; the end's figure includes the benchmark
# Each side appends: its name, its JSON line, its command.
sides=()
side() {
    local name="$1" out
    shift
    out="$("$@")"
    sides+=("$name" "$out" "$*")
}
side torchvision "${tv_cmd[@]}"
side lathe "${lathe_cmd[@]}"
side decode "${decode_cmd[@]}"
side lathe_cached "${cached_cmd[@]}"
side tfdata "${tf_cmd[@]}"
side tfdata_cached "${tf_cached_cmd[@]}"
side dali "${dali_cmd[@]}"
side lathe_threads_1 "$CLI" bench pipeline --data "$WORK/shards" --threads 1 --batch "$BATCH" --seconds "$S"
NPROC="$(nproc)"
if [ "$NPROC" -gt 2 ]; then
    side "lathe_threads_$NPROC" "$CLI" bench pipeline --data "$WORK/shards" --threads "$NPROC" --batch "$BATCH" --seconds "$S"
fi

"$PY" - "$LOAD_BEFORE" "${sides[@]}" <<'PY'
import json, sys
load_before = float(sys.argv[1])
names = sys.argv[2::3]
r = dict(zip(names, (json.loads(a) for a in sys.argv[3::3])))
commands = dict(zip(names, sys.argv[4::3]))
tv, lathe, decode, cached = r["torchvision"], r["lathe"], r["decode"], r["lathe_cached"]
tfd, tfc, dali = r["tfdata"], r["tfdata_cached"], r["dali"]


def ratio(a, b):
    return a / b if a is not None and b else None


def best(key):  # the better of tf.data and DALI (DALI may have failed)
    return max(x[key] for x in (tfd, dali) if key in x)


two_cores = 2 * decode["decode_images_per_s_per_core"]
scaling = {"2": lathe["images_per_s"]}
for name in names:
    if name.startswith("lathe_threads_"):
        scaling[name.removeprefix("lathe_threads_")] = r[name]["images_per_s"]
print(json.dumps({
    "benchmark": "input_pipeline",
    "lathe_images_per_s": lathe["images_per_s"],
    "torchvision_images_per_s": tv["images_per_s"],
    "ratio_lathe_over_torchvision": lathe["images_per_s"] / tv["images_per_s"],
    "decode_images_per_s_per_core": decode["decode_images_per_s_per_core"],
    "lathe_over_two_core_decode": lathe["images_per_s"] / two_cores,
    # CPU-time figures: what each image costs, whatever the neighbours on a shared machine take.
    "lathe_images_per_cpu_s": lathe["images_per_cpu_s"],
    "torchvision_images_per_cpu_s": tv["images_per_cpu_s"],
    "cpu_ratio_lathe_over_torchvision": lathe["images_per_cpu_s"] / tv["images_per_cpu_s"],
    "decode_images_per_cpu_s": decode["decode_images_per_cpu_s"],
    "lathe_cpu_over_decode_cpu": lathe["images_per_cpu_s"] / decode["decode_images_per_cpu_s"],
    "load_average_1min_before": load_before,
    "load_average_1min": float(open("/proc/loadavg").read().split()[0]),
    "lathe_fast_decode": lathe.get("fast_decode", False),
    "lathe_cached_images_per_s": cached["images_per_s"],
    "lathe_cached_images_per_cpu_s": cached["images_per_cpu_s"],
    "cached_ratio_lathe_over_torchvision": cached["images_per_s"] / tv["images_per_s"],
    "lathe_cached_cache_mb": cached["cache_mb"],
    "lathe_cached_peak_rss_mb": cached["peak_rss_mb"],
    "lathe_wait_fraction": lathe["wait_fraction"],
    "lathe_peak_rss_mb": lathe["peak_rss_mb"],
    "lathe_errors": lathe["errors"],
    # tf.data (NHWC) and DALI (CPU only, NCHW) over the same shards.
    "tfdata_images_per_s": tfd["images_per_s"],
    "tfdata_images_per_cpu_s": tfd["images_per_cpu_s"],
    "tfdata_cached_images_per_s": tfc["images_per_s"],
    "tfdata_cached_images_per_cpu_s": tfc["images_per_cpu_s"],
    "tfdata_cached_peak_rss_mb": tfc["peak_rss_mb"],
    "dali_images_per_s": dali.get("images_per_s"),
    "dali_images_per_cpu_s": dali.get("images_per_cpu_s"),
    "dali_error": dali.get("error"),
    "lathe_over_tfdata": lathe["images_per_s"] / tfd["images_per_s"],
    "lathe_over_dali": ratio(lathe["images_per_s"], dali.get("images_per_s")),
    "lathe_over_best_of_tfdata_dali": lathe["images_per_s"] / best("images_per_s"),
    "cached_lathe_over_tfdata_cached": cached["images_per_s"] / tfc["images_per_s"],
    "cpu_lathe_over_tfdata": lathe["images_per_cpu_s"] / tfd["images_per_cpu_s"],
    "cpu_lathe_over_dali": ratio(lathe["images_per_cpu_s"], dali.get("images_per_cpu_s")),
    "cpu_lathe_over_best_of_tfdata_dali": lathe["images_per_cpu_s"] / best("images_per_cpu_s"),
    "cpu_cached_lathe_over_tfdata_cached": cached["images_per_cpu_s"] / tfc["images_per_cpu_s"],
    "layouts": {"lathe": "NCHW", "torchvision": "NCHW", "tfdata": tfd["layout"], "dali": dali.get("layout")},
    "tensorflow": tfd["tensorflow"],
    "dali": dali.get("dali"),
    # Lathe without cache at 1, 2 (the lathe side) and nproc (when > 2) threads.
    "lathe_thread_scaling": scaling,
    "per_thread_efficiency_2_over_1": scaling["2"] / (2 * scaling["1"]),
    "files": tv["files"],
    "threads": lathe["threads"],
    "batch": lathe["batch"],
    "image_size": lathe["image_size"],
    "commands": commands,
}))
PY
