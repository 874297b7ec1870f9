#!/usr/bin/env bash
# The engine bundle (scripts/make-engine-bundle.sh) on a machine that has nothing but a torch
# wheel: a Debian bookworm made with `debootstrap --variant=minbase` (no Python, no OpenCV, no
# protobuf, no libjpeg-turbo) and the project venv's torch and nvidia packages, bind-mounted
# read-only at /opt/torch/torch and /opt/torch/nvidia (the chroot has no Python to install the wheel
# with; the trees are what pip installed from it). Inside the chroot, with only
# LATHE_TORCH_LIB=/opt/torch/torch/lib set: info, bench train, demo-data + convert + a 1-epoch
# training run on CPU with its outputs checked, and proof that every library loaded comes from the
# chroot's own glibc/libstdc++/libgcc, the bundle or /opt/torch.
#   tests/bundle/chroot_test.sh [BUNDLE_DIR]    (default: a bundle made into a temporary folder)
# Needs root and, on the first run, the Debian mirror apt uses (the debootstrap result is cached
# as a tarball in LATHE_CHROOT_CACHE, /var/cache/lathe-chroot). Not a ctest (README: Engine bundle).
# The last line is a JSON summary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${LATHE_PYTHON:-$ROOT/.venv/bin/python}"
CACHE="${LATHE_CHROOT_CACHE:-/var/cache/lathe-chroot}"
TARBALL="$CACHE/bookworm-minbase.tar.gz"
fail() { echo "FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "the chroot test needs root (chroot, mount)"
start=$(date +%s)

# The torch wheel's installed trees.
SITE=$("$PY" -c 'import importlib.util as u, os; print(os.path.dirname(u.find_spec("torch").submodule_search_locations[0]))') \
  || fail "$PY has no torch (scripts/install-python.sh)"
[ -d "$SITE/nvidia" ] || fail "$SITE has no nvidia/ packages: not a CUDA torch wheel"

WORK=$(mktemp -d /tmp/lathe-chroot.XXXXXX)
CH="$WORK/root"
MOUNTS=()
cleanup() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount "${MOUNTS[$i]}" 2>/dev/null || umount -l "${MOUNTS[$i]}"; done
  # Only once nothing is mounted below it: rm -rf must never reach the bind-mounted venv.
  if ! grep -qF " $WORK/" /proc/mounts; then rm -rf "$WORK"; else echo "left $WORK (still mounted)" >&2; fi
}
trap cleanup EXIT

# The bundle.
BUNDLE="${1:-}"
if [ -z "$BUNDLE" ]; then
  BUNDLE="$WORK/bundle"
  "$ROOT/scripts/make-engine-bundle.sh" "$BUNDLE" >&2
fi
[ -x "$BUNDLE/lathe-cli" ] && [ -f "$BUNDLE/MANIFEST.txt" ] || fail "$BUNDLE is not an engine bundle"

# The minimal Debian, made once and cached.
if [ ! -f "$TARBALL" ]; then
  if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >&2
  fi
  # The mirror apt uses here (deb822 sources, then the one-line format).
  mirror=$(sed -n 's|^URIs: *\(\S*/debian\)/\?$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  mirror="${mirror:-http://deb.debian.org/debian}"
  mkdir -p "$CACHE"
  tree="$CACHE/tree.$$"
  echo "chroot test: debootstrap --variant=minbase bookworm from $mirror (once; cached in $TARBALL)" >&2
  debootstrap --variant=minbase bookworm "$tree" "$mirror" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -20 "$CACHE/debootstrap.log" >&2; rm -rf "$tree"; fail "debootstrap (log: $CACHE/debootstrap.log)"; }
  tar -C "$tree" -czf "$TARBALL.tmp" . && mv "$TARBALL.tmp" "$TARBALL"
  rm -rf "$tree"
