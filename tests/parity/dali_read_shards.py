"""Reads Lathe's shards with NVIDIA DALI's fn.readers.tfrecord and our .idx files, in a CPU-only
pipeline (device_id=None), and checks every record against the source images.

  dali_read_shards.py SHARD_DIR IMAGE_DIR      prints {"records": N, ...} as JSON
Exit status 77 (a skip) only when DALI itself cannot start here, with its error on stderr.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shard_peer_common import check_record, load_manifest, report, shard_files  # noqa: E402

try:
    import numpy as np
    import nvidia.dali as dali
    import nvidia.dali.fn as fn
    import nvidia.dali.tfrecord as tfrec
    from nvidia.dali import pipeline_def
except Exception as e:  # the wheel missing or unable to load its libraries
    print(f"dali_read_shards: DALI cannot be imported: {e}", file=sys.stderr)
    sys.exit(77)

STRINGS = ("image/encoded", "image/format", "image/class/text", "image/filename", "image/key/sha256")
INTS = ("image/class/label", "image/height", "image/width", "image/channels")


def main(shard_dir, image_dir):
    manifest = load_manifest(shard_dir)
    files = shard_files(shard_dir)
    features = {k: tfrec.FixedLenFeature((), tfrec.string, "") for k in STRINGS}
    features.update({k: tfrec.FixedLenFeature([1], tfrec.int64, -1) for k in INTS})

    @pipeline_def(batch_size=1, num_threads=1, device_id=None, prefetch_queue_depth=1)
    def pipe():
        r = fn.readers.tfrecord(path=files, index_path=[f + ".idx" for f in files], features=features,
                                random_shuffle=False, name="Reader")
        decoded = fn.decoders.image(r["image/encoded"], device="cpu", output_type=dali.types.ANY_DATA)
        return tuple(r[k] for k in STRINGS + INTS) + (decoded.shape(),)

    try:
        p = pipe()
        p.build()
        total = p.epoch_size("Reader")
    except Exception as e:
        print(f"dali_read_shards: DALI could not build a CPU-only pipeline here: {e}", file=sys.stderr)
        sys.exit(77)
    seen = []
    for _ in range(total):
        outputs = p.run()
        values = [np.array(o.at(0)) for o in outputs]
        record = {k: values[i].tobytes() for i, k in enumerate(STRINGS)}
        record = {k: (v if k == "image/encoded" else v.decode("utf-8")) for k, v in record.items()}
        record.update({k: int(values[len(STRINGS) + i].reshape(-1)[0]) for i, k in enumerate(INTS)})
        h, w, c = (int(v) for v in values[-1])
        seen.append(check_record(image_dir, manifest, record, (h, w, c)))
    report("dali", dali.__version__, manifest, files, seen)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
