"""Runs a TFLite file with LiteRT (the PyPI ai-edge-litert, its Interpreter on the CPU with the
default XNNPACK delegate), the independent runtime the TFLite export tests and benchmarks compare
Lathe's files with. Each mode prints one JSON line.

  litert_run.py run MODEL INPUT.bin OUTPUT.bin   INPUT.bin: raw little-endian in the model's input
      dtype and shape (NHWC, read from the file; any number N of images: a file of batch 1 runs
      them one by one, a dynamic batch is resized to N). OUTPUT.bin: the first output, raw float32
      (int8/uint8/int16 outputs dequantised with their scale and zero point). Prints the input's and
      output's name, dtype, shape, quantisation, the images, the invocations and the LiteRT version.
  litert_run.py bench MODEL REPEATS [THREADS]    prints {"ms_per_image": ...}
  litert_run.py compare REPEATS THREADS MODEL... the models' runs interleaved (a fair ratio on a
      busy machine); prints {"batch": 1, "ms_per_image": {MODEL: median}}
      Batch 1; the input is a fixed pattern in the model's input dtype (quantised with the input's
      scale and zero point for integer inputs); a run is set_tensor, invoke, get_tensor.
      THREADS 0 or none: all the cores this process may use; the interpreter's num_threads (which
      XNNPACK uses too). "xnnpack": whether LiteRT applied XNNPACK (a DELEGATE node in the graph;
      XNNPACK is the only delegate LiteRT applies by default). LiteRT's log line "Created
      TensorFlow Lite XNNPACK delegate for CPU" is gathered, not printed (describe reports it).
  litert_run.py describe MODEL                   the operators with their operand and result types,
      the tensors' types, inputs, outputs, signatures, whether XNNPACK takes the graph, and the
      metadata (Model.metadata of the FlatBuffer, read with ai_edge_litert's schema): "lathe"
      parsed as JSON (text if it is not JSON), the other entries' sizes (and short ASCII text).
Errors: one line "litert_run: FILE: reason" on stderr, exit status 1.
"""
import collections
import contextlib
import json
import os
import sys
import tempfile
import time

import numpy as np
import ai_edge_litert
from ai_edge_litert.interpreter import Interpreter, OpResolverType

VERSION = ai_edge_litert.__version__


class Failure(Exception):
    """An error already naming its file."""


def all_cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


XNNPACK_LOG = "Created TensorFlow Lite XNNPACK delegate"


