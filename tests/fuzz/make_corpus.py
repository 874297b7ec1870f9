"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/): small valid inputs made by
Lathe's own writers (lathe-cli demo-data, convert, config defaults) and by Pillow for the image
formats Lathe reads, so each fuzzer starts from every structure its parser knows.
Usage: python make_corpus.py LATHE_CLI   (the project venv's python: it has Pillow)"""
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
print("corpus written to", corpus)
