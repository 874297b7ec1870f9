"""Writes torchvision weights for export tests: ARCH.weights.safetensors in OUT for each ARCH,
10 classes, with BatchNorm statistics, layer scales and the head set to values that matter (the
initial identity-like ones make every output nearly equal and comparisons meaningless).

  make_test_weights.py OUT ARCH...
"""
import sys

import torch
import torchvision
from safetensors.torch import save_file


def main(out, arches):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    for arch in arches:
        model = getattr(torchvision.models, arch)(num_classes=10)
        with torch.no_grad():
            for m in model.modules():
                if isinstance(m, torch.nn.BatchNorm2d):
                    m.running_mean.normal_(0, 0.2)
                    m.running_var.uniform_(0.5, 2.0)
                    m.weight.uniform_(0.5, 1.5)
                    m.bias.normal_(0, 0.2)
            for name, p in model.named_parameters():
                if name.endswith("layer_scale"):
                    p.fill_(0.5)
            last = [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]
            last.weight.normal_(0, 0.05)
            last.bias.normal_(0, 0.1)
        save_file({k: v.contiguous() for k, v in model.state_dict().items()}, f"{out}/{arch}.weights.safetensors")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
