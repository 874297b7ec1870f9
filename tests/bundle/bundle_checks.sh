#!/usr/bin/env bash
# The engine bundle made from the engine-only tree's lathe-cli (scripts/make-engine-bundle.sh), on
# this machine: its size, RPATHs and manifest, the launcher finding torch, refusing another torch
# version and a folder without one, and the bundle working after it is moved (PNG codecs included:
# demo-data and convert go through the stubbed OpenCV imgcodecs). Compiles nothing; ~15 s.
# The chroot proof (chroot_test.sh) needs root and the Debian mirror, so is run by hand.
#   bundle_checks.sh ENGINE_TREE
set -euo pipefail
TREE="$1"
HERE="$(cd "$(dirname "$0")" && pwd)"
source "$HERE/../integration/assert.sh"
[ -x "$TREE/app/lathe-cli" ] || fail "$TREE/app/lathe-cli missing: scripts/build.sh all builds it"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

LATHE_CLI="$TREE/app/lathe-cli" "$HERE/../../scripts/make-engine-bundle.sh" "$TMP/bundle" >"$TMP/make.log" 2>&1 \
  || { cat "$TMP/make.log"; fail "make-engine-bundle.sh"; }
B="$TMP/bundle"

# Size and manifest: every file listed with its size and SHA-256, the total within 48 MiB.
bytes=$(du -sb "$B" | cut -f1)
[ "$bytes" -le $((48 * 1048576)) ] || fail "the bundle is $bytes bytes, over 48 MiB"
torch_dir=$("$PY" -c 'import importlib.util as u; print(u.find_spec("torch").submodule_search_locations[0])')
torch_lib="$torch_dir/lib"
torch_version=$(sed -n "s/^__version__ = '\(.*\)'/\1/p" "$torch_dir/version.py")
expect_contains "$(cat "$B/MANIFEST.txt")" "built against torch $torch_version" "MANIFEST names the torch version"
listed=$(awk 'NF == 3 && length($2) == 64 {print $3}' "$B/MANIFEST.txt" | sort)
expect_eq "$listed" "$(cd "$B" && find . -type f ! -name MANIFEST.txt | sed 's|^\./||' | sort)" "MANIFEST lists every file"
(cd "$B" && awk 'NF == 3 && length($2) == 64 {print $2 "  " $3}' MANIFEST.txt | sha256sum --quiet -c -) \
  || fail "MANIFEST's SHA-256 sums"

# RPATHs: the program finds lib/, each library its neighbours; nothing names the build machine.
expect_eq "$(patchelf --print-rpath "$B/bin/lathe-cli")" '$ORIGIN/../lib' "bin/lathe-cli's RPATH"
for f in "$B"/lib/*; do
  expect_eq "$(patchelf --print-rpath "$f")" '$ORIGIN' "$(basename "$f")'s RPATH"
done
if readelf -d "$B/bin/lathe-cli" "$B"/lib/* | grep RUNPATH >/dev/null; then fail "a RUNPATH is left (LD_LIBRARY_PATH would win over the bundle)"; fi
for lib in libtorch_cpu.so libc10.so libc.so.6 libstdc++.so.6; do
  [ ! -e "$B/lib/$lib" ] || fail "$lib is in the bundle: the machine's own is used"
done

# The launcher, moved elsewhere: torch through the venv's python, then through LATHE_TORCH_LIB.
mv "$B" "$TMP/moved"
B="$TMP/moved"
info=$(env -u LATHE_TORCH_LIB LATHE_PYTHON="$PY" "$B/lathe-cli" info) || fail "lathe-cli info through LATHE_PYTHON"
expect_contains "$info" "LibTorch       ${torch_version%%+*}" "info names the machine's LibTorch"
LATHE_TORCH_LIB="$torch_lib" "$B/lathe-cli" --version >/dev/null || fail "lathe-cli --version through LATHE_TORCH_LIB"
LATHE_TORCH_LIB="$torch_lib" "$B/lathe-cli" demo-data "$TMP/images" --per-class 2 --test-per-class 1 >/dev/null \
  || fail "demo-data from the bundle (PNG writing)"
out=$(LATHE_TORCH_LIB="$torch_lib" "$B/lathe-cli" convert "$TMP/images" "$TMP/shards") || fail "convert from the bundle"
expect_contains "$out" "Wrote 30 records" "convert from the bundle (PNG reading)"

# Another torch version: refused with both versions named, exit 3.
mkdir -p "$TMP/other-torch/torch/lib"
: >"$TMP/other-torch/torch/lib/libtorch_cpu.so"
echo "__version__ = '2.10.0+cu128'" >"$TMP/other-torch/torch/version.py"
set +e
out=$(LATHE_TORCH_LIB="$TMP/other-torch/torch/lib" "$B/lathe-cli" info 2>&1); status=$?
set -e
expect_eq "$status" "3" "exit status for another torch version"
expect_contains "$out" "built against torch $torch_version, but $TMP/other-torch/torch/lib is torch 2.10.0+cu128" \
  "message for another torch version"
set +e
out=$(LATHE_TORCH_LIB="$TMP" "$B/lathe-cli" info 2>&1); status=$?
set -e
expect_eq "$status" "3" "exit status for a folder without torch"
expect_contains "$out" "has no libtorch_cpu.so" "message for a folder without torch"
echo "engine bundle: $(awk '/^total/ {print $2}' "$B/MANIFEST.txt") bytes, $(ls "$B/lib" | wc -l) libraries, checks passed"