fi
mkdir -p "$CH"
tar -C "$CH" -xzf "$TARBALL"
# The machine has what a minimal Debian has: no Python, none of the libraries the bundle carries.
[ ! -e "$CH/usr/bin/python3" ] || fail "the chroot has a python3"
for lib in libprotobuf.so.32 libopencv_core.so.406 libturbojpeg.so.0 libjpeg.so.62 libpng16.so.16 libtorch_cpu.so; do
  [ -z "$(find "$CH" -name "$lib" -print -quit)" ] || fail "the chroot already has $lib"
done

mkdir -p "$CH/opt/torch/torch" "$CH/opt/torch/nvidia" "$CH/opt/lathe" "$CH/opt/fashion-mnist"
mount --bind -o ro "$SITE/torch" "$CH/opt/torch/torch"; MOUNTS+=("$CH/opt/torch/torch")
mount -o remount,bind,ro "$CH/opt/torch/torch"
mount --bind -o ro "$SITE/nvidia" "$CH/opt/torch/nvidia"; MOUNTS+=("$CH/opt/torch/nvidia")
mount -o remount,bind,ro "$CH/opt/torch/nvidia"
mount -t proc proc "$CH/proc"; MOUNTS+=("$CH/proc")
cp -a "$BUNDLE/." "$CH/opt/lathe/"
# Fashion-MNIST's IDX files for demo-data (Debian's dataset-fashion-mnist outside).
cp /usr/share/datasets/fashion-mnist/*.gz "$CH/opt/fashion-mnist/" || fail "dataset-fashion-mnist is not installed"

# in_chroot SCRIPT: runs SCRIPT with sh in the chroot, with a clean environment.
in_chroot() {
  chroot "$CH" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root OMP_WAIT_POLICY=PASSIVE \
    /bin/sh -c "$1"
}
CLI="LATHE_TORCH_LIB=/opt/torch/torch/lib /opt/lathe/lathe-cli"

# Without python3 and LATHE_TORCH_LIB the launcher says what to set.
if out=$(in_chroot "/opt/lathe/lathe-cli info" 2>&1); then fail "the launcher ran without a torch: $out"; fi
grep -q "set LATHE_TORCH_LIB" <<<"$out" || fail "the launcher's message without torch: $out"

info=$(in_chroot "$CLI info") || fail "lathe-cli info: $info"
echo "$info" >&2
torch_version=$(sed -n 's/^LibTorch *//p' <<<"$info")
grep -q "^LibTorch *2\.11\." <<<"$info" || fail "info names no LibTorch 2.11"

bench=$(in_chroot "$CLI --json bench train --arch resnet18 --image-size 32 --batch 4 --steps 2 --threads 2") \
  || fail "bench train: $bench"
