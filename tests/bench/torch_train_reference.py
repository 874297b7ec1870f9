"""Training throughput of torchvision models in PyTorch, the peer of `lathe-cli bench train`.

Usage: .venv/bin/python torch_train_reference.py --arch resnet18 [--image-size 64] [--batch 32]
       [--steps 20] [--threads 2] [--optimizer sgd|adamw] [--precision fp32|bf16]
Synthetic data (random tensors), train mode, PyTorch's recommended defaults: SGD (lr 0.01,
momentum 0.9) or AdamW (lr 1e-3, weight decay 0.01), each with its default implementation (on the
CPU the per-tensor loop: PyTorch picks foreach kernels only for CUDA tensors); bf16 through
torch.autocast("cpu", torch.bfloat16). 3 warm-up steps, then the timed steps. Prints one JSON line with the same keys as `lathe-cli bench train`; cpu_ms_per_step is
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
    p.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd")
    p.add_argument("--precision", choices=["fp32", "bf16"], default="fp32")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    model = getattr(torchvision.models, a.arch)(num_classes=a.classes)
    model.train()
    if a.optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    bf16 = a.precision == "bf16"
    x = torch.randn(a.batch, 3, a.image_size, a.image_size)
    y = torch.randint(a.classes, (a.batch,))

    phase = [0.0, 0.0, 0.0]  # forward with the loss, backward, optimizer step (as lathe-cli bench train)

    def step():
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.float(), y)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        value = loss.item()
        t3 = time.perf_counter()
        phase[0] += t1 - t0
        phase[1] += t2 - t1
        phase[2] += t3 - t2
        return value

    for _ in range(3):
        step()
    phase[:] = [0.0, 0.0, 0.0]
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(a.steps):
        step()
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    print(json.dumps({"arch": a.arch, "batch": a.batch, "image_size": a.image_size, "precision": a.precision,
                      "optimizer": a.optimizer,
                      "threads": torch.get_num_threads(), "steps": a.steps,
                      "step_ms": seconds * 1000 / a.steps, "cpu_ms_per_step": cpu_seconds * 1000 / a.steps,
                      "forward_ms": phase[0] * 1000 / a.steps, "backward_ms": phase[1] * 1000 / a.steps,
                      "optimizer_ms": phase[2] * 1000 / a.steps,
                      "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""),
                      "images_per_s": a.batch * a.steps / seconds,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
