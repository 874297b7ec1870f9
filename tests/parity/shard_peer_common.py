"""What the shard peers (tf.data, DALI) check in each record they read, against the source files."""
import hashlib
import json
import os


def load_manifest(shard_dir):
    with open(os.path.join(shard_dir, "dataset.json")) as f:
        return json.load(f)


def shard_files(shard_dir):
    return sorted(os.path.join(shard_dir, n) for n in os.listdir(shard_dir) if n.endswith(".tfrecord"))


def check_record(image_dir, manifest, record, decoded_shape=None):
    """record: dict of TF-slim keys to Python values. Returns the filename; raises on a mismatch."""
    name = record["image/filename"]
    with open(os.path.join(image_dir, name), "rb") as f:
        data = f.read()
    digest = hashlib.sha256(data).hexdigest()
    where = f"record {name!r}"
    assert record["image/encoded"] == data, f"{where}: image/encoded is not the source file's bytes"
    assert record["image/key/sha256"] == digest, f"{where}: image/key/sha256 {record['image/key/sha256']} != {digest}"
    label = record["image/class/label"]
    classes = manifest["classes"]
    assert 0 <= label < len(classes), f"{where}: label {label} outside the {len(classes)} classes"
    assert classes[label] == record["image/class/text"] == name.split("/")[0], \
        f"{where}: label {label} ({classes[label]}), text {record['image/class/text']!r}, folder {name.split('/')[0]!r}"
    assert record["image/format"] in ("jpeg", "png", "bmp", "tiff", "webp"), f"{where}: format {record['image/format']!r}"
    if decoded_shape is not None:
        h, w, c = decoded_shape
        assert (h, w) == (record["image/height"], record["image/width"]), \
            f"{where}: decoded {w}x{h}, record says {record['image/width']}x{record['image/height']}"
        assert c == record["image/channels"], f"{where}: decoded {c} channels, record says {record['image/channels']}"
    return name


def report(peer, version, manifest, files, seen):
    """Every record of dataset.json read exactly once; prints the peer's JSON summary."""
    expected = sum(s["records"] for s in manifest["shards"])
    assert len(seen) == expected, f"{peer} read {len(seen)} records, dataset.json lists {expected}"
    assert len(set(seen)) == len(seen), f"{peer} read a record twice"
    print(json.dumps({"peer": peer, "version": version, "shards": len(files), "records": len(seen)}))
