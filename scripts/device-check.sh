#!/usr/bin/env bash
# The GPU device check (issue 19): one prepared run that measures Lathe on a GPU machine and writes
# one JSON document, in well under the device tool's 10 minutes. Parts, in this order:
#   info        lathe-cli --json info
#   gpu         nvidia-smi: the card, its driver and memory (CUDA only)
#   data        synthetic class-folder images made there (tinted stripes, JPEG through Pillow, else
#               PNG), lathe-cli convert to shards
#   train       a real short run on those shards (run config checked by lathe-cli config check):
#               the input pipeline feeding the device; from metrics.jsonl images/s, input wait,
#               and every gpu_* key the step events carry (memory, utilisation)
#   nccl        the same kind of run launched as torchrun would at world size 1 (RANK, WORLD_SIZE,
#               MASTER_ADDR, MASTER_PORT): NCCL on CUDA, Gloo on the CPU
#   bench       lathe-cli bench train against PyTorch (tests/bench/torch_train_reference.py) with
#               AMP and channels-last, eager and torch.compile: ResNet-50 224 px batch 256 bf16
#               and fp16, ResNet-18 224 px batch 256 bf16, ViT-B/16 224 px batch 128 bf16
#   gpu_memory  the memory figures gathered: the card's peak used memory (nvidia-smi, sampled every
#               250 ms) during each part, each bench side's peak allocated memory (its
#               gpu_memory_peak_mib), the runs' gpu_* keys
# With --device cpu the same parts run at tiny sizes (64 px, batch 8, 3 steps; ViT at 224 px batch
# 2) so the check finishes in about a minute on 2 cores, and the JSON has the same shape
# (tests/integration/device_check_cpu.sh validates it); gpu and gpu_memory are "skipped" there.
# Every part runs under `timeout` with its own limit, cut to what is left of --budget-s; a part
# that fails, times out or has no time left is recorded with status "failed", "timeout" or
# "skipped" and its error, and the check goes on. DIR/device-check.json is rewritten after every
# part (a check killed from outside leaves the parts so far), beside DIR/device-check.log (the
# progress) and DIR/device-check-logs.tar.gz (every part's stdout and stderr, the runs'
# config.json, metrics.jsonl and log.txt): three files, as the device tool brings back at most 8.
# Exit status 0 when every part is ok or skipped, 1 when one failed or timed out (the JSON says
# which), 2 on bad options.
#
# Usage: scripts/device-check.sh [--device cuda:0|cpu] [--cli LATHE_CLI] [--out DIR] [--budget-s 480]
#          [--python PYTHON] [--compile auto|on|off] [--images synthetic|demo] [--rows ID,...]
#          [--work DIR] [--keep-work]
#   --cli     default: ./engine-bundle/lathe-cli (scripts/make-engine-bundle.sh), else
#             build-engine/app/lathe-cli, else build/app/lathe-cli (of this checkout)
#   --out     default: $OUT (the device tool's), else ./device-check-out
#   --python  the Python with torch and torchvision for the peer: default $LATHE_PYTHON, else the
#             project venv .venv/bin/python, else python3 (the GPU machine's, which has them); the
#             parts get it as LATHE_PYTHON, so the bundle's launcher loads the same torch
#   --compile auto: torch.compile on CUDA only (on the CPU inductor builds C++ per model, ~50 s for
#             ResNet-18 here, so the rows say "skipped" with that reason); on/off: always/never
#   --images  synthetic (default; the GPU machine has no Fashion-MNIST) or demo (lathe-cli
#             demo-data, needs Debian's dataset-fashion-mnist)
#   --rows    only these bench rows: resnet50_bf16, resnet50_fp16, resnet18_bf16, vit_b_16_bf16
#   --work    where images, shards and runs go (default: a new folder under /tmp, removed at the
#             end unless --keep-work)
# Through the device tool (README, "GPU device check"):
#   scripts/make-engine-bundle.sh engine-bundle && scripts/device-check.sh --device cuda:0 --out $OUT
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
    [ "${args[i]}" = --python ] && PY=${args[i + 1]:-}
