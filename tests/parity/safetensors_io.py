"""A small safetensors reader and writer for the parity scripts.

The `safetensors` package is not installed here; this follows the format spec
(8-byte little-endian header size, JSON header, byte buffer) independently of Lathe's C++.
"""
import json
import struct

import torch

DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}
NAMES = {v: k for k, v in DTYPES.items()}


def _raw(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def save(path, tensors, metadata=None):
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        raw = _raw(tensors[name])
        header[name] = {"dtype": DTYPES[tensors[name].dtype], "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<Q", data)
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    out = {}
    for name, e in header.items():
        b, end = e["data_offsets"]
        dtype = NAMES[e["dtype"]]
        raw = bytearray(data[8 + n + b:8 + n + end])
        if dtype == torch.bfloat16:
            t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16) if raw else torch.empty(0, dtype=dtype)
        else:
            t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(e["shape"]).clone()
    return out
