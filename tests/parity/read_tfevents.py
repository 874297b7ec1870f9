"""Reads a TensorBoard event file independently of Lathe's C++ and prints its events as JSON.

Usage: /usr/bin/python3 read_tfevents.py EVENT_PROTO EVENT_FILE

Compiles EVENT_PROTO (core/engine/event.proto) with `protoc --python_out` into a temporary
folder, reads the TFRecord framing itself (u64 length, masked CRC32C of it, data, masked CRC32C
of the data; every CRC checked) and decodes each record with google.protobuf. Prints a JSON
list: {"wall_time", "step", "file_version"} or {"wall_time", "step", "tag", "value"} per event.
Exits 2 when protoc or google.protobuf is missing (the caller skips), 1 on a bad file.
"""
import importlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

try:
    import google.protobuf  # noqa: F401
except ImportError:
    print("google.protobuf is not installed", file=sys.stderr)
    sys.exit(2)
if shutil.which("protoc") is None:
    print("protoc is not installed", file=sys.stderr)
    sys.exit(2)


def crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = crc32c_table()


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def records(path):
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while pos < len(blob):
        if pos + 12 > len(blob):
            raise ValueError(f"truncated header at {pos}")
        header = blob[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", blob[pos + 8:pos + 12])
        if masked(header) != length_crc:
            raise ValueError(f"bad length CRC at {pos}")
        data = blob[pos + 12:pos + 12 + length]
        if len(data) != length or pos + 16 + length > len(blob):
            raise ValueError(f"truncated record at {pos}")
        (data_crc,) = struct.unpack("<I", blob[pos + 12 + length:pos + 16 + length])
        if masked(data) != data_crc:
            raise ValueError(f"bad data CRC at {pos}")
        yield data
        pos += 16 + length


def main():
    proto, path = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp()
    try:
        shutil.copy(proto, os.path.join(tmp, "event.proto"))
        subprocess.run(["protoc", "--proto_path", tmp, "--python_out", tmp, os.path.join(tmp, "event.proto")],
                       check=True)
        sys.path.insert(0, tmp)
        event_pb2 = importlib.import_module("event_pb2")
        out = []
        for data in records(path):
            event = event_pb2.Event()
            event.ParseFromString(data)
            what = event.WhichOneof("what")
            if what == "file_version":
                out.append({"wall_time": event.wall_time, "step": event.step, "file_version": event.file_version})
            elif what == "summary":
                for value in event.summary.value:
                    if value.WhichOneof("value") != "simple_value":
                        raise ValueError(f"summary value {value.tag!r} has no simple_value")
                    out.append({"wall_time": event.wall_time, "step": event.step, "tag": value.tag,
                                "value": value.simple_value})
            else:
                raise ValueError(f"event without file_version or summary: {what}")
        print(json.dumps(out))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except (ValueError, subprocess.CalledProcessError) as e:
        print(f"{sys.argv[2]}: {e}", file=sys.stderr)
        sys.exit(1)
