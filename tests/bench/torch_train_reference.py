"""Training throughput of torchvision models in PyTorch, the peer of `lathe-cli bench train`.

Usage: .venv/bin/python torch_train_reference.py --arch resnet18 [--image-size 64] [--batch 32]
       [--steps 20] [--threads 2]
Synthetic data (random tensors), SGD (momentum 0.9), fp32, train mode; 3 warm-up steps, then the
timed steps. Prints one JSON line with the same keys as `lathe-cli bench train`; cpu_ms_per_step is
the CPU time of all the process's threads (spinning OpenMP threads count).
"""
import argparse
import json
import os
import time

import torch
import torchvision


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--classes", type=int, default=1000)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = getattr(torchvision.models, a.arch)(num_classes=a.classes)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(a.batch, 3, a.image_size, a.image_size)
    y = torch.randint(a.classes, (a.batch,))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(3):
        step()
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(a.steps):
        step()
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    print(json.dumps({"arch": a.arch, "batch": a.batch, "image_size": a.image_size, "precision": "fp32",
                      "threads": torch.get_num_threads(), "steps": a.steps,
                      "step_ms": seconds * 1000 / a.steps, "cpu_ms_per_step": cpu_seconds * 1000 / a.steps,
                      "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
                      "images_per_s": a.batch * a.steps / seconds,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
