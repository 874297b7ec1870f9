"""Training throughput of torchvision models in PyTorch, the peer of `lathe-cli bench train`.

Usage: python torch_train_reference.py --arch resnet18 [--image-size 64] [--batch 32] [--steps 20]
       [--threads 2] [--optimizer sgd|adamw] [--precision fp32|bf16|fp16] [--device cpu|cuda:0]
       [--channels-last] [--compile]
Synthetic data (random tensors), train mode, PyTorch's recommended defaults: SGD (lr 0.01,
momentum 0.9) or AdamW (lr 1e-3, weight decay 0.01), each with its default implementation (on the
CPU the per-tensor loop: PyTorch picks foreach kernels only for CUDA tensors). bf16 and fp16
through torch.autocast on the device (fp16 only on CUDA, with torch.amp.GradScaler, as
`lathe-cli bench train`); on CUDA cudnn.benchmark is on, as in PyTorch's performance guide.
--channels-last puts the model and the batch in channels-last memory format; --compile runs the
model through torch.compile (default mode), its compilation inside the warm-up steps and timed
apart (compile_s). 3 warm-up steps, then the timed steps; as `lathe-cli bench train`, the losses
are summed on the device and read once after the last step, which the timing waits for. Prints
one JSON line with the same keys as `lathe-cli bench train`; cpu_ms_per_step is the CPU time of
all the process's threads (spinning OpenMP threads count); the forward/backward/optimizer split
is the host's view (on CUDA it times the kernels' launches only). On CUDA gpu_memory_peak_mib is
torch.cuda's peak allocated memory over the timed steps (Lathe's key), gpu_memory_reserved_peak_mib
the caching allocator's peak reserve.
"""
import argparse
import json
import math
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
    p.add_argument("--threads", type=int, default=2, help="torch threads (0: PyTorch's default)")
    p.add_argument("--classes", type=int, default=1000)
    p.add_argument("--optimizer", choices=["sgd", "adamw"], default="sgd")
    p.add_argument("--precision", choices=["fp32", "bf16", "fp16"], default="fp32")
    p.add_argument("--device", default="cpu")
    p.add_argument("--channels-last", action="store_true")
    p.add_argument("--compile", action="store_true")
    a = p.parse_args()
    device = torch.device(a.device)
    cuda = device.type == "cuda"
    if a.precision == "fp16" and not cuda:
        p.error("fp16 needs a CUDA device; on CPU use bf16 or fp32")
    if a.threads > 0:
        torch.set_num_threads(a.threads)
    if cuda:
        torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    memory_format = torch.channels_last if a.channels_last else torch.contiguous_format
    model = getattr(torchvision.models, a.arch)(num_classes=a.classes).to(device, memory_format=memory_format)
    model.train()
    if a.optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    forward = torch.compile(model) if a.compile else model
    autocast = a.precision != "fp32"
    dtype = torch.float16 if a.precision == "fp16" else torch.bfloat16
    scaler = torch.amp.GradScaler(device.type, enabled=a.precision == "fp16")
    x = torch.randn(a.batch, 3, a.image_size, a.image_size, device=device).contiguous(memory_format=memory_format)
    y = torch.randint(a.classes, (a.batch,), device=device)

    phase = [0.0, 0.0, 0.0]  # forward with the loss, backward, optimizer step (as lathe-cli bench train)
    loss_sum = torch.zeros((), dtype=torch.float64, device=device)

    def step():
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=dtype, enabled=autocast):
            logits = forward(x)
        loss = torch.nn.functional.cross_entropy(logits.float(), y)
        t1 = time.perf_counter()
        scaler.scale(loss).backward()
        t2 = time.perf_counter()
        scaler.step(opt)
        scaler.update()
        loss_sum.add_(loss.detach())
        t3 = time.perf_counter()
        phase[0] += t1 - t0
        phase[1] += t2 - t1
        phase[2] += t3 - t2

    warmup_start = time.perf_counter()
    step()
    loss_sum.item()  # the first step run, compiled first with --compile
    first_step_s = time.perf_counter() - warmup_start
    for _ in range(2):
        step()
    phase[:] = [0.0, 0.0, 0.0]
    if cuda:
        torch.cuda.synchronize(device)
        torch.cuda.reset_peak_memory_stats(device)
    start = time.perf_counter()
    cpu_start = time.process_time()
    for _ in range(a.steps):
        step()
    finite = math.isfinite(loss_sum.item())  # waits for the last step
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    result = {"arch": a.arch, "batch": a.batch, "image_size": a.image_size, "precision": a.precision,
              "optimizer": a.optimizer, "device": a.device, "channels_last": a.channels_last,
              "compile": a.compile, "threads": torch.get_num_threads(), "steps": a.steps,
              "step_ms": seconds * 1000 / a.steps, "cpu_ms_per_step": cpu_seconds * 1000 / a.steps,
              "forward_ms": phase[0] * 1000 / a.steps, "backward_ms": phase[1] * 1000 / a.steps,
              "optimizer_ms": phase[2] * 1000 / a.steps,
              "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""), "loss_finite": finite,
              "images_per_s": a.batch * a.steps / seconds,
              "torch": torch.__version__}
    if a.compile:
        result["compile_s"] = first_step_s  # the first step: tracing, compiling and running it
    if cuda:
        result["gpu"] = torch.cuda.get_device_name(device)
        result["gpu_memory_peak_mib"] = torch.cuda.max_memory_allocated(device) / 2**20
        result["gpu_memory_reserved_peak_mib"] = torch.cuda.max_memory_reserved(device) / 2**20
    print(json.dumps(result))


if __name__ == "__main__":
    main()