@contextlib.contextmanager
def native_stderr(lines):
    """LiteRT's own log (its C++ writes to file descriptor 2) gathered into lines, so that an error
    stays one line and the "Created ... XNNPACK delegate" notice can be reported instead of printed."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as log:
        os.dup2(log.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            log.seek(0)
            lines.extend(log.read().decode("utf-8", "replace").splitlines())


def allocate(it, model):
    """it.allocate_tensors(), LiteRT's log gathered: the lines other than the XNNPACK notice are
    passed on to stderr; the notice counts in it.lathe_xnnpack_log."""
    lines = []
    try:
        with native_stderr(lines):
            it.allocate_tensors()
    except Exception as e:
        raise Failure(f"{model}: LiteRT could not allocate its tensors: {one_line(e)}"
                      + "".join(f"; {line}" for line in lines)) from None
    it.lathe_xnnpack_log = getattr(it, "lathe_xnnpack_log", False) or any(XNNPACK_LOG in line for line in lines)
    for line in lines:
        if XNNPACK_LOG not in line:
            print(line, file=sys.stderr)


def interpreter(model, threads=0, delegates=True):
    """An Interpreter of MODEL (tensors allocated), with LiteRT's default delegate (XNNPACK) or none."""
    if not os.path.isfile(model):
        raise Failure(f"{model}: no such file")
    lines = []
    try:
        with native_stderr(lines):
            it = Interpreter(model_path=model, num_threads=threads or all_cores(),
                             experimental_op_resolver_type=OpResolverType.AUTO if delegates
                             else OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    except Exception as e:
        raise Failure(f"{model}: LiteRT could not load it: {one_line(e)}"
                      + "".join(f"; {line}" for line in lines)) from None
    for line in lines:
        print(line, file=sys.stderr)
    allocate(it, model)
    if len(it.get_input_details()) != 1:
        raise Failure(f"{model}: {len(it.get_input_details())} inputs; these modes feed one")
    return it


def xnnpack_nodes(it):
    """The delegate nodes in the graph: XNNPACK is the only delegate the default resolver applies."""
    return sum(op["op_name"] == "DELEGATE" for op in it._get_ops_details())


def tensor(d):
    q = d["quantization_parameters"]
    return {"name": d["name"], "dtype": np.dtype(d["dtype"]).name, "shape": [int(v) for v in d["shape"]],
            "shape_signature": [int(v) for v in d.get("shape_signature", d["shape"])],
            "quantization": {"scales": [float(v) for v in q["scales"]],
                             "zero_points": [int(v) for v in q["zero_points"]],
                             "quantized_dimension": int(q["quantized_dimension"])}}


def dequantised(y, d):
    """y as float32: integer outputs with a scale dequantised, (q - zero point) * scale, per axis if
    the tensor is quantised per channel."""
    q = d["quantization_parameters"]
    scales, zeros = np.asarray(q["scales"], np.float32), np.asarray(q["zero_points"], np.float32)
    if np.issubdtype(y.dtype, np.integer) and scales.size:
        if scales.size > 1:
            shape = [1] * y.ndim
            shape[int(q["quantized_dimension"])] = scales.size
            scales, zeros = scales.reshape(shape), zeros.reshape(shape)
        return ((y.astype(np.float32) - zeros) * scales).astype(np.float32)
    return y.astype(np.float32)


def quantised_pattern(d, shape):
    """The benchmark's input: a fixed float pattern, in the input's dtype."""
    x = np.sin(np.arange(int(np.prod(shape)), dtype=np.float64)).reshape(shape) * 1.5
    dtype = np.dtype(d["dtype"])
    if np.issubdtype(dtype, np.integer):
        scales, zeros = d["quantization_parameters"]["scales"], d["quantization_parameters"]["zero_points"]
        if len(scales):
            x = x / float(scales[0]) + float(zeros[0])
        info = np.iinfo(dtype)
        return np.clip(np.round(x), info.min, info.max).astype(dtype)
    return x.astype(dtype)


def run(model, input_path, output_path):
    it = interpreter(model)
    din, dout = it.get_input_details()[0], it.get_output_details()[0]
    dtype, image_shape = np.dtype(din["dtype"]), [int(v) for v in din["shape"][1:]]
    per_image = int(np.prod(image_shape)) * dtype.itemsize
    try:
        raw = np.fromfile(input_path, dtype=np.uint8)
    except OSError as e:
        raise Failure(f"{input_path}: {e.strerror}") from None
    if raw.size == 0 or raw.size % per_image:
        raise Failure(f"{input_path}: {raw.size} bytes is not a whole number of {dtype.name} images "
                      f"of {'x'.join(map(str, image_shape))} ({per_image} bytes each) for {model}")
    n = raw.size // per_image
    x = raw.view(dtype.newbyteorder("<")).astype(dtype).reshape([n] + image_shape)
    batch, dynamic = int(din["shape"][0]), int(din.get("shape_signature", din["shape"])[0]) == -1
    if batch != n and dynamic:
        it.resize_tensor_input(din["index"], [n] + image_shape)
        allocate(it, model)
        din, dout, batch = it.get_input_details()[0], it.get_output_details()[0], n
    if n % batch:
        raise Failure(f"{input_path}: {n} images, not a multiple of {model}'s fixed batch {batch}")
    outputs = []
    for i in range(0, n, batch):
        it.set_tensor(din["index"], x[i:i + batch])
        it.invoke()
        outputs.append(dequantised(it.get_tensor(dout["index"]), dout))
    y = np.concatenate(outputs, axis=0)
    y.astype("<f4").tofile(output_path)
    print(json.dumps({"model": model, "input": tensor(din), "output": tensor(dout), "images": n,
                      "invocations": n // batch, "dims": list(y.shape), "output_written": "float32",
                      "xnnpack": xnnpack_nodes(it) > 0, "litert": VERSION}))


def interleaved(models, repeats, threads):
    """Median milliseconds per batch-1 run of each model, after a warm-up run each; the models take
    turns, so that a change in the machine's load falls on all of them alike."""
    runs, delegated = [], []
    for m in models:
        it = interpreter(m, threads)
        din, dout = it.get_input_details()[0], it.get_output_details()[0]
        shape = [1] + [int(v) for v in din["shape"][1:]]
        if int(din["shape"][0]) != 1:
            it.resize_tensor_input(din["index"], shape)
            allocate(it, m)
            din, dout = it.get_input_details()[0], it.get_output_details()[0]
        data = quantised_pattern(din, shape)

        def once(it=it, i=din["index"], o=dout["index"], data=data):
            it.set_tensor(i, data)
            it.invoke()
            return it.get_tensor(o)

        runs.append(once)
        delegated.append(xnnpack_nodes(it) > 0)
    for once in runs:
        once()
    times = [[] for _ in runs]
    for _ in range(repeats):
        for i, once in enumerate(runs):
            t0 = time.perf_counter()
            once()
            times[i].append((time.perf_counter() - t0) * 1e3)
    return [sorted(t)[len(t) // 2] for t in times], delegated


def describe(model):
    from ai_edge_litert import schema_py_generated as schema
    try:
        with open(model, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise Failure(f"{model}: {e.strerror}") from None
    if len(raw) < 8 or not schema.Model.ModelBufferHasIdentifier(raw, 0):
        raise Failure(f"{model}: not a TFLite FlatBuffer (no TFL3 identifier)")
    fb = schema.Model.GetRootAs(raw, 0)
    metadata = {}
    for i in range(fb.MetadataLength()):
        entry = fb.Metadata(i)
        name = (entry.Name() or b"").decode("utf-8", "replace")
        if entry.Buffer() >= fb.BuffersLength():
            raise Failure(f"{model}: metadata {name!r} names buffer {entry.Buffer()} of {fb.BuffersLength()}")
        buf = fb.Buffers(entry.Buffer())
        if buf.Offset() > 1:  # a large file: the data lies after the FlatBuffer
            data = raw[buf.Offset():buf.Offset() + buf.Size()]
        else:
            data = buf.DataAsNumpy().tobytes() if buf.DataLength() else b""
        if name == "lathe":
            text = data.rstrip(b"\0").decode("utf-8", "replace")
            try:
                metadata[name] = json.loads(text)
            except ValueError:
                metadata[name] = text
        else:
            metadata[name] = {"bytes": len(data)}
            text = data.rstrip(b"\0")
            if len(text) <= 256 and text and all(32 <= c < 127 for c in text):
                metadata[name]["text"] = text.decode("ascii")
    it = interpreter(model, delegates=False)
    ops = [{"index": op["index"], "op": op["op_name"],
            "operand_types": [np.dtype(t).name for t in op["operand_types"]],
            "result_types": [np.dtype(t).name for t in op["result_types"]]} for op in it._get_ops_details()]
    tensors = it.get_tensor_details()
    delegated = interpreter(model)
    print(json.dumps({"model": model, "litert": VERSION, "version": fb.Version(),
                      "description": (fb.Description() or b"").decode("utf-8", "replace"),
                      "subgraphs": fb.SubgraphsLength(),
                      "inputs": [tensor(d) for d in it.get_input_details()],
                      "outputs": [tensor(d) for d in it.get_output_details()],
                      "signatures": it.get_signature_list(),
                      "ops": ops, "op_counts": dict(collections.Counter(op["op"] for op in ops)),
                      "tensor_types": dict(collections.Counter(np.dtype(d["dtype"]).name for d in tensors)),
                      "xnnpack": {"applied": xnnpack_nodes(delegated) > 0,
                                  "delegate_nodes": xnnpack_nodes(delegated),
                                  "created": delegated.lathe_xnnpack_log},
                      "metadata": metadata}))


def one_line(e):
    return " ".join(str(e).split()) or type(e).__name__


def main(argv):
    mode = argv[0] if argv else ""
    if mode == "run" and len(argv) == 4:
        run(*argv[1:4])
    elif mode == "bench" and len(argv) in (3, 4):
        model, repeats = argv[1], int(argv[2])
        threads = int(argv[3]) if len(argv) > 3 else 0
        (ms,), (xnnpack,) = interleaved([model], repeats, threads)
        print(json.dumps({"model": model, "runtime": f"litert {VERSION} cpu", "batch": 1,
                          "threads": threads or all_cores(), "xnnpack": xnnpack,
                          "ms_per_batch": ms, "ms_per_image": ms}))
    elif mode == "compare" and len(argv) >= 4:
        repeats, threads, models = int(argv[1]), int(argv[2]), argv[3:]
        ms, xnnpack = interleaved(models, repeats, threads)
        print(json.dumps({"batch": 1, "runtime": f"litert {VERSION} cpu", "threads": threads or all_cores(),
                          "xnnpack": dict(zip(models, xnnpack)), "ms_per_image": dict(zip(models, ms))}))
    elif mode == "describe" and len(argv) == 2:
        describe(argv[1])
    else:
        raise Failure("usage: litert_run.py run MODEL INPUT.bin OUTPUT.bin | bench MODEL REPEATS [THREADS]"
                      " | compare REPEATS THREADS MODEL... | describe MODEL")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Failure as e:
        print(f"litert_run: {e}", file=sys.stderr)
        sys.exit(1)
    except Exception as e:  # one line naming the file and the reason
        print(f"litert_run: {' '.join(sys.argv[2:]) or '-'}: {one_line(e)}", file=sys.stderr)
        sys.exit(1)