bench_ok=$("$PY" -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["steps"] == 2 and d["device"] == "cpu"
print(json.dumps({k: d[k] for k in ("arch", "device", "steps", "step_ms")}))' <<<"$bench") \
  || fail "bench train printed no JSON with 2 CPU steps: $bench"

# A real run: PNGs written and converted inside (OpenCV imgcodecs of the bundle), 1 epoch on CPU,
# every library load recorded (LD_DEBUG=libs,files). The training runs bin/lathe-cli as the
# launcher would (LD_LIBRARY_PATH=torch/lib), so the record holds lathe-cli's loads, not the shell's.
in_chroot "$CLI demo-data /tmp/images --per-class 8 --test-per-class 2 --source /opt/fashion-mnist >/dev/null" \
  || fail "demo-data in the chroot"
in_chroot "$CLI convert /tmp/images /tmp/shards --threads 2 >/dev/null" || fail "convert in the chroot"
in_chroot "LD_DEBUG=libs,files LD_DEBUG_OUTPUT=/tmp/lddebug LD_LIBRARY_PATH=/opt/torch/torch/lib /opt/lathe/bin/lathe-cli train --data /tmp/shards --out /tmp/run \
  --arch resnet18 --image-size 32 --epochs 1 --batch 16 --devices cpu >/tmp/train.log 2>&1" \
  || { cat "$CH/tmp/train.log" >&2; fail "train in the chroot"; }
RUN="$CH/tmp/run"
[ -s "$RUN/metrics.jsonl" ] || fail "the run wrote no metrics.jsonl"
"$PY" - "$RUN/metrics.jsonl" <<'EOF' || fail "metrics.jsonl"
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert rows, "no rows"
losses = [v for r in rows for k, v in r.items() if "loss" in k and isinstance(v, (int, float))]
assert losses and all(math.isfinite(v) for v in losses), f"no finite loss in {rows[-1]}"
EOF
checkpoints=$(cd "$RUN" && find checkpoints -type f | sort)
[ -n "$checkpoints" ] || fail "the run wrote no checkpoint"

# Where every library the run loaded came from: the path of each "generating link map" is the
# last file tried before it (the name itself when it has a slash).
loaded=$(cat "$CH"/tmp/lddebug.* | awk '
  { pid = $1 }
  /trying file=/ { s = $0; sub(/.*trying file=/, "", s); last[pid] = s }
  /generating link map/ { s = $0; sub(/.*file=/, "", s); sub(/ \[.*/, "", s); if (s !~ /\//) s = last[pid]; print s }' | sort -u)
[ -n "$loaded" ] || fail "LD_DEBUG recorded no library"
# The same for the link-time closure, torch's CUDA libraries included: ldd in the chroot.
linked=$(in_chroot "LD_LIBRARY_PATH=/opt/torch/torch/lib ldd /opt/lathe/bin/lathe-cli") || fail "ldd in the chroot"
grep "not found" <<<"$linked" && fail "ldd in the chroot: libraries not found"
linked_paths=$(awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}' <<<"$linked" | sort -u)
system=() bundle=0 torch=0
for p in $loaded $linked_paths; do
  real=$(chroot "$CH" /usr/bin/readlink -f "$p")
  case "$real" in
    /opt/lathe/*) bundle=$((bundle + 1)) ;;
    /opt/torch/*) torch=$((torch + 1)) ;;
    /lib/x86_64-linux-gnu/*|/usr/lib/x86_64-linux-gnu/*|/lib64/*)
      name=$(basename "$p")
      case "$name" in
        libc.so.6|libm.so.6|libpthread.so.0|libdl.so.2|librt.so.1|libutil.so.1|ld-linux-x86-64.so.2|libstdc++.so.6|libgcc_s.so.1)
          system+=("$name") ;;
        *) fail "$p ($real) was taken from the chroot's system, not the bundle" ;;
      esac ;;
    *) fail "$p ($real) comes from outside the chroot's system, the bundle and /opt/torch" ;;
  esac
done
system_list=$(printf '%s\n' "${system[@]}" | sort -u | tr '\n' ' ')
echo "loaded by the run ($(wc -l <<<"$loaded")):" >&2
sed 's/^/  /' <<<"$loaded" >&2
echo "system libraries used: $system_list" >&2

mib=$(awk '/^total/ {printf "%.1f", $2 / 1048576}' "$BUNDLE/MANIFEST.txt")
"$PY" - "$mib" "$(ls "$BUNDLE/lib" | wc -l)" "$torch_version" "$bench_ok" "$RUN" "$checkpoints" "$system_list" \
  "$(wc -l <<<"$loaded")" "$bundle" "$torch" "$(( $(date +%s) - start ))" <<'EOF'
import json, sys
mib, libs, torch, bench, run, checkpoints, system, loaded, bundle, torch_n, seconds = sys.argv[1:]
print(json.dumps({"test": "engine_bundle_chroot", "ok": True, "chroot": "debian bookworm minbase",
  "bundle_mib": float(mib), "bundle_libraries": int(libs), "libtorch": torch, "bench_train": json.loads(bench),
  "train_metrics_rows": sum(1 for l in open(run + "/metrics.jsonl") if l.strip()),
  "checkpoints": checkpoints.split(), "libraries_loaded_by_train": int(loaded),
  "resolved_in_bundle": int(bundle), "resolved_in_torch": int(torch_n), "system_libraries": system.split(),
  "seconds": int(seconds)}))
EOF
