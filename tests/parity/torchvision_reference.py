"""Reference outputs of a torchvision model for Lathe's parity checks.

Usage: .venv/bin/python torchvision_reference.py ARCH OUT_DIR [--num-classes K] [--size S]

Builds torchvision.models.ARCH(num_classes=K) with a fixed seed, gives every BatchNorm random
running statistics (so that eval mode depends on them) and every constant-initialised parameter
random values, and writes to OUT_DIR:
  weights.safetensors  the state dict (torchvision's names)
  weights.pth          the same state dict, torch.save'd (zip format)
  input.safetensors    tensor "input" [2, 3, S, S]
  expected.safetensors tensor "output", the model's eval-mode output
"""
import argparse
import os
import sys

import torch
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("arch")
parser.add_argument("out_dir")
parser.add_argument("--num-classes", type=int, default=1000)
parser.add_argument("--size", type=int, default=224)
args = parser.parse_args()

torch.set_num_threads(1)
torch.manual_seed(0)
model = getattr(torchvision.models, args.arch)(num_classes=args.num_classes)
with torch.no_grad():
    # Constant initialisations would hide parts of the network from the comparison: ViT's zero
    # head and class token, LayerNorm's ones and zeros, ConvNeXt's layer scale of 1e-6.
    for name, p in model.named_parameters():
        if p.numel() > 1 and bool((p == p.flatten()[0]).all()):
            if name.endswith("layer_scale"):
                p.uniform_(0.05, 0.3)
            elif p.flatten()[0] == 0:
                p.normal_(0, 0.02)
            else:
                p.mul_(torch.empty_like(p).uniform_(0.5, 1.5))
    for m in model.modules():
        if isinstance(m, torch.nn.modules.batchnorm._BatchNorm):
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.uniform_(0.5, 1.5)
            m.bias.uniform_(-0.2, 0.2)
            m.num_batches_tracked.fill_(7)
model.eval()
x = torch.randn(2, 3, args.size, args.size)
with torch.no_grad():
    y = model(x)

os.makedirs(args.out_dir, exist_ok=True)
state = model.state_dict()
safetensors_io.save(os.path.join(args.out_dir, "weights.safetensors"), dict(state), {"format": "pt"})
torch.save(state, os.path.join(args.out_dir, "weights.pth"))
safetensors_io.save(os.path.join(args.out_dir, "input.safetensors"), {"input": x})
safetensors_io.save(os.path.join(args.out_dir, "expected.safetensors"), {"output": y})
