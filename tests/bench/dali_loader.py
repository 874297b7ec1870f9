#!/usr/bin/env python3
"""A peer of `lathe-cli bench pipeline`: NVIDIA DALI's ImageNet training input pipeline on the
CPU only (device_id=None), over the same TFRecord shards Lathe reads (SHARD_DIR/{split}-*.tfrecord
with their DALI-format .idx files).

readers.tfrecord (random_shuffle) -> decoders.image_random_crop (cpu, RGB, area 0.08-1, aspect
3/4-4/3: decodes the crop only) -> resize 224x224 -> crop_mirror_normalize (random mirror,
ImageNet mean/std, float32, CHW). Output: float32 NCHW. THREADS is DALI's num_threads.

Iterates with pipe.run(), counts images per second after a warm-up batch and images per CPU
second of this process (all its threads). Prints one JSON line; if DALI cannot build or run
its pipeline here, prints {"error": DALI's message} and exits 0. Run with the project venv's
python (nvidia-dali-cuda130 2.4)."""

import glob
import json
import os
import time

from loader_result import print_result, process_cpu_seconds, shard_arguments

MEAN = [0.485 * 255, 0.456 * 255, 0.406 * 255]
STD = [0.229 * 255, 0.224 * 255, 0.225 * 255]


def build(files, args):
    from nvidia.dali import fn, pipeline_def, types
    import nvidia.dali.tfrecord as tfrec

    @pipeline_def(batch_size=args.batch, num_threads=args.threads, device_id=None)
    def pipeline():
        inputs = fn.readers.tfrecord(
            path=files, index_path=[f + ".idx" for f in files], random_shuffle=True, name="reader",
            features={"image/encoded": tfrec.FixedLenFeature((), tfrec.string, ""),
                      "image/class/label": tfrec.FixedLenFeature([1], tfrec.int64, -1)})
        images = fn.decoders.image_random_crop(inputs["image/encoded"], device="cpu", output_type=types.RGB,
                                               random_area=[0.08, 1.0], random_aspect_ratio=[0.75, 1.3333])
        images = fn.resize(images, resize_x=args.image_size, resize_y=args.image_size)
        images = fn.crop_mirror_normalize(images, mirror=fn.random.coin_flip(), mean=MEAN, std=STD,
                                          dtype=types.FLOAT, output_layout="CHW")
        return images, inputs["image/class/label"]

    pipe = pipeline()
    pipe.build()
    return pipe


def main():
    parser = shard_arguments(__doc__)
    args = parser.parse_args()

    files = sorted(glob.glob(os.path.join(args.shard_dir, f"{args.split}-*.tfrecord")))
    if not files:
        parser.error(f"no {args.split}-*.tfrecord in {args.shard_dir}")
    try:
        import nvidia.dali
        pipe = build(files, args)
        start = time.monotonic()
        pipe.run()  # warm-up: the first batch pays for start-up
    except Exception as e:  # noqa: BLE001 - any DALI failure is the result
        print(json.dumps({"benchmark": "dali_loader", "error": f"{type(e).__name__}: {e}".strip()}))
        return

    measured = time.monotonic()
    cpu_at_warm = process_cpu_seconds()
    images = 0
    batches = 1
    while time.monotonic() - start < args.seconds:
        out, _ = pipe.run()
        images += len(out)
        batches += 1
    seconds = time.monotonic() - measured
    cpu = process_cpu_seconds() - cpu_at_warm
    print_result("dali_loader", images, batches, seconds, cpu, args.threads, args.batch, args.image_size,
                 layout="NCHW",  # float32, as Lathe and torchvision give
                 device="cpu",
                 files=pipe.epoch_size("reader"),
                 shards=len(files),
                 dali=nvidia.dali.__version__)


if __name__ == "__main__":
    main()
