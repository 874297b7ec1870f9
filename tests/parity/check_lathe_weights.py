"""Loads weights that Lathe saved into torchvision with strict=True and compares outputs.

Usage: .venv/bin/python check_lathe_weights.py ARCH WEIGHTS INPUT OUTPUT [--tolerance T]

WEIGHTS: Lathe's safetensors state dict; INPUT: tensor "input"; OUTPUT: Lathe's tensor
"output" for that input. Prints the max abs difference and torchvision's largest output magnitude; exits 1 when the
difference exceeds tolerance x max(1, magnitude).
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
parser.add_argument("weights")
parser.add_argument("input")
parser.add_argument("output")
parser.add_argument("--tolerance", type=float, default=1e-4)
args = parser.parse_args()

torch.set_num_threads(1)
state = safetensors_io.load(args.weights)
# The class count: the rows of the model's last Linear in the saved weights.
probe = getattr(torchvision.models, args.arch)()
head = [name for name, m in probe.named_modules() if isinstance(m, torch.nn.Linear)][-1]
model = getattr(torchvision.models, args.arch)(num_classes=state[head + ".weight"].shape[0])
model.load_state_dict(state, strict=True)
model.eval()
with torch.no_grad():
    y = model(safetensors_io.load(args.input)["input"])
lathe = safetensors_io.load(args.output)["output"]
if y.shape != lathe.shape:
    print(f"shape {tuple(lathe.shape)} != torchvision's {tuple(y.shape)}")
    sys.exit(1)
diff = (y - lathe).abs().max().item()
# The tolerance scales with the output, as in compare_outputs.py.
scale = y.abs().max().item()
print(f"{diff:.3g} {scale:.3g}")
sys.exit(0 if diff <= args.tolerance * max(1.0, scale) else 1)
