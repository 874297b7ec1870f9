"""Writes a TorchScript custom backbone for the engine tests: torchvision's resnet18 with a
5-class head, scripted (torch.jit.script) and saved.

Usage: .venv/bin/python make_torchscript.py OUT.pt
"""
import sys

import torch
import torchvision

torch.set_num_threads(1)
torch.manual_seed(0)
model = torchvision.models.resnet18(num_classes=5).eval()
torch.jit.save(torch.jit.script(model), sys.argv[1])
