"""Runs an ONNX file in an independent CPU runtime, the ones the export tests and benchmarks compare
Lathe's files with: ONNX Runtime (the PyPI onnxruntime, CPU execution provider; the default) or
OpenVINO (the PyPI openvino, Core().compile_model on "CPU").

  ort_run.py [--runtime R] run MODEL INPUT.bin N,C,H,W OUTPUT.bin    float32 input, float32 output
      (raw); prints {"input", "output", "dims", "runtime", R: version} as JSON
  ort_run.py [--runtime R] bench MODEL N,C,H,W REPEATS [THREADS]     prints {"ms_per_image": ...}
  ort_run.py [--runtime R] compare N,C,H,W REPEATS THREADS MODEL...  the models' runs interleaved
      (a fair ratio on a busy machine); prints {"batch", "runtime", "ms_per_image": {MODEL: median}}
  R: onnxruntime (default) or openvino. THREADS 0: the runtime's default (all cores); otherwise
  ONNX Runtime's intra-op threads (one inter-op thread), OpenVINO's INFERENCE_NUM_THREADS.

OpenVINO computes in float32 here (INFERENCE_PRECISION_HINT f32): its CPU default on processors with
bfloat16 instructions is bf16, which would compare OpenVINO's down-conversion instead of the file.
"""
import json
import sys
import time

import numpy as np


class OnnxRuntime:
    name = "onnxruntime"

    def __init__(self):
        import onnxruntime
        self.ort = onnxruntime
        self.version = onnxruntime.__version__
        self.description = f"onnxruntime {self.version} cpu"

    def load(self, model, threads=0):
        """(input name, output name, run: float32 array -> first output)."""
        options = self.ort.SessionOptions()
        options.graph_optimization_level = self.ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        s = self.ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        name, out_name = s.get_inputs()[0].name, s.get_outputs()[0].name
        return name, out_name, lambda x: s.run([out_name], {name: x})[0]


class OpenVino:
    name = "openvino"
    precision = "f32"

    def __init__(self):
        import openvino
        self.core = openvino.Core()
        self.version = openvino.__version__.split("-")[0]
        self.description = f"openvino {self.version} cpu {self.precision}"

    def load(self, model, threads=0):
        config = {"INFERENCE_PRECISION_HINT": self.precision}
        if threads:
            config["INFERENCE_NUM_THREADS"] = threads
        compiled = self.core.compile_model(model, "CPU", config)
        request = compiled.create_infer_request()

        def run(x):
            request.infer({0: x})
            return request.get_output_tensor(0).data.copy()

        def tensor_name(port):
            return port.get_any_name() if port.get_names() else ""

        return tensor_name(compiled.input(0)), tensor_name(compiled.output(0)), run


RUNTIMES = {"onnxruntime": OnnxRuntime, "openvino": OpenVino}


def interleaved(runtime, models, shape, repeats, threads):
    """Median milliseconds per run of each model on the same input, after a warm-up run each; the
    models take turns, so that a change in the machine's load falls on all of them alike."""
    data = (np.sin(np.arange(int(np.prod(shape)), dtype=np.float64)) * 1.5).astype(np.float32).reshape(shape)
    runs = [runtime.load(m, threads)[2] for m in models]
    for run in runs:
        run(data)
    times = [[] for _ in runs]
    for _ in range(repeats):
        for i, run in enumerate(runs):
            t0 = time.perf_counter()
            run(data)
            times[i].append((time.perf_counter() - t0) * 1e3)
    return [sorted(t)[len(t) // 2] for t in times]


def split_runtime(argv):
    """The runtime named by --runtime R (or --runtime=R) anywhere in argv, and the other arguments."""
    name, rest, i = "onnxruntime", [], 0
    while i < len(argv):
        if argv[i] == "--runtime" and i + 1 < len(argv):
            name, i = argv[i + 1], i + 2
            continue
        if argv[i].startswith("--runtime="):
            name = argv[i].split("=", 1)[1]
        else:
            rest.append(argv[i])
        i += 1
    if name not in RUNTIMES:
        raise SystemExit(f"ort_run: unknown runtime {name!r} (onnxruntime or openvino)")
    return name, rest


def main(argv):
    runtime_name, argv = split_runtime(argv)
    mode = argv[0] if argv else ""
    if mode not in ("run", "bench", "compare"):
        raise SystemExit("usage: ort_run.py [--runtime onnxruntime|openvino] run|bench|compare ...")
    runtime = RUNTIMES[runtime_name]()
    if mode == "run":
        model, input_path, shape_text, output_path = argv[1:5]
        shape = [int(v) for v in shape_text.split(",")]
        x = np.fromfile(input_path, dtype=np.float32).reshape(shape)
        name, out_name, run = runtime.load(model)
        y = run(x)
        if y.dtype != np.float32:
            raise SystemExit(f"ort_run: {model}: output type {y.dtype}, expected float32")
        y.tofile(output_path)
        print(json.dumps({"input": name, "output": out_name, "dims": list(y.shape),
                          "runtime": runtime.description, runtime.name: runtime.version}))
    elif mode == "bench":
        model, shape_text, repeats = argv[1], argv[2], int(argv[3])
        threads = int(argv[4]) if len(argv) > 4 else 0
        shape = [int(v) for v in shape_text.split(",")]
        (ms,) = interleaved(runtime, [model], shape, repeats, threads)
        print(json.dumps({"model": model, "runtime": runtime.description, "batch": shape[0],
                          "ms_per_batch": ms, "ms_per_image": ms / shape[0]}))
    else:
        shape = [int(v) for v in argv[1].split(",")]
        repeats, threads, models = int(argv[2]), int(argv[3]), argv[4:]
        ms = interleaved(runtime, models, shape, repeats, threads)
        print(json.dumps({"batch": shape[0], "runtime": runtime.description,
                          "ms_per_image": {m: t / shape[0] for m, t in zip(models, ms)}}))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit:
        raise
    except Exception as e:  # one line naming the file and the reason
        print(f"ort_run: {' '.join(sys.argv[1:])}: {' '.join(str(e).split()) or type(e).__name__}", file=sys.stderr)
        sys.exit(1)
