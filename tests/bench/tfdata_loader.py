#!/usr/bin/env python3
"""A peer of `lathe-cli bench pipeline`: tf.data's ImageNet training input pipeline, written
the way TensorFlow's data performance guide says, over the same TFRecord shards Lathe reads
(SHARD_DIR/{split}-*.tfrecord; tf.train.Example with image/encoded JPEG and image/class/label).

files -> shuffle -> interleave(TFRecordDataset, parallel) -> shuffle(records) -> repeat ->
map(parse_single_example, sample_distorted_bounding_box (area 0.08-1, aspect 3/4-4/3, 10
attempts), decode_and_crop_jpeg (ROI decode), resize 224 bilinear, random flip, ImageNet
mean/std; num_parallel_calls=AUTOTUNE) -> batch(drop_remainder) -> prefetch(AUTOTUNE).
Output: float32 NHWC (TF's natural layout).

--cache: the decoded full-size images are cached (parse + decode -> cache() -> shuffle ->
repeat -> crop/resize/flip/normalise), tf.data's peer of Lathe's --cache-mb; the warm-up then
covers the whole first epoch (plus a batch), so the timed part reads from the cache.

Threads are limited to THREADS: TF's intra- and inter-op pools, and the dataset's private
thread pool (max_intra_op_parallelism 1). Counts images per second after the warm-up and
images per CPU second of this process (all its threads). Prints one JSON line. Run with the
project venv's python (tensorflow_cpu 2.21)."""

import glob
import os
import time

from loader_result import print_result, process_cpu_seconds, shard_arguments

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]
SPEC = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
}
WHOLE_IMAGE = [[[0.0, 0.0, 1.0, 1.0]]]  # a plain list: no TF op before the thread pools are set


def crop_window(shape):
    """Random crop box (offset_y, offset_x, height, width) as RandomResizedCrop draws it."""
    begin, size, _ = tf.image.sample_distorted_bounding_box(
        shape, bounding_boxes=WHOLE_IMAGE, min_object_covered=0.0, aspect_ratio_range=(3 / 4, 4 / 3),
        area_range=(0.08, 1.0), max_attempts=10, use_image_if_no_bounding_boxes=True)
    return begin, size


def finish(image, label, image_size):
    """Resize the crop, flip at random, normalise: float32 HWC."""
    image = tf.image.resize(image, [image_size, image_size], method="bilinear")
    image = tf.image.random_flip_left_right(image)
    image = (image / 255.0 - MEAN) / STD
    return tf.cast(image, tf.float32), label


def make_dataset(files, args):
    def parse_crop_decode(record):  # the whole recipe, ROI decode of the crop only
        example = tf.io.parse_single_example(record, SPEC)
        encoded = example["image/encoded"]
        begin, size = crop_window(tf.io.extract_jpeg_shape(encoded))
        window = tf.stack([begin[0], begin[1], size[0], size[1]])
        image = tf.io.decode_and_crop_jpeg(encoded, window, channels=3)
        return finish(image, example["image/class/label"], args.image_size)

    def parse_decode(record):  # --cache: the full-size decoded image, cached
        example = tf.io.parse_single_example(record, SPEC)
        return tf.io.decode_jpeg(example["image/encoded"], channels=3), example["image/class/label"]

    def crop(image, label):  # --cache: the augmentation from the cached image
        begin, size = crop_window(tf.shape(image))
        return finish(tf.slice(image, begin, size), label, args.image_size)

    autotune = tf.data.AUTOTUNE
    dataset = tf.data.Dataset.from_tensor_slices(files).shuffle(len(files))
    dataset = dataset.interleave(tf.data.TFRecordDataset, cycle_length=min(args.threads, len(files)),
                                 num_parallel_calls=autotune)
    if args.cache:
        dataset = dataset.map(parse_decode, num_parallel_calls=autotune).cache()
        dataset = dataset.shuffle(args.shuffle_buffer).repeat().map(crop, num_parallel_calls=autotune)
    else:
        dataset = dataset.shuffle(args.shuffle_buffer).repeat()
        dataset = dataset.map(parse_crop_decode, num_parallel_calls=autotune)
    dataset = dataset.batch(args.batch, drop_remainder=True).prefetch(autotune)

    options = tf.data.Options()
    options.threading.private_threadpool_size = args.threads
    options.threading.max_intra_op_parallelism = 1
    options.deterministic = False
    return dataset.with_options(options)


def main():
    parser = shard_arguments(__doc__)
    parser.add_argument("--shuffle-buffer", type=int, default=1024, help="records (--cache: decoded images)")
    parser.add_argument("--cache", action="store_true", help="cache the decoded full-size images in RAM")
    args = parser.parse_args()

    tf.config.threading.set_intra_op_parallelism_threads(args.threads)
    tf.config.threading.set_inter_op_parallelism_threads(args.threads)
    files = sorted(glob.glob(os.path.join(args.shard_dir, f"{args.split}-*.tfrecord")))
    if not files:
        parser.error(f"no {args.split}-*.tfrecord in {args.shard_dir}")
    records = 0
    for f in files:
        with open(f + ".idx") as idx:
            records += sum(1 for line in idx if line.strip())

    # Warm-up: the first batch (start-up); with --cache the whole first epoch, which fills the cache.
    warm_images = records + args.batch if args.cache else 1
    start = time.monotonic()
    measured = None
    seen = images = batches = 0
    for batch, _ in make_dataset(files, args):
        batches += 1
        if measured is None:
            seen += batch.shape[0]
            if seen >= warm_images:
                measured = time.monotonic()
                cpu_at_warm = process_cpu_seconds()
        else:
            images += batch.shape[0]
        # SECONDS in all, as the other sides count; at least half of it timed after a long warm-up.
        if measured is not None and time.monotonic() >= max(start + args.seconds, measured + args.seconds / 2):
            break
    seconds = time.monotonic() - measured
    cpu = process_cpu_seconds() - cpu_at_warm
    print_result("tfdata_loader", images, batches, seconds, cpu, args.threads, args.batch, args.image_size,
                 layout="NHWC",  # float32, TF's natural layout (Lathe and torchvision give NCHW)
                 cache=args.cache,
                 warm_up="first full epoch (fills the cache) + one batch" if args.cache else "first batch",
                 files=records,
                 shards=len(files),
                 tensorflow=tf.__version__)


if __name__ == "__main__":
    main()
