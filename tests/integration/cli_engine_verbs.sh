#!/usr/bin/env bash
# lathe-cli verbs that need only the engine: --version, --help, info, demo-data.
set -uo pipefail
CLI="$1"
source "$(dirname "$0")/assert.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

expect_contains "$("$CLI" --version)" "lathe-cli 0." "--version"
expect_contains "$("$CLI" --help)" "demo-data" "--help lists demo-data"

info=$("$CLI" --json info) || fail "info failed"
expect_eq "$(json_get 'd["libtorch"]' <<<"$info")" "${LATHE_EXPECT_LIBTORCH:?}" "info libtorch"
expect_eq "$(json_get 'd["libtorch_cuda"] or ""' <<<"$info")" "${LATHE_EXPECT_LIBTORCH_CUDA-}" "info: LibTorch's CUDA"
expect_eq "$(json_get 'd["devices"][0]["id"]' <<<"$info")" "cpu" "info lists the CPU first"
text=$("$CLI" info) || fail "info (text) failed"
if [ -n "${LATHE_EXPECT_LIBTORCH_CUDA-}" ]; then
  expect_contains "$text" "(with CUDA $LATHE_EXPECT_LIBTORCH_CUDA)" "info says LibTorch has CUDA"
else
  expect_contains "$text" "(CPU only)" "info says LibTorch is CPU only"
fi
[ "$(json_get 'd["torch_threads"]' <<<"$info")" -ge 1 ] || fail "torch threads"

out=$("$CLI" --json demo-data "$TMP/fm" --per-class 4 --test-per-class 2) || fail "demo-data failed"
expect_eq "$(json_get 'd["train_images"]' <<<"$out")" "40" "train images"
expect_eq "$(json_get 'len(d["classes"])' <<<"$out")" "10" "classes"
expect_eq "$(ls "$TMP/fm/train" | wc -l)" "10" "train class folders"
expect_eq "$(ls "$TMP/fm/test" | wc -l)" "10" "test class folders"
expect_eq "$(ls "$TMP/fm/train/Trouser" | wc -l)" "4" "images per class"
expect_eq "$(find "$TMP/fm" -name '*.png' | wc -l)" "60" "png count"
# Real PNGs, 28x28 grayscale (PNG signature and IHDR width/height/colour type).
f=$(find "$TMP/fm/train/Sneaker" -name '*.png' | head -1)
expect_eq "$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')" "89504e470d0a1a0a" "PNG signature"
expect_eq "$(od -An -j16 -N8 -tu1 "$f" | tr -s ' ')" " 0 0 0 28 0 0 0 28" "PNG size"

# Errors: stderr, non-zero exit, the folder named.
err=$("$CLI" demo-data "$TMP/fm" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] || fail "non-empty folder must fail"
expect_contains "$err" "$TMP/fm: folder is not empty" "error names the folder"
err=$("$CLI" demo-data "$TMP/x" --source "$TMP/none" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] || fail "missing source must fail"
expect_contains "$err" "dataset-fashion-mnist" "missing package named"
"$CLI" demo-data "$TMP/y" --per-class 0 >/dev/null 2>&1 && fail "--per-class 0 must be refused"
"$CLI" no-such-verb >/dev/null 2>&1 && fail "unknown verb must fail"
# scan: real photos, a truncated copy and a text file named .jpg; exit 0 with the reasons.
mkdir -p "$TMP/scan/dog" "$TMP/scan/cat"
cp /usr/share/darknet/data/dog.jpg /usr/share/darknet/data/horses.jpg "$TMP/scan/dog/"
cp /usr/share/darknet/data/eagle.jpg "$TMP/scan/cat/"
head -c 5000 /usr/share/darknet/data/person.jpg > "$TMP/scan/cat/cut.jpg"
echo "not a picture" > "$TMP/scan/cat/note.jpg"
out=$("$CLI" --json scan "$TMP/scan") || fail "scan must exit 0 when files are rejected"
expect_eq "$(json_get 'd["ok"]' <<<"$out")" "3" "scan ok"
expect_eq "$(json_get 'sorted(r["path"] for r in d["rejected"])' <<<"$out")" "['cat/cut.jpg', 'cat/note.jpg']" "scan rejected"
expect_contains "$(json_get '[r["reason"] for r in d["rejected"] if r["path"]=="cat/cut.jpg"][0]' <<<"$out")" "truncated" "cut reason"
expect_contains "$("$CLI" scan "$TMP/scan")" "cat/note.jpg: not an image" "scan text output"
err=$("$CLI" scan "$TMP/none" 2>&1 >/dev/null) && fail "scan of a missing folder must fail"
expect_contains "$err" "$TMP/none: folder not found" "missing folder named"
echo "cli engine verbs: all passed"
