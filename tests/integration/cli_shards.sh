#!/usr/bin/env bash
# convert + verify end to end on real photos among hostile files, and the shards read by the
# tools users read them with: tf.data (TensorFlow) and NVIDIA DALI (CPU-only pipeline).
#   LATHE_PYTHON=.venv/bin/python cli_shards.sh LATHE_CLI
set -uo pipefail
CLI="$1"
source "$(dirname "$0")/assert.sh"
PARITY="$(cd "$(dirname "$0")/../parity" && pwd)"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DATA=/usr/share/darknet/data

mkdir -p "$TMP/img/animal" "$TMP/img/scene"
cp $DATA/dog.jpg $DATA/eagle.jpg $DATA/horses.jpg $DATA/giraffe.jpg "$TMP/img/animal/"
cp $DATA/kite.jpg $DATA/person.jpg $DATA/scream.jpg "$TMP/img/scene/"
head -c 9000 $DATA/kite.jpg > "$TMP/img/scene/cut.jpg"
: > "$TMP/img/scene/empty.jpg"
echo "not an image" > "$TMP/img/animal/notes.jpg"
cp $DATA/dog.jpg "$TMP/img/animal/dog-copy.jpg"

out=$("$CLI" --json convert "$TMP/img" "$TMP/shards" --shard-records 2 --val 0 --test 0) || fail "convert"
expect_eq "$(json_get 'd["records"]' <<<"$out")" "7" "records"
expect_eq "$(json_get 'len(d["shards"])' <<<"$out")" "4" "shards"
expect_eq "$(json_get 'sorted(r["path"] for r in d["rejected"])' <<<"$out")" \
  "['animal/dog.jpg', 'animal/notes.jpg', 'scene/cut.jpg', 'scene/empty.jpg']" "left out"
"$CLI" verify "$TMP/shards" >/dev/null || fail "verify of a fresh conversion"

# tf.data sees every image byte for byte, with its label, text, size and key; so does DALI
# through our .idx files.
out=$("$PY" "$PARITY/tfdata_read_shards.py" "$TMP/shards" "$TMP/img") || fail "tf.data disagrees with the shards"
expect_eq "$(json_get 'd["records"]' <<<"$out")" "7" "records read by tf.data"
out=$("$PY" "$PARITY/dali_read_shards.py" "$TMP/shards" "$TMP/img"); rc=$?
if [ $rc -eq 77 ]; then
  echo "note: DALI cannot run here (see above); its check runs on the GPU machine"
else
  [ $rc -eq 0 ] || fail "DALI disagrees with the shards"
  expect_eq "$(json_get 'd["records"]' <<<"$out")" "7" "records read by DALI"
fi

# The .idx offsets are exact: each line points at a record's length field.
"$PY" - "$TMP/shards" <<'PY' || fail "index offsets"
import glob, struct, sys
for shard in glob.glob(sys.argv[1] + "/*.tfrecord"):
    data = open(shard, "rb").read()
    pos, lines = 0, []
    while pos < len(data):
        (n,) = struct.unpack_from("<Q", data, pos)
        lines.append(f"{pos} {n + 16}")
        pos += n + 16
    assert open(shard + ".idx").read().split("\n")[:-1] == lines, shard
PY

# Damage is named: a flipped byte, a truncated shard, a deleted index line.
cp -r "$TMP/shards" "$TMP/bad"
first=$(ls "$TMP"/bad/*.tfrecord | head -1)
printf '\xff' | dd of="$first" bs=1 seek=100 conv=notrunc status=none
second=$(ls "$TMP"/bad/*.tfrecord | sed -n 2p)
truncate -s -50 "$second"
third=$(ls "$TMP"/bad/*.tfrecord | sed -n 3p)
sed -i '1d' "$third.idx"
err=$("$CLI" verify "$TMP/bad"); rc=$?
[ $rc -ne 0 ] || fail "verify must fail on damage"
expect_contains "$err" "$first: corrupt record at byte offset 0" "flipped byte named"
expect_contains "$err" "$second: " "truncated shard named"
expect_contains "$err" "$third.idx" "index named"

# An interrupted conversion leaves nothing that looks like a dataset.
mkdir "$TMP/big"
for i in $(seq 1 300); do cp $DATA/person.jpg "$TMP/big/$i.jpg"; printf '%04d' $i >> "$TMP/big/$i.jpg"; done
mkdir "$TMP/big2" && mv "$TMP/big" "$TMP/big2/kites"
"$CLI" convert "$TMP/big2" "$TMP/interrupted" --shard-records 10 >/dev/null 2>&1 &
pid=$!
for i in $(seq 1 200); do ls -a "$TMP" | grep '^\.interrupted\.partial' >/dev/null && break; sleep 0.05; done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
if [ -e "$TMP/interrupted" ]; then
  echo "note: the conversion ended before it could be killed"
  "$CLI" verify "$TMP/interrupted" >/dev/null || fail "a conversion that got to its end must be complete"
else
  "$CLI" verify "$TMP/interrupted" >/dev/null 2>&1 && fail "verify accepted a missing dataset"
  for partial in "$TMP"/.interrupted.partial-*; do
    [ -e "$partial" ] || continue
    [ ! -e "$partial/dataset.json" ] || fail "the killed conversion's temporary folder has a manifest"
    "$CLI" verify "$partial" >/dev/null 2>&1 && fail "verify accepted the killed conversion's folder"
  done
fi
echo "cli shards: all passed"
