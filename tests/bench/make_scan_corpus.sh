#!/usr/bin/env bash
# Makes the scanner benchmark's corpus: N JPEGs of 500x375 in 10 class folders, cut from the
# real photos in Debian's darknet package. Each file differs in its bytes (a trailing tag
# after the JPEG's end, which decoders ignore), so every one is read, hashed and decoded.
# Usage: make_scan_corpus.sh OUT_DIR [N=10000]
set -euo pipefail
OUT="$1"
N="${2:-10000}"
mkdir -p "$OUT/.seeds"
i=0
for photo in /usr/share/darknet/data/*.jpg; do
  for g in 0 1 2 3 4; do
    convert "$photo" -strip -resize 700x525^ -gravity center -crop 500x375+$((g * 23 - 46))+$((g * 11 - 22)) +repage \
      -quality 90 "$OUT/.seeds/$i.jpg"
    i=$((i + 1))
  done
done
seeds=$i
for ((k = 0; k < N; k++)); do
  class="class$((k % 10))"
  mkdir -p "$OUT/$class"
  f="$OUT/$class/$k.jpg"
  cp "$OUT/.seeds/$((k % seeds)).jpg" "$f"
  printf 'lathe-%08d' "$k" >> "$f"
done
rm -rf "$OUT/.seeds"
echo "$N JPEGs in $OUT"
