"""Runs an ONNX file with ONNX Runtime (the PyPI onnxruntime, CPU), the independent runtime the
export tests and benchmarks compare Lathe's files with.

  ort_run.py run MODEL INPUT.bin N,C,H,W OUTPUT.bin    float32 input, float32 output (raw)
  ort_run.py bench MODEL N,C,H,W REPEATS [THREADS]     prints {"ms_per_image": ...} as JSON
  ort_run.py compare N,C,H,W REPEATS THREADS MODEL...  the models' runs interleaved (a fair ratio
      on a busy machine); prints {"batch", "ms_per_image": {MODEL: median}} as JSON
"""
import json
import sys
import time

import numpy as np
import onnxruntime as ort


def session(model, threads=0):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])


def interleaved(models, shape, repeats, threads):
    """Median milliseconds per run of each model on the same input, after a warm-up run each; the
    models take turns, so that a change in the machine's load falls on all of them alike."""
    data = (np.sin(np.arange(int(np.prod(shape)), dtype=np.float64)) * 1.5).astype(np.float32).reshape(shape)
    sessions = [session(m, threads) for m in models]
    feeds = [{s.get_inputs()[0].name: data} for s in sessions]
    for s, f in zip(sessions, feeds):
        s.run(None, f)
    times = [[] for _ in sessions]
    for _ in range(repeats):
        for i, (s, f) in enumerate(zip(sessions, feeds)):
            t0 = time.perf_counter()
            s.run(None, f)
            times[i].append((time.perf_counter() - t0) * 1e3)
    return [sorted(t)[len(t) // 2] for t in times]


def main(argv):
    mode = argv[0] if argv else ""
    if mode == "run":
        model, input_path, shape_text, output_path = argv[1:5]
        shape = [int(v) for v in shape_text.split(",")]
        x = np.fromfile(input_path, dtype=np.float32).reshape(shape)
        s = session(model)
        name, out_name = s.get_inputs()[0].name, s.get_outputs()[0].name
        (y,) = s.run([out_name], {name: x})
        if y.dtype != np.float32:
            raise SystemExit(f"ort_run: {model}: output type {y.dtype}, expected float32")
        y.tofile(output_path)
        print(json.dumps({"input": name, "output": out_name, "dims": list(y.shape), "onnxruntime": ort.__version__}))
    elif mode == "bench":
        model, shape_text, repeats = argv[1], argv[2], int(argv[3])
        threads = int(argv[4]) if len(argv) > 4 else 0
        shape = [int(v) for v in shape_text.split(",")]
        (ms,) = interleaved([model], shape, repeats, threads)
        print(json.dumps({"model": model, "batch": shape[0], "ms_per_batch": ms, "ms_per_image": ms / shape[0]}))
    elif mode == "compare":
        shape = [int(v) for v in argv[1].split(",")]
        repeats, threads, models = int(argv[2]), int(argv[3]), argv[4:]
        ms = interleaved(models, shape, repeats, threads)
        print(json.dumps({"batch": shape[0], "ms_per_image": {m: t / shape[0] for m, t in zip(models, ms)}}))
    else:
        raise SystemExit("usage: ort_run.py run|bench|compare ...")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Exception as e:  # one line naming the file and the reason
        print(f"ort_run: {e}", file=sys.stderr)
        sys.exit(1)
