#!/usr/bin/env python3
"""The peer of `lathe-cli bench pipeline`: torchvision's ImageNet training input pipeline
(ImageFolder + DataLoader with RandomResizedCrop, RandomHorizontalFlip, ToTensor, Normalize)
over the same images, for SECONDS, counting images per second after a warm-up batch.
Prints one JSON line. Run with the project venv's python (torch 2.11, torchvision 0.26)."""

import argparse
import os
import resource
import time

import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

from loader_result import print_result


def cpu_seconds(loader):
    """CPU seconds (user + system) of this process and of the DataLoader's worker processes,
    which are still running (so RUSAGE_CHILDREN would not count them yet)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    total = usage.ru_utime + usage.ru_stime
    tick = os.sysconf("SC_CLK_TCK")
    for worker in getattr(loader._iterator, "_workers", []):
        with open(f"/proc/{worker.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("image_dir", help="folder with one sub-folder per class")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--image-size", type=int, default=224)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()

    torch.set_num_threads(1)
    recipe = transforms.Compose([
        transforms.RandomResizedCrop(args.image_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ])
    dataset = datasets.ImageFolder(args.image_dir, recipe)
    loader = DataLoader(dataset, batch_size=args.batch, shuffle=True, num_workers=args.workers, drop_last=True,
                        persistent_workers=args.workers > 0)

    start = time.monotonic()
    measured = None
    images = 0
    batches = 0
    epochs = 0
    done = False
    while not done:
        epochs += 1
        for batch, _ in loader:
            batches += 1
            if measured is None:
                measured = time.monotonic()  # the first batch pays for worker start-up
                cpu_at_warm = cpu_seconds(loader)
            else:
                images += batch.shape[0]
            if time.monotonic() - start >= args.seconds:
                done = True
                break
    seconds = time.monotonic() - measured
    cpu = cpu_seconds(loader) - cpu_at_warm
    print_result("torchvision_loader", images, batches, seconds, cpu, args.workers, args.batch, args.image_size,
                 epochs=epochs,
                 workers=args.workers,
                 files=len(dataset),
                 peak_rss_mb_main_process=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
                 torch=torch.__version__)


if __name__ == "__main__":
    main()
