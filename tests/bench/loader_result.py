"""What every input-pipeline peer of `lathe-cli bench pipeline` prints (torchvision_loader.py,
tfdata_loader.py, dali_loader.py): one JSON line with the same keys, rates from the images
counted after the warm-up."""

import argparse
import json
import resource


def process_cpu_seconds():
    """User + system CPU seconds of this process, all its threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def print_result(benchmark, images, batches, seconds, cpu, threads, batch, image_size, **extra):
    print(json.dumps({
        "benchmark": benchmark,
        "images_per_s": images / seconds if seconds > 0 else 0.0,
        "images_per_cpu_s": images / cpu if cpu > 0 else 0.0,
        "cpu_seconds": cpu,
        "images": images,
        "batches": batches,
        "seconds": seconds,
        "threads": threads,
        "batch": batch,
        "image_size": image_size,
        **extra,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    }))


def shard_arguments(doc):
    """The command line of the peers that read Lathe's shards (tfdata_loader.py, dali_loader.py)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("shard_dir", help="converted dataset folder (lathe-cli convert)")
    parser.add_argument("--split", default="train")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--seconds", type=float, default=10)
    return parser