done
if [ -z "$PY" ]; then
    if [ -n "${LATHE_PYTHON:-}" ]; then
        PY=$LATHE_PYTHON
    elif [ -x "$ROOT/.venv/bin/python" ]; then
        PY=$ROOT/.venv/bin/python
    else
        PY=python3
    fi
fi
exec "$PY" - "$ROOT" "$PY" "$@" <<'PYEOF'
import argparse
import datetime
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT, PYTHON, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
p = argparse.ArgumentParser(prog="scripts/device-check.sh",
                            description="The GPU device check: lathe-cli on a GPU against PyTorch; writes DIR/device-check.json")
p.add_argument("--device", default="cuda:0", help="cuda:N or cpu (tiny sizes)")
p.add_argument("--cli", help="lathe-cli to check")
p.add_argument("--out", help="folder for device-check.json and the logs")
p.add_argument("--budget-s", type=float, default=480, help="total seconds for every part")
p.add_argument("--python", help="Python with torch and torchvision for the PyTorch peer")
p.add_argument("--compile", choices=["auto", "on", "off"], default="auto")
p.add_argument("--images", choices=["synthetic", "demo"], default="synthetic")
p.add_argument("--rows", help="comma-separated bench rows to run (default: all)")
p.add_argument("--work", help="folder for images, shards and runs")
p.add_argument("--keep-work", action="store_true")
a = p.parse_args(argv)
if not re.fullmatch(r"cpu|cuda(:\d+)?", a.device):
    p.error(f"--device must be cpu or cuda:N (got {a.device})")
if a.budget_s < 30:
    p.error("--budget-s must be at least 30")

START = time.monotonic()
DEADLINE = START + a.budget_s
RESERVE_S = 5      # kept back at the end for the JSON and the logs' archive
MIN_PART_S = 10    # a part with less time than this left is skipped
CUDA = a.device.startswith("cuda")
GPU_INDEX = a.device.split(":")[1] if ":" in a.device else "0"


def default_cli():
    for candidate in ("engine-bundle/lathe-cli", "build-engine/app/lathe-cli", "build/app/lathe-cli"):
        path = os.path.join(ROOT, candidate)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return os.path.join(ROOT, "build/app/lathe-cli")  # missing: each part that needs it says so


CLI = os.path.abspath(a.cli) if a.cli else default_cli()
# The bundle's launcher takes LibTorch from this Python's torch: the peer's, so both sides run the same.
os.environ["LATHE_PYTHON"] = PYTHON
PEER = os.path.join(ROOT, "tests/bench/torch_train_reference.py")


def say(message):
    line = f"[{time.monotonic() - START:6.1f} s] {message}"
    print(line, file=sys.stderr, flush=True)
    print(line, file=progress, flush=True)


def cpu_has_native_bf16():
    try:
        with open("/proc/cpuinfo") as f:
            return bool(re.search(r"\b(avx512_bf16|amx_bf16)\b", f.read()))
    except OSError:
        return False


# Sizes. Each bench row: id, arch, image side, batch, precision, channels-last, timed steps, note.
if CUDA:
    SIZES = "full"
    THREADS = 0  # every core (both sides)
    ROWS = [("resnet50_bf16", "resnet50", 224, 256, "bf16", True, 30, None),
            ("resnet50_fp16", "resnet50", 224, 256, "fp16", True, 30, None),
            ("resnet18_bf16", "resnet18", 224, 256, "bf16", True, 30, None),
            ("vit_b_16_bf16", "vit_b_16", 224, 128, "bf16", False, 30, None)]
    IMAGES = {"per_class": 800, "val_per_class": 50, "side": 256}
    TRAIN = {"arch": "resnet50", "image_size": 224, "batch": 256, "precision": "bf16", "channels_last": True}
    NCCL = {"arch": "resnet18", "image_size": 224, "batch": 128, "precision": "bf16", "channels_last": True}
    LIMITS = {"info": 60, "gpu": 20, "data": 120, "train": 180, "nccl": 120, "lathe": 120, "eager": 120,
              "compile": 240}
