"""Reads Lathe's shards with tf.data (TensorFlow's own TFRecord reader and tf.train.Example parser)
and checks every record against the source images: bytes, label, text, size, key.

  tfdata_read_shards.py SHARD_DIR IMAGE_DIR      prints {"records": N, ...} as JSON
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shard_peer_common import check_record, load_manifest, report, shard_files  # noqa: E402

# The TF-slim image keys, as TF-slim's own dataset readers declare them.
SPEC = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/format": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
    "image/class/text": tf.io.FixedLenFeature([], tf.string),
    "image/height": tf.io.FixedLenFeature([], tf.int64),
    "image/width": tf.io.FixedLenFeature([], tf.int64),
    "image/channels": tf.io.FixedLenFeature([], tf.int64),
    "image/filename": tf.io.FixedLenFeature([], tf.string),
    "image/key/sha256": tf.io.FixedLenFeature([], tf.string),
}


def parse(serialized):
    features = tf.io.parse_single_example(serialized, SPEC)
    image = tf.io.decode_image(features["image/encoded"], expand_animations=False)
    return features, tf.shape(image)


def main(shard_dir, image_dir):
    manifest = load_manifest(shard_dir)
    files = shard_files(shard_dir)
    dataset = tf.data.TFRecordDataset(files, num_parallel_reads=2).map(parse)
    seen = []
    for features, shape in dataset:
        record = {k: v.numpy() for k, v in features.items()}
        record = {k: (v.decode("utf-8") if isinstance(v, bytes) and k != "image/encoded" else
                      v if isinstance(v, bytes) else int(v)) for k, v in record.items()}
        seen.append(check_record(image_dir, manifest, record, tuple(int(d) for d in shape.numpy())))
    report("tf.data", tf.__version__, manifest, files, seen)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
