#!/usr/bin/env bash
# Multi-label datasets end to end: a labels file (CSV) for demo images, scan and convert with
# --labels, verify, and tf.data reading the shards with tf.io.VarLenFeature for the label lists:
# every record's label set is exactly the CSV's.
#   LATHE_PYTHON=.venv/bin/python multilabel_shards.sh LATHE_CLI
set -uo pipefail
CLI="$1"
source "$(dirname "$0")/assert.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

"$CLI" demo-data "$TMP/demo" --per-class 4 --test-per-class 2 >/dev/null || fail "demo-data"

# Each image: its class, a coarse group, and "dark" for every third image; separators ';' and
# '|', whitespace and quoting as people write them. Then a row for a file that is not there and
# a row with an empty label. expected.json keeps what the CSV says, for tf.data to match.
"$PY" - "$TMP/demo" "$TMP/labels.csv" "$TMP/expected.json" <<'PY' || fail "writing the labels file"
import csv, json, os, sys
root, out, expected_path = sys.argv[1:]
groups = {"Sandal": "feet", "Sneaker": "feet", "Ankle_boot": "feet", "Trouser": "legs", "Bag": "carried"}
expected, rows = {}, []
for i, rel in enumerate(sorted(os.path.relpath(os.path.join(d, f), root)
                               for d, _, files in os.walk(root) for f in files)):
    cls = rel.split("/")[1]
    labels = [cls, groups.get(cls, "body")] + (["dark"] if i % 3 == 0 else [])
    rows.append([rel, (" ; " if i % 2 else "|").join(labels)])
    expected[rel] = sorted(set(labels))
rows.append(["train/Bag/not-there.png", "Bag"])
rows.append(["train/Bag/again.png", "Bag;;dark"])
with open(out, "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_MINIMAL)
    w.writerow(["path", "labels"])
    w.writerows(rows)
json.dump(expected, open(expected_path, "w"))
PY
images=$("$PY" -c "import json; print(len(json.load(open('$TMP/expected.json'))))")
expect_eq "$images" "60" "images listed"

# scan --labels: the task, one entry per bad row, the labels' counts.
out=$("$CLI" --json scan "$TMP/demo" --labels "$TMP/labels.csv") || fail "scan --labels"
expect_eq "$(json_get 'd["task"]' <<<"$out")" "multi_label" "scan task"
expect_eq "$(json_get 'd["ok"]' <<<"$out")" "60" "scan usable"
expect_eq "$(json_get 'sorted((r["path"], r["reason"]) for r in d["rejected"])' <<<"$out")" \
  "[('labels.csv:63', 'an empty label for train/Bag/again.png (two separators in a row, or one at an end)'), ('train/Bag/not-there.png', 'listed in labels.csv line 62 but not found')]" \
  "scan rejected"
expect_eq "$(json_get '" ".join(str(n) for n in (d["classes"]["feet"]["train"], d["classes"]["feet"]["test"], d["classes"]["dark"]["train"] + d["classes"]["dark"]["test"]))' <<<"$out")" \
  "12 6 20" "scan per-label counts"
text=$("$CLI" scan "$TMP/demo" --labels "$TMP/labels.csv") || fail "scan --labels (text)"
expect_contains "$text" "Multi-label: 15 labels" "scan text"

out=$("$CLI" --json convert "$TMP/demo" "$TMP/shards" --labels "$TMP/labels.csv" --shard-records 16) || fail "convert --labels"
expect_eq "$(json_get 'd["task"]' <<<"$out")" "multi_label" "convert task"
expect_eq "$(json_get 'd["records"]' <<<"$out")" "60" "records"
expect_eq "$(json_get 'len(d["rejected"])' <<<"$out")" "2" "left out"
expect_eq "$("$PY" -c "import json; print(json.load(open('$TMP/shards/dataset.json'))['task'])")" "multi_label" \
  "dataset.json task"
text=$("$CLI" verify "$TMP/shards") || fail "verify of a multi-label conversion: $text"
expect_contains "$text" "multi-label" "verify text"
expect_eq "$("$CLI" --json verify "$TMP/shards" | json_get '" ".join(str(v) for v in (d["task"], d["ok"], d["records"]))')" \
  "multi_label True 60" "verify"

# tf.data: the label lists as TF-slim datasets declare variable-length keys; every record's
# set and texts are exactly the CSV's, dataset.json's counts are the records per label.
"$PY" - "$TMP/shards" "$TMP/expected.json" <<'PY' || fail "tf.data disagrees with the labels file"
import collections, glob, json, os, sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf
shards, expected_path = sys.argv[1:]
expected = json.load(open(expected_path))
manifest = json.load(open(os.path.join(shards, "dataset.json")))
classes = manifest["classes"]
spec = {
    "image/class/label": tf.io.VarLenFeature(tf.int64),
    "image/class/text": tf.io.VarLenFeature(tf.string),
    "image/filename": tf.io.FixedLenFeature([], tf.string),
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
}
seen, counts = {}, collections.defaultdict(collections.Counter)
for shard in sorted(glob.glob(os.path.join(shards, "*.tfrecord"))):
    split = os.path.basename(shard).split("-")[0]
    for record in tf.data.TFRecordDataset([shard]):
        f = tf.io.parse_single_example(record, spec)
        labels = tf.sparse.to_dense(f["image/class/label"]).numpy().tolist()
        texts = [t.decode() for t in tf.sparse.to_dense(f["image/class/text"], default_value=b"").numpy()]
        name = f["image/filename"].numpy().decode()
        assert labels == sorted(set(labels)), (name, labels)
        assert texts == [classes[i] for i in labels], (name, labels, texts)
        assert name not in seen, name
        seen[name] = texts
        counts[split].update(texts)
        tf.io.decode_png(f["image/encoded"])  # the image is there and decodes
assert seen == expected, {k: (seen.get(k), expected.get(k)) for k in set(seen) | set(expected) if seen.get(k) != expected.get(k)}
for split, per_label in manifest["counts"].items():
    for label, n in per_label.items():
        assert counts[split][label] == n, (split, label, counts[split][label], n)
print(json.dumps({"records": len(seen)}))
PY

# A bad labels file is refused whole, naming it; an unknown task in dataset.json too.
echo "file,tags" > "$TMP/bad.csv"
out=$("$CLI" convert "$TMP/demo" "$TMP/none" --labels "$TMP/bad.csv" 2>&1) && fail "a labels file without path,labels converted"
expect_contains "$out" "bad.csv: line 1: the header must name the columns path and labels" "bad header"
[ ! -e "$TMP/none" ] || fail "a refused conversion left a folder"
"$PY" - "$TMP/shards/dataset.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["task"] = "detection"; json.dump(d, open(sys.argv[1], "w"))
PY
out=$("$CLI" verify "$TMP/shards" 2>&1) && fail "verify accepted task 'detection'"
expect_contains "$out" "\"task\" is 'detection', expected 'single_label' or 'multi_label'" "unknown task"
echo "multilabel_shards: OK"
