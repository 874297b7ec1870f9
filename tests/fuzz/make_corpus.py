"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid inputs made by
Lathe's own writers (lathe-cli demo-data, convert, config defaults) and by Pillow for the image
formats Lathe reads, so each fuzzer starts from every structure its parser knows.
Usage: python make_corpus.py LATHE_CLI [MAKE_ONNX_SEEDS]   (the project venv's python: it has Pillow;
MAKE_ONNX_SEEDS: the tool of that name in Lathe's build, tests/fuzz/, beside lathe-cli's app/ by default;
the tflite seeds come from that build's test_engine_tflite, tests/unit/engine/)"""
import base64
import gzip
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from PIL import Image

cli = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
corpus = os.path.join(here, "corpus")


def put(target, name, data):
    folder = os.path.join(corpus, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def image(fmt, mode="RGB", size=(16, 12), **options):
    img = Image.new(mode, size)
    for y in range(size[1]):
        for x in range(size[0]):
            value = (x * 16 + y * 8) % 256
            img.putpixel((x, y), value if mode in ("L", "P", "I;16") else (value,) * len(mode))
    out = io.BytesIO()
    img.save(out, fmt, **options)
    return out.getvalue()


exif = Image.Exif()
exif[0x0112] = 6  # orientation: rotated 90 degrees
images = {
    "baseline.jpg": image("JPEG", quality=60),
    "exif_rotated.jpg": image("JPEG", quality=60, exif=exif.tobytes()),
    "progressive.jpg": image("JPEG", quality=60, progressive=True),
    "grey.jpg": image("JPEG", "L", quality=60),
    "cmyk.jpg": image("JPEG", "CMYK", quality=60),
    "rgb.png": image("PNG"),
    "palette.png": image("PNG", "P"),
    "rgba.png": image("PNG", "RGBA"),
    "grey16.png": image("PNG", "I;16"),
    "rgb.bmp": image("BMP"),
    "rgb.tif": image("TIFF"),
    "rgb.webp": image("WEBP", quality=60),
}
for name, data in images.items():
    put("image_header", name, data)
    put("image_decode", name, data)

with tempfile.TemporaryDirectory() as tmp:
    subprocess.run([cli, "demo-data", f"{tmp}/images", "--per-class", "1", "--test-per-class", "1"], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([cli, "convert", f"{tmp}/images", f"{tmp}/shards"], check=True, stdout=subprocess.DEVNULL)
    shard = sorted(f for f in os.listdir(f"{tmp}/shards") if f.endswith(".tfrecord"))[0]
    with open(f"{tmp}/shards/{shard}", "rb") as f:
        data = f.read()
    # The first two framed records (8-byte length, 4-byte CRC, data, 4-byte CRC) and their index.
    records, offsets, pos = [], [], 0
    while pos < len(data) and len(records) < 2:
        (length,) = struct.unpack_from("<Q", data, pos)
        offsets.append((pos, 16 + length))
        records.append(data[pos + 12:pos + 12 + length])
        pos += 16 + length
    put("tfrecord", "two_records.tfrecord", data[:pos])
    put("tfrecord", "empty.tfrecord", b"")
    put("tfrecord_index", "two_records.idx", "".join(f"{o} {s}\n" for o, s in offsets).encode())
    for i, record in enumerate(records):
        put("image_example", f"example_{i}.pb", record)
    config = subprocess.run([cli, "config", "defaults"], check=True, capture_output=True).stdout
    put("run_config", "defaults.json", config)
    changed = json.loads(config)
    changed["data"]["shards"] = "/data/shards"
    changed["optimizer"]["name"] = "adamw"
    changed["schedule"]["milestones"] = [10, 20]
    changed["distributed"] = {"nnodes": 2, "node_rank": 1, "master": "10.0.0.1:29500"}
    put("run_config", "changed.json", json.dumps(changed).encode())

    # The augmentation list on its own: the defaults' and every type with its parameters in
    # each form the parser takes (a number, a list, "random").
    put("augmentation", "defaults.json", json.dumps(json.loads(config)["data"]["augment"]).encode())
    put("augmentation", "empty.json", b"[]")
    put("augmentation", "geometry.json", json.dumps([
        {"type": "resize", "size": 40}, {"type": "center_crop"},
        {"type": "rotation", "degrees": 10, "fill": 128, "interpolation": "bilinear"},
        {"type": "affine", "degrees": [-5, 5], "translate": [0.1, 0.2], "scale": [0.9, 1.1], "shear": [-3, 3, -2, 2],
         "fill": [1, 2, 3], "interpolation": "nearest"},
        {"type": "horizontal_flip", "p": 0.5}, {"type": "vertical_flip", "p": 0.25}]).encode())
    put("augmentation", "pixels.json", json.dumps([
        {"type": "random_resized_crop", "scale": [0.2, 1], "ratio": [0.75, 1.3333]},
        {"type": "color_jitter", "brightness": 0.4, "contrast": [0.5, 1.5], "saturation": 0.2, "hue": [-0.1, 0.1]},
        {"type": "grayscale", "p": 0.1}, {"type": "gaussian_blur", "kernel_size": [3, 5], "sigma": 1.5},
        {"type": "sharpness", "sharpness_factor": 2}, {"type": "posterize", "bits": 3},
        {"type": "solarize", "threshold": 100}, {"type": "autocontrast"}, {"type": "equalize"}, {"type": "invert"},
        {"type": "rand_augment", "num_ops": 2, "magnitude": 9, "num_magnitude_bins": 31, "fill": 0},
        {"type": "trivial_augment_wide", "num_magnitude_bins": 31, "interpolation": "bilinear"},
        {"type": "gaussian_noise", "mean": 0, "sigma": 0.05, "clip": False},
        {"type": "random_erasing", "scale": [0.02, 0.33], "ratio": [0.3, 3.3], "value": "random"},
        {"type": "mixup", "alpha": 0.2}, {"type": "cutmix", "alpha": 1.0}]).encode())

# Weights files as torch.save and safetensors write them: a small state dict with shared and
# viewed storages, several dtypes and metadata.
import collections  # noqa: E402

import torch  # noqa: E402
from safetensors.torch import save as save_safetensors  # noqa: E402

a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
state = collections.OrderedDict(
    [("a", a), ("a_t", a.t()), ("half", torch.arange(4, dtype=torch.half)), ("long", torch.tensor([-5, 7])),
     ("bn.num_batches_tracked", torch.tensor(3))])
state._metadata = collections.OrderedDict([("", {"version": 1})])
buffer = io.BytesIO()
torch.save(state, buffer)
put("pth", "state_dict.pth", buffer.getvalue())
buffer = io.BytesIO()
torch.save({"epoch": 2, "state_dict": collections.OrderedDict([("w", torch.ones(2, 2))])}, buffer)
put("pth", "checkpoint.pth", buffer.getvalue())
contiguous = {k: v.contiguous() for k, v in state.items()}
put("safetensors", "state_dict.safetensors", save_safetensors(contiguous, metadata={"format": "pt"}))

# IDX (MNIST layout): 3 images of 4 x 4 and their labels, plain and gzip-compressed.
pixels = bytes(range(48))
idx_images = struct.pack(">IIII", 0x803, 3, 4, 4) + pixels
idx_labels = struct.pack(">II", 0x801, 3) + bytes([0, 5, 9])
put("idx", "images.idx", idx_images)
put("idx", "labels.idx", idx_labels)
put("idx", "images.idx.gz", gzip.compress(idx_images, mtime=0))
put("idx", "labels.idx.gz", gzip.compress(idx_labels, mtime=0))
# The model-zoo catalog as scripts/make-model-zoo.py writes it (resources/model_zoo.json), cut
# to two entries: one with every field, one without the optional ones.
with open(os.path.join(here, "..", "..", "resources", "model_zoo.json"), "rb") as f:
    zoo = json.load(f)
small = dict(zoo, weights=zoo["weights"][:2])
for key in ("min_size", "license_url", "recipe", "file_size"):
    small["weights"][1].pop(key, None)
put("model_zoo", "two_entries.json", json.dumps(small, indent=1).encode())

# `lathe-cli serve`: TF Serving request bodies as its clients send them (tests/integration/
# serve_client.py) for the fuzz target's float32 [3, 8, 8] and uint8 [8, 8, 3] models, and
# request lines of every route.
png = base64.b64encode(image("PNG", size=(8, 8))).decode()
jpeg = base64.b64encode(image("JPEG", size=(10, 8), quality=50)).decode()
floats = [[[0.5 * ((x + y + c) % 3) for x in range(8)] for y in range(8)] for c in range(3)]
pixels = [[[(x * 30 + c) % 256 for c in range(3)] for x in range(8)] for y in range(8)]
bodies = {
    "predict_b64.json": {"signature_name": "serving_default", "instances": [{"b64": png}, {"b64": jpeg}]},
    "predict_named.json": {"instances": [{"image_bytes": {"b64": png}}]},
    "predict_floats.json": {"instances": [floats]},
    "predict_pixels.json": {"instances": [{"input": pixels}]},
    "predict_columnar.json": {"inputs": {"input": [{"b64": jpeg}]}},
    "predict_columnar_floats.json": {"signature_name": "predict", "inputs": [floats]},
    "classify.json": {"signature_name": "classify", "examples": [{"image": {"b64": png}}, {"input": [{"b64": jpeg}]}]},
    "classify_context.json": {"context": {"image_bytes": {"b64": png}}, "examples": [{}]},
    "classify_flat.json": {"examples": [{"x": [v for plane in floats for row in plane for v in row]}]},
}
for name, body in bodies.items():
    put("serve_json", name, json.dumps(body, separators=(",", ":")).encode())
routes = ["GET /healthz", "GET /monitoring/prometheus/metrics", "GET /v1/models/flowers",
          "GET /v1/models/flowers/versions/2", "GET /v1/models/flowers/metadata",
          "GET /v1/models/flowers/versions/12/metadata", "POST /v1/models/flowers:predict",
          "POST /v1/models/flowers/versions/3:classify", "POST /v1/models/flowers:regress",
          "GET /v1/models/flowers/labels/stable", "PUT /v1/models/flowers:predict"]
for i, line in enumerate(routes):
    put("serve_route", f"route_{i:02}", line.encode())
# ONNX: small graphs from Lathe's ONNX writer, FP16 conversion and INT8 quantisation.
seeds = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(cli), "..", "tests", "fuzz", "make_onnx_seeds")
os.makedirs(os.path.join(corpus, "onnx"), exist_ok=True)
subprocess.run([seeds, os.path.join(corpus, "onnx")], check=True)
# TFLite: small models as serializeTflite writes them (float, float16 constants, int8), written by
# the unit test test_engine_tflite.
tflite_test = os.path.join(os.path.dirname(cli), "..", "tests", "unit", "engine", "test_engine_tflite")
os.makedirs(os.path.join(corpus, "tflite"), exist_ok=True)
subprocess.run([tflite_test, "--gtest_filter=TfliteFuzzSeeds.*"], check=True, stdout=subprocess.DEVNULL,
               env=dict(os.environ, LATHE_TFLITE_SEEDS=os.path.join(corpus, "tflite")))

print("corpus written to", corpus)