else:
    SIZES = "tiny"
    THREADS = 2
    bf16 = "bf16" if cpu_has_native_bf16() else "fp32"
    bf16_note = None if bf16 == "bf16" else "this CPU has no native bf16 (avx512_bf16, amx_bf16): fp32"
    ROWS = [("resnet50_bf16", "resnet50", 64, 8, bf16, True, 3, bf16_note),
            ("resnet50_fp16", "resnet50", 64, 8, "fp32", True, 3, "fp16 needs CUDA: fp32 on the CPU"),
            ("resnet18_bf16", "resnet18", 64, 8, bf16, True, 3, bf16_note),
            ("vit_b_16_bf16", "vit_b_16", 224, 2, bf16, False, 2,
             "ViT-B/16's position embedding needs 224 px" + (f"; {bf16_note}" if bf16_note else ""))]
    IMAGES = {"per_class": 16, "val_per_class": 4, "side": 64}
    TRAIN = {"arch": "resnet18", "image_size": 64, "batch": 8, "precision": "fp32", "channels_last": True}
    NCCL = {"arch": "resnet18", "image_size": 64, "batch": 8, "precision": "fp32", "channels_last": False}
    LIMITS = {"info": 60, "gpu": 20, "data": 120, "train": 120, "nccl": 120, "lathe": 120, "eager": 180,
              "compile": 300}

if a.rows:
    wanted = a.rows.split(",")
    unknown = [r for r in wanted if r not in [row[0] for row in ROWS]]
    if unknown:
        p.error(f"--rows: no row {', '.join(unknown)} (rows: {', '.join(row[0] for row in ROWS)})")
    ROWS = [row for row in ROWS if row[0] in wanted]

if a.compile == "auto":
    COMPILE, COMPILE_SKIP = CUDA, ("torch.compile skipped on the CPU (--compile auto): inductor builds C++ for "
                                   "every model, about 50 s for ResNet-18 on 2 cores; --compile on runs it")
else:
    COMPILE, COMPILE_SKIP = a.compile == "on", "torch.compile skipped (--compile off)"

OUT = os.path.abspath(a.out or os.environ.get("OUT") or "device-check-out")
os.makedirs(OUT, exist_ok=True)
WORK = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="lathe-device-check-")
os.makedirs(WORK, exist_ok=True)
LOGS = os.path.join(WORK, "logs")
os.makedirs(LOGS, exist_ok=True)
progress = open(os.path.join(OUT, "device-check.log"), "w")

report = {
    "check": "lathe-device-check",
    "schema": 1,
    "device": a.device,
    "sizes": SIZES,
    "started_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "budget_s": a.budget_s,
    "cli": CLI,
    "python": PYTHON,
    "host": {"hostname": socket.gethostname(), "cpus": os.cpu_count(), "load_before": os.getloadavg()[0]},
    "parts": {},
}
peaks = {}  # part name -> the card's peak used MiB (nvidia-smi) while it ran


