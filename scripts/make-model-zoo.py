#!/usr/bin/env python3
"""Writes resources/model_zoo.json from torchvision's weight enums.

The catalog lists every official ImageNet weight file torchvision offers for the backbones
Lathe builds (core/engine/models/backbone_registry.cpp), with the exact URL, the SHA-256 prefix that
torchvision's file names carry (torch.hub checks a download against it), the accuracies and
the evaluation transform. Reading the enums instead of typing the values keeps it exact.

Run with the project venv's Python (torchvision 0.26; the committed catalog was made with 0.14):
    .venv/bin/python scripts/make-model-zoo.py [OUTPUT]
"""

import json
import os
import re
import sys

import torch
import torchvision
from torchvision.models import get_model_weights

# The architectures of Lathe's backbone registry, in its order. test_engine_model_zoo checks
# that every registry architecture has a default entry, so a new one cannot be forgotten here.
ARCHITECTURES = [
    "resnet18", "resnet34", "resnet50", "resnet101",
    "mobilenet_v3_small", "mobilenet_v3_large",
    "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3", "efficientnet_b4",
    "convnext_tiny",
    "vit_b_16", "vit_b_32",
]

# torch.hub's rule (HASH_REGEX in torch/hub.py): the hex between a '-' and a '.'.
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")

# torchvision's README ("Pre-trained Model License"): the weights may carry terms derived
# from their training data, and the SWAG weights are CC-BY-NC 4.0 (their meta names the
# license). The others ship with torchvision under its BSD-3-Clause license.
TORCHVISION_LICENSE = "BSD-3-Clause"
TORCHVISION_LICENSE_URL = "https://github.com/pytorch/vision/blob/main/LICENSE"
SWAG_LICENSE = "CC-BY-NC-4.0"
SWAG_LICENSE_URL = "https://github.com/facebookresearch/SWAG/blob/main/LICENSE"


def single(values, what, name):
    if len(values) != 1:
        raise SystemExit(f"{name}: expected one {what}, got {values}")
    return int(values[0])


def entry(arch, weights, default):
    name = f"{arch} {weights.name}"
    url = weights.url
    file_name = url.rsplit("/", 1)[1]
    match = HASH_REGEX.search(file_name)
    if not match or not match.group(1):
        raise SystemExit(f"{name}: no hash prefix in {file_name}")
    prefix = match.group(1)
    # The brief's wording (hex after the last '-') and torch.hub's regex must agree.
    if file_name.rsplit("-", 1)[1].split(".", 1)[0] != prefix:
        raise SystemExit(f"{name}: ambiguous hash prefix in {file_name}")

    meta = weights.meta
    metrics = meta["_metrics"]["ImageNet-1K"]
    transforms = weights.transforms()
    license_url = meta.get("license")
    if license_url is None:
        license_name, license_url = TORCHVISION_LICENSE, TORCHVISION_LICENSE_URL
    elif license_url == SWAG_LICENSE_URL:
        license_name = SWAG_LICENSE
    else:
        raise SystemExit(f"{name}: unknown license {license_url}")

    return {
        "arch": arch,
        "id": weights.name,
        "default": default,
        "url": url,
        "file": file_name,
        "sha256_prefix": prefix,
        "acc1": metrics["acc@1"],
        "acc5": metrics["acc@5"],
        "num_params": meta["num_params"],
        "min_size": list(meta["min_size"]),
        "crop_size": single(transforms.crop_size, "crop size", name),
        "resize_size": single(transforms.resize_size, "resize size", name),
        "interpolation": transforms.interpolation.value,
        "mean": list(transforms.mean),
        "std": list(transforms.std),
        "license": license_name,
        "license_url": license_url,
        "recipe": meta["recipe"],
        # No "file_size": it is not in torchvision's metadata, and the files cannot be
        # fetched here to measure them.
    }


def main():
    torch.set_num_threads(1)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "resources", "model_zoo.json")

    entries = []
    for arch in ARCHITECTURES:
        enum = get_model_weights(arch)
        for weights in enum:
            entries.append(entry(arch, weights, weights is enum.DEFAULT))

    catalog = {
        "version": 1,
        "source": f"torchvision {torchvision.__version__} weight enums (scripts/make-model-zoo.py)",
        "license_note": "torchvision: pre-trained models may have their own licenses or terms "
                        "derived from the dataset used for training; check them for your use. "
                        "SWAG weights are CC-BY-NC 4.0.",
        "weights": entries,
    }
    text = json.dumps(catalog, indent=2, ensure_ascii=True) + "\n"
    # Short number lists (sizes, mean, std) on one line, so an entry reads at a glance.
    text = re.sub(r"\[\s+([-0-9., \n]*?)\s+\]",
                  lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text)
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(text)
    os.replace(tmp, out)
    print(f"{out}: {len(entries)} weight files for {len(ARCHITECTURES)} architectures")


if __name__ == "__main__":
    main()
