"""Lathe's TensorBoard files read by TensorBoard itself (the PyPI tensorboard package).

  tensorboard_read.py events FILE   prints every event of one file as JSON, through TensorBoard's
        EventFileLoader: {"wall_time", "step", "file_version"} or {"wall_time", "step", "tag", "value"}
  tensorboard_read.py check RUN_DIR loads the run folder in TensorBoard's EventAccumulator and checks
        its scalars (tags, steps, values) against the run's metrics.jsonl; prints a JSON summary
  tensorboard_read.py serve RUN_DIR starts `tensorboard --logdir RUN_DIR` on 127.0.0.1 (a free port),
        reads the same scalars over its HTTP data API, compares, and stops the server (bounded)
"""
import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def events(path):
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    out = []
    for e in EventFileLoader(path).Load():
        if e.HasField("file_version"):
            out.append({"wall_time": e.wall_time, "step": e.step, "file_version": e.file_version})
        for v in e.summary.value:
            value = v.simple_value if v.HasField("simple_value") else float(v.tensor.float_val[0])
            out.append({"wall_time": e.wall_time, "step": e.step, "tag": v.tag, "value": value})
    return out


def expected_scalars(run_dir):
    """{tag: {step: value}} that the run's metrics.jsonl says TensorBoard must show."""
    want = {}
    with open(os.path.join(run_dir, "metrics.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            if e.get("type") == "step":
                want.setdefault("train/loss", {})[e["step"]] = e["loss"]
                want.setdefault("train/lr", {})[e["step"]] = e["lr"]
            elif e.get("type") == "epoch":
                for key in ("train_loss", "train_top1", "val_loss", "val_top1", "val_top5"):
                    if key in e:
                        want.setdefault("epoch/" + key.replace("_", "/", 1), {})[e["step"]] = e[key]
    return want


def compare(got, want, source):
    """got: {tag: [(step, value)]}. Every expected tag, step and value (float32) is there."""
    for tag, steps in want.items():
        assert tag in got, f"{source}: no tag {tag} (has {sorted(got)})"
        have = dict(got[tag])
        for step, value in steps.items():
            assert step in have, f"{source}: {tag} has no step {step} (has {sorted(have)[:10]}...)"
            assert math.isclose(have[step], value, rel_tol=1e-6, abs_tol=1e-7), \
                f"{source}: {tag} at step {step} is {have[step]}, metrics.jsonl says {value}"
    return sum(len(s) for s in want.values())


def accumulator(run_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    acc = EventAccumulator(run_dir, size_guidance={"scalars": 0})
    acc.Reload()
    return {tag: [(s.step, s.value) for s in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def check(run_dir):
    want = expected_scalars(run_dir)
    assert want, f"{run_dir}: metrics.jsonl has no step or epoch events"
    got = accumulator(run_dir)
    n = compare(got, want, "EventAccumulator")
    print(json.dumps({"peer": "tensorboard EventAccumulator", "tags": sorted(got), "values_checked": n}))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def serve(run_dir, deadline_s=90):
    want = expected_scalars(run_dir)
    port = free_port()
    exe = os.path.join(os.path.dirname(sys.executable), "tensorboard")
    server = subprocess.Popen([exe, "--logdir", run_dir, "--host", "127.0.0.1", "--port", str(port),
                               "--reload_interval", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/data/plugin/scalars"
    try:
        start, tags = time.time(), {}
        while time.time() - start < deadline_s:
            if server.poll() is not None:
                raise SystemExit(f"tensorboard exited with {server.returncode}: {server.stderr.read().decode()[-2000:]}")
            try:
                tags = get_json(base + "/tags").get(".", {})
                if all(t in tags for t in want):
                    break
            except OSError:
                pass
            time.sleep(0.5)
        missing = [t for t in want if t not in tags]
        assert not missing, f"tensorboard did not serve {missing} within {deadline_s} s (served {sorted(tags)})"
        got = {}
        for tag in want:
            query = urllib.parse.urlencode({"run": ".", "tag": tag})
            got[tag] = [(step, value) for _wall, step, value in get_json(f"{base}/scalars?{query}")]
        n = compare(got, want, f"tensorboard HTTP on port {port}")
        print(json.dumps({"peer": "tensorboard server", "port": port, "tags": sorted(tags), "values_checked": n}))
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


if __name__ == "__main__":
    mode, arg = sys.argv[1], sys.argv[2]
    if mode == "events":
        print(json.dumps(events(arg)))
    elif mode == "check":
        check(arg)
    elif mode == "serve":
        serve(arg)
    else:
        raise SystemExit("usage: tensorboard_read.py events FILE | check RUN_DIR | serve RUN_DIR")
