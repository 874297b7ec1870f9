#!/usr/bin/env bash
# Input pipeline benchmark: `lathe-cli bench pipeline` against torchvision's DataLoader on the
# same ~500x375 JPEG photos, both with two workers, batch 64, torchvision's ImageNet training
# recipe (RandomResizedCrop(224) + RandomHorizontalFlip + ToTensor + Normalize), plus the
# full-size libjpeg-turbo decode rate of one core on the same files (`--augment decode-only`),
# so "lathe >= 70% of two cores' full-size decode rate" can be checked. Prints one JSON line
# with wall-clock rates and, because a shared machine's neighbours skew those, rates per CPU
# second (all threads/processes of each side, after the warm-up batch); on a machine that
# gives both sides their two cores the two ratios agree. Lathe decodes as PIL does (its
# training default; `lathe-cli bench pipeline --fast-decode true` shows the fast-decode option).
# Usage: bench_pipeline.sh [LATHE_CLI=build/app/lathe-cli] [WORK_DIR=mktemp] [SECONDS=20] [N=2000]
# The corpus (tests/bench/make_scan_corpus.sh: cuts of Debian's darknet photos) and its shards
# are kept in WORK_DIR and reused by later runs.
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
cat "$WORK"/images/*/*.jpg "$WORK"/shards/*.tfrecord > /dev/null # both sides read from the page cache

PY="${LATHE_PYTHON:-$here/../../.venv/bin/python}" # torchvision 0.26 of the project venv
tv_cmd=("$PY" "$here/torchvision_loader.py" "$WORK/images" --workers "$THREADS" --batch "$BATCH" --seconds "$S")
lathe_cmd=("$CLI" bench pipeline --data "$WORK/shards" --threads "$THREADS" --batch "$BATCH" --seconds "$S")
decode_cmd=("$CLI" bench pipeline --data "$WORK/shards" --augment decode-only --seconds "$(( (S + 1) / 2 ))")
# With the in-RAM cache of decoded images (data.cache_mb; tf.data's cache()): the first epoch
# decodes, later ones crop and resize from RAM. torchvision has no such option.
cached_cmd=("${lathe_cmd[@]}" --cache-mb 2048)
tv="$("${tv_cmd[@]}")"
lathe="$("${lathe_cmd[@]}")"
decode="$("${decode_cmd[@]}")"
cached="$("${cached_cmd[@]}")"

"$PY" - "$tv" "$lathe" "$decode" "$cached" "${tv_cmd[*]}" "${lathe_cmd[*]}" "${decode_cmd[*]}" "${cached_cmd[*]}" <<'PY'
import json, sys
tv, lathe, decode, cached = (json.loads(a) for a in sys.argv[1:5])
two_cores = 2 * decode["decode_images_per_s_per_core"]
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
    "load_average_1min": float(open("/proc/loadavg").read().split()[0]),
    "lathe_fast_decode": lathe.get("fast_decode", False),
    "lathe_cached_images_per_s": cached["images_per_s"],
    "cached_ratio_lathe_over_torchvision": cached["images_per_s"] / tv["images_per_s"],
    "lathe_cached_cache_mb": cached["cache_mb"],
    "lathe_cached_peak_rss_mb": cached["peak_rss_mb"],
    "lathe_wait_fraction": lathe["wait_fraction"],
    "lathe_peak_rss_mb": lathe["peak_rss_mb"],
    "lathe_errors": lathe["errors"],
    "files": tv["files"],
    "threads": lathe["threads"],
    "batch": lathe["batch"],
    "image_size": lathe["image_size"],
    "commands": {"torchvision": sys.argv[5], "lathe": sys.argv[6], "decode": sys.argv[7], "lathe_cached": sys.argv[8]},
}))
PY