def save():
    """device-check.json (atomically) and the logs' archive, as they are now."""
    report["wall_s"] = round(time.monotonic() - START, 1)
    tmp = os.path.join(OUT, ".device-check.json.tmp")
    with open(tmp, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    os.replace(tmp, os.path.join(OUT, "device-check.json"))
    with tarfile.open(os.path.join(OUT, ".logs.tmp"), "w:gz") as tar:
        tar.add(LOGS, arcname="device-check-logs")
    os.replace(os.path.join(OUT, ".logs.tmp"), os.path.join(OUT, "device-check-logs.tar.gz"))


def tail(path, lines=3, chars=600):
    try:
        with open(path, errors="replace") as f:
            text = [line.strip() for line in f.read().splitlines() if line.strip()]
    except OSError:
        return ""
    return " | ".join(text[-lines:])[-chars:]


class GpuSampler:
    """nvidia-smi's used memory of the device every 250 ms while a part runs; peak() in MiB."""

    def __init__(self, name):
        self.path = os.path.join(LOGS, f"{name}.gpu-memory.csv")
        self.process = None
        if CUDA and shutil.which("nvidia-smi"):
            self.process = subprocess.Popen(
                ["nvidia-smi", "-i", GPU_INDEX, "--query-gpu=memory.used", "--format=csv,noheader,nounits",
                 "-lms", "250"], stdout=open(self.path, "w"), stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)

    def peak(self):
        if not self.process:
            return None
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
        values = []
        with open(self.path) as f:
            for line in f:
                try:
                    values.append(float(line.strip()))
                except ValueError:
                    pass
        return max(values) if values else None


def run(name, cmd, limit, env=None):
    """Runs cmd under `timeout` (limit cut to the budget left), stdout and stderr in LOGS/name.out|.err.
    Returns the part: status ok|failed|timeout|skipped, seconds, command, error (when not ok), and
    stdout (dropped by the callers before saving)."""
    left = DEADLINE - time.monotonic() - RESERVE_S
    part = {"command": " ".join(cmd)}
    if left < MIN_PART_S:
        part.update(status="skipped", error=f"the time budget ({a.budget_s:g} s) is spent: {max(left, 0):.0f} s left")
        say(f"{name}: skipped ({part['error']})")
        return part
    limit_s = int(min(limit, left))
    out_path, err_path = os.path.join(LOGS, f"{name}.out"), os.path.join(LOGS, f"{name}.err")
    say(f"{name}: {part['command']} (limit {limit_s} s)")
    sampler = GpuSampler(name)
    start = time.monotonic()
    with open(out_path, "w") as out, open(err_path, "w") as err:
        try:
            rc = subprocess.run(["timeout", "--kill-after=10", str(limit_s)] + cmd, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, env=env, timeout=limit_s + 30).returncode
        except subprocess.TimeoutExpired:
            rc = 124
    part["seconds"] = round(time.monotonic() - start, 2)
    peak = sampler.peak()
    if peak is not None:
        peaks[name] = peak
    with open(out_path, errors="replace") as f:
        part["stdout"] = f.read()
    if rc == 0:
        part["status"] = "ok"
    elif rc in (124, 137):
        part.update(status="timeout", error=f"timed out after {limit_s} s: {tail(err_path)}")
    else:
        part.update(status="failed", error=f"exit status {rc}: {tail(err_path) or tail(out_path)}")
    say(f"{name}: {part['status']} in {part['seconds']} s" + (f" ({part['error']})" if "error" in part else ""))
    return part


def json_line(part):
    """The last JSON object line of a part's stdout into part["result"]; a failure without one."""
    stdout = part.pop("stdout", "")
    if part["status"] != "ok":
        return part
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                part["result"] = json.loads(line)
                return part
            except ValueError:
                break
    part.update(status="failed", error="no JSON line in its output: " + stdout[-300:])
    return part


def finish(name, part):
    part.pop("stdout", None)
    report["parts"][name] = part
    save()
    return part


def skipped(reason):
    return {"status": "skipped", "error": reason}


# ---- info, gpu ------------------------------------------------------------------------------
info = run("info", [CLI, "--json", "info"], LIMITS["info"])
if info["status"] == "ok":
    try:
        info["result"] = json.loads(info["stdout"])
    except ValueError:
        info.update(status="failed", error="lathe-cli --json info printed no JSON: " + info["stdout"][-300:])
finish("info", info)

if CUDA:
    fields = ["name", "memory.total", "memory.used", "driver_version", "compute_cap"]
    gpu = run("gpu", ["nvidia-smi", "-i", GPU_INDEX, "--query-gpu=" + ",".join(fields),
                      "--format=csv,noheader,nounits"], LIMITS["gpu"])
    if gpu["status"] == "ok":
        values = [v.strip() for v in gpu["stdout"].strip().splitlines()[0].split(",")]
        gpu["result"] = dict(zip(["name", "memory_total_mib", "memory_used_mib", "driver", "compute_capability"], values))
        for key in ("memory_total_mib", "memory_used_mib"):
            try:
                gpu["result"][key] = float(gpu["result"][key])
            except (KeyError, ValueError):
                pass
    finish("gpu", gpu)
else:
    finish("gpu", skipped("no GPU: --device cpu"))

# ---- data: images made here, converted to shards ---------------------------------------------
MAKE_IMAGES = r'''
"""Synthetic class folders: IMG/{train,val}/class_K/*.jpg, each class a tint and a stripe
direction, each image its own stripe frequency, phase and noise. JPEG through Pillow, else PNG."""
import multiprocessing
import os
import struct
import sys
import zlib

import numpy as np

try:
    from PIL import Image
except ImportError:
    Image = None
out, per_class, val_per_class, side = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
CLASSES = 10


def png(path, rgb):
    h, w, _ = rgb.shape
    raw = b"".join(b"\0" + rgb[y].tobytes() for y in range(h))
    chunk = lambda t, d: struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def make(task):
    split, n, c = task
    rng = np.random.default_rng(1000 * (split == "val") + c)
    folder = os.path.join(out, split, f"class_{c}")
    os.makedirs(folder, exist_ok=True)
    yy, xx = np.mgrid[0:side, 0:side] / side
    angle = np.pi * c / CLASSES
    tint = 127 + 100 * np.cos(2 * np.pi * c / CLASSES + np.array([0.0, 2.094, 4.189]))
    for i in range(n):
        wave = np.sin(2 * np.pi * rng.uniform(3, 8) * (xx * np.cos(angle) + yy * np.sin(angle)) + rng.uniform(0, 6.3))
        rgb = tint * (0.6 + 0.4 * wave[..., None]) + rng.normal(0, 20, (side, side, 3))
        rgb = np.clip(rgb, 0, 255).astype(np.uint8)
        if Image is not None:
            Image.fromarray(rgb).save(os.path.join(folder, f"{i:05d}.jpg"), quality=90)
        else:
            png(os.path.join(folder, f"{i:05d}.png"), rgb)
    return n


tasks = [(s, n, c) for s, n in (("train", per_class), ("val", val_per_class)) for c in range(CLASSES)]
with multiprocessing.get_context("fork").Pool(min(len(tasks), os.cpu_count() or 1)) as pool:
    total = sum(pool.map(make, tasks))
print('{"images": %d, "side": %d, "format": "%s"}' % (total, side, "jpeg" if Image is not None else "png"))
'''

IMG, SHARDS = os.path.join(WORK, "images"), os.path.join(WORK, "shards")
for folder in (IMG, SHARDS):
    shutil.rmtree(folder, ignore_errors=True)
data = {"images": a.images}
if a.images == "synthetic":
    script = os.path.join(LOGS, "make_images.py")
    with open(script, "w") as f:
        f.write(MAKE_IMAGES)
    make = json_line(run("data-images", [PYTHON, script, IMG, str(IMAGES["per_class"]), str(IMAGES["val_per_class"]),
                                         str(IMAGES["side"])], LIMITS["data"]))
    VAL_SPLIT = "val"
else:
    make = run("data-images", [CLI, "demo-data", IMG, "--per-class", str(IMAGES["per_class"]),
                               "--test-per-class", str(IMAGES["val_per_class"])], LIMITS["data"])
    make.pop("stdout", None)
    VAL_SPLIT = "test"
data["make"] = make
if make["status"] == "ok":
    convert = run("data-convert", [CLI, "convert", IMG, SHARDS, "--threads", str(os.cpu_count() or 1)],
                  LIMITS["data"])
    convert.pop("stdout", None)
    data["convert"] = convert
    data.update(status=convert["status"])
    if "error" in convert:
        data["error"] = "convert: " + convert["error"]
    if convert["status"] == "ok":
        with open(os.path.join(SHARDS, "dataset.json")) as f:
            dataset = json.load(f)
        data["splits"] = {split: sum(counts.values()) for split, counts in dataset.get("counts", {}).items()}
        data["shard_bytes"] = sum(os.path.getsize(os.path.join(SHARDS, n)) for n in os.listdir(SHARDS)
                                  if n.endswith(".tfrecord"))
else:
    data.update(status=make["status"], error="images: " + make["error"])
finish("data", data)


# ---- train, nccl: real runs on those shards ---------------------------------------------------
def run_config(sizes, path):
    config = {"model": {"arch": sizes["arch"]},
              "data": {"shards": SHARDS, "image_size": sizes["image_size"], "channels_last": sizes["channels_last"],
                       "val_split": VAL_SPLIT, "workers": 0},
              "feature_cache": {"mode": "off"},  # every batch through the input pipeline
              "optimizer": {"batch_size": sizes["batch"], "epochs": 1},
              "precision": sizes["precision"], "devices": [a.device]}
    with open(path, "w") as f:
        json.dump(config, f, indent=2)
    return config


def run_summary(run_dir, name):
    """What metrics.jsonl says: the step events' figures (the first step event, which holds the
    warm-up, left out where there are more), every gpu_* or *memory* key, the epoch's result."""
    for file in ("config.json", "metrics.jsonl", "log.txt"):
        if os.path.exists(os.path.join(run_dir, file)):
            shutil.copy(os.path.join(run_dir, file), os.path.join(LOGS, f"{name}.{file}"))
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        events = [json.loads(line) for line in f if line.strip()]
    steps = [e for e in events if e.get("type") == "step"]
    later = steps[1:] or steps
    summary = {"step_events": len(steps), "step_event_keys": sorted({k for e in steps for k in e}),
               "finished": any(e.get("type") == "finished" for e in events)}
    if steps:
        summary["steps"] = steps[-1].get("step")
        summary["final_loss"] = steps[-1].get("loss")
    for key in ("images_per_s", "input_wait_fraction", "comm_fraction"):
        values = [e[key] for e in later if isinstance(e.get(key), (int, float))]
        if values:
            summary[key] = {"median": statistics.median(values), "mean": statistics.fmean(values),
                            "max": max(values)}
    memory = {}
    for e in events:
        for key, value in e.items():
            if (key.startswith("gpu_") or "memory" in key) and isinstance(value, (int, float)):
                m = memory.setdefault(key, {"max": value, "last": value})
                m["max"], m["last"] = max(m["max"], value), value
    summary["memory_keys"] = memory
    epoch = [e for e in events if e.get("type") == "epoch"]
    if epoch:
        summary["epoch"] = {k: epoch[-1].get(k) for k in ("seconds", "train_loss", "val_loss", "val_top1")}
        records = report["parts"].get("data", {}).get("splits", {}).get("train")
        if records and epoch[-1].get("seconds"):
            summary["epoch_images_per_s"] = records / epoch[-1]["seconds"]
    return summary


def train_part(name, sizes, env=None):
    if report["parts"]["data"]["status"] != "ok":
        return skipped("no shards: the data part did not succeed")
    config_path = os.path.join(LOGS, f"{name}.run.json")
    config = run_config(sizes, config_path)
    check = run(f"{name}-config-check", [CLI, "config", "check", config_path], 60)
    check.pop("stdout", None)
    if check["status"] != "ok":
        return {"status": check["status"], "error": "config check: " + check["error"], "config": config}
    run_dir = os.path.join(WORK, f"run-{name}")
    shutil.rmtree(run_dir, ignore_errors=True)
    part = run(name, [CLI, "train", "--config", config_path, "--out", run_dir], LIMITS[name], env=env)
    part.pop("stdout", None)
    part["config"] = config
    if os.path.exists(os.path.join(run_dir, "metrics.jsonl")):
        part["result"] = run_summary(run_dir, name)
        if part["status"] == "ok" and not part["result"]["finished"]:
            part.update(status="failed", error="metrics.jsonl has no finished event")
    elif part["status"] == "ok":
        part.update(status="failed", error=f"no metrics.jsonl in {run_dir}")
    return part


finish("train", train_part("train", TRAIN))

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
launch = {"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1",
          "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port)}
nccl = train_part("nccl", NCCL, env={**os.environ, **launch})
nccl["launch"] = launch
nccl["backend"] = "nccl" if CUDA else "gloo"
# What the run said about a process group (NCCL, Gloo): the trainer of this tree makes one only for
# more than one rank, so at world size 1 this may be empty.
said = []
for file in (os.path.join(LOGS, "nccl.err"), os.path.join(LOGS, "nccl.out"), os.path.join(LOGS, "nccl.log.txt")):
    if os.path.exists(file):
        with open(file, errors="replace") as f:
            said += [line.strip() for line in f
                     if re.search(r"\b(nccl|gloo|process group)\b", line.replace(WORK, ""), re.I)]
nccl["process_group_lines"] = said[:10]
nccl["process_group_said"] = bool(said)
finish("nccl", nccl)


# ---- bench: lathe-cli bench train against PyTorch eager and compiled ---------------------------
def bench_args(row):
    _, arch, size, batch, precision, channels_last, steps, _ = row
    return (["--arch", arch, "--image-size", str(size), "--batch", str(batch), "--steps", str(steps),
             "--optimizer", "sgd", "--precision", precision, "--threads", str(THREADS)]
            + (["--channels-last"] if channels_last else []))


def images_per_s(part):
    if part["status"] != "ok":
        return None
    value = part.get("result", {}).get("images_per_s")
    if not isinstance(value, (int, float)) or value <= 0:
        part.update(status="failed", error=f"images_per_s is {value!r}")
        return None
    return value


rows = []
bench = {"status": "ok", "rows": rows, "compile": COMPILE}
if not COMPILE:
    bench["compile_skipped"] = COMPILE_SKIP
report["parts"]["bench"] = bench
for row in ROWS:
    rid, arch, size, batch, precision, channels_last, steps, note = row
    entry = {"id": rid, "arch": arch, "image_size": size, "batch": batch, "precision": precision,
             "channels_last": channels_last, "steps": steps, "optimizer": "sgd"}
    if note:
        entry["note"] = note
    entry["lathe"] = json_line(run(f"bench-{rid}-lathe", [CLI, "bench", "train"] + bench_args(row)
                                   + ["--devices", a.device], LIMITS["lathe"]))
    entry["pytorch_eager"] = json_line(run(f"bench-{rid}-eager", [PYTHON, PEER] + bench_args(row)
                                           + ["--device", a.device], LIMITS["eager"]))
    entry["pytorch_compile"] = skipped(COMPILE_SKIP)
    rows.append(entry)
    save()
for entry, row in zip(rows, ROWS):
    if COMPILE:
        entry["pytorch_compile"] = json_line(run(f"bench-{entry['id']}-compile", [PYTHON, PEER] + bench_args(row)
                                                 + ["--device", a.device, "--compile"], LIMITS["compile"]))
        save()
failed = []
for entry in rows:
    lathe, eager, compiled = (images_per_s(entry[k]) for k in ("lathe", "pytorch_eager", "pytorch_compile"))
    entry.update(lathe_images_per_s=lathe, pytorch_eager_images_per_s=eager, pytorch_compile_images_per_s=compiled,
                 pytorch_compile_error=entry["pytorch_compile"].get("error"),
                 lathe_over_eager=round(lathe / eager, 3) if lathe and eager else None,
                 lathe_over_compile=round(lathe / compiled, 3) if lathe and compiled else None)
    failed += [f"{entry['id']} {k}: {entry[k]['error']}" for k in ("lathe", "pytorch_eager")
               if entry[k]["status"] != "ok"]
bench["compile_not_measured"] = [e["id"] for e in rows if e["pytorch_compile"]["status"] != "ok"]
if failed:
    bench.update(status="failed", error="; ".join(failed)[:2000])
finish("bench", bench)

# ---- gpu_memory: the figures gathered ---------------------------------------------------------
if CUDA:
    memory = {"status": "ok", "nvidia_smi_peak_used_mib": peaks,
              "total_mib": report["parts"]["gpu"].get("result", {}).get("memory_total_mib"),
              "train_run_keys": report["parts"]["train"].get("result", {}).get("memory_keys", {}),
              "nccl_run_keys": report["parts"]["nccl"].get("result", {}).get("memory_keys", {}),
              # Peak allocated MiB of each bench side (lathe-cli's and torch.cuda's own count).
              "bench_peak_allocated_mib": {
                  f"{e['id']}-{k}": e[k]["result"].get("gpu_memory_peak_mib")
                  for e in rows for k in ("lathe", "pytorch_eager", "pytorch_compile") if e[k].get("result")}}
    if not peaks and not memory["train_run_keys"]:
        memory.update(status="failed", error="no figure: nvidia-smi gave no samples and the run no gpu_memory_* key")
    finish("gpu_memory", memory)
else:
    finish("gpu_memory", skipped("no GPU: --device cpu"))

report["host"]["load_after"] = os.getloadavg()[0]
report["finished_utc"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
bad = [name for name, part in report["parts"].items() if part["status"] not in ("ok", "skipped")]
report["status"] = "failed" if bad else "ok"
report["failed_parts"] = bad
save()
say(f"{report['status']}: {os.path.join(OUT, 'device-check.json')}" + (f" (failed: {', '.join(bad)})" if bad else ""))
if not a.keep_work and not a.work:
    shutil.rmtree(WORK, ignore_errors=True)
sys.exit(1 if bad else 0)
PYEOF
