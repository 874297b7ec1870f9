#!/usr/bin/env python3
"""torchvision reference outputs for Lathe's augmentation parity test.

Writes, for one photo, the outputs of torchvision's deterministic functions with fixed
parameters as raw uint8 HWC RGB files plus index.json ({name: [height, width, channels]}).
The C++ test (tests/unit/engine/test_augmentation.cpp, AugmentParity) runs Lathe's
equivalents on the same inputs and compares them.

Usage: .venv/bin/python augment_reference.py --photo PHOTO.jpg [--large LARGE.jpg] --out DIR
(--large: a photo big enough for Lathe to decode it DCT-scaled; its evaluation crop is
written as large_eval_256_224.)
Needs torch 1.13 / torchvision 0.14 and PIL (Debian's python3-torchvision).
"""
import argparse
import json
import os

import numpy as np
import torch
from PIL import Image
import torchvision.transforms as T
import torchvision.transforms.functional as F

torch.set_num_threads(1)


def to_hwc(x):
    """PIL image or CHW uint8 tensor -> HWC uint8 numpy array."""
    if isinstance(x, Image.Image):
        a = np.asarray(x.convert("RGB"))
    else:
        a = x.permute(1, 2, 0).contiguous().numpy()
    assert a.dtype == np.uint8
    return np.ascontiguousarray(a)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--photo", required=True)
    parser.add_argument("--large")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    outputs = {}
    pil = Image.open(args.photo).convert("RGB")
    outputs["decoded"] = to_hwc(pil)

    # Geometry on the PIL image (what torchvision's ImageNet recipe runs).
    outputs["eval_256_224"] = to_hwc(T.CenterCrop(224)(T.Resize(256)(pil)))
    outputs["resized_crop"] = to_hwc(F.resized_crop(pil, 30, 50, 300, 280, [224, 224]))
    outputs["resize_up"] = to_hwc(F.resize(pil, [600, 640]))
    if args.large:
        large = Image.open(args.large).convert("RGB")
        outputs["large_eval_256_224"] = to_hwc(T.CenterCrop(224)(T.Resize(256)(large)))

    # Pixel functions on the uint8 tensor of the evaluation crop.
    base = torch.from_numpy(outputs["eval_256_224"].copy()).permute(2, 0, 1).contiguous()
    outputs["hflip"] = to_hwc(F.hflip(base))
    outputs["vflip"] = to_hwc(F.vflip(base))
    outputs["brightness_1.5"] = to_hwc(F.adjust_brightness(base, 1.5))
    outputs["brightness_0.7"] = to_hwc(F.adjust_brightness(base, 0.7))
    outputs["contrast_0.6"] = to_hwc(F.adjust_contrast(base, 0.6))
    outputs["contrast_1.8"] = to_hwc(F.adjust_contrast(base, 1.8))
    outputs["saturation_1.7"] = to_hwc(F.adjust_saturation(base, 1.7))
    outputs["saturation_0.3"] = to_hwc(F.adjust_saturation(base, 0.3))
    outputs["hue_0.2"] = to_hwc(F.adjust_hue(base, 0.2))
    outputs["hue_-0.35"] = to_hwc(F.adjust_hue(base, -0.35))
    outputs["grayscale"] = to_hwc(F.rgb_to_grayscale(base, num_output_channels=3))
    outputs["sharpness_2.5"] = to_hwc(F.adjust_sharpness(base, 2.5))
    outputs["posterize_3"] = to_hwc(F.posterize(base, 3))
    outputs["solarize_100"] = to_hwc(F.solarize(base, 100.0))
    outputs["autocontrast"] = to_hwc(F.autocontrast(base))
    outputs["equalize"] = to_hwc(F.equalize(base))
    outputs["invert"] = to_hwc(F.invert(base))
    outputs["gaussian_blur_7_1.5"] = to_hwc(F.gaussian_blur(base, [7, 7], [1.5, 1.5]))
    outputs["rotate_30"] = to_hwc(F.rotate(base, 30.0, fill=[0.0, 0.0, 0.0]))
    outputs["affine"] = to_hwc(F.affine(base, angle=-12.0, translate=[9, -5], scale=1.1, shear=[8.0, -4.0],
                                        fill=[0.0, 0.0, 0.0]))

    index = {}
    for name, array in outputs.items():
        array.tofile(os.path.join(args.out, name + ".raw"))
        index[name] = list(array.shape)
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


if __name__ == "__main__":
    main()
