"""lathe-cli serve, driven over HTTP with the standard library (cli_serve.sh prepares TMP).

  serve_client.py LATHE_CLI TMP

TMP holds photos/, e1/ (version 1: torchscript, safetensors, onnx), e2/ (version 2:
torchscript), predict1.json and predict2.json (lathe-cli predict's probabilities). Every loop is
bounded (by a count, or by a deadline that fails the test); no assertion is on a timing.
"""
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib

CLI, TMP = sys.argv[1], sys.argv[2]
LABELS = ["cat", "dog", "fish"]
DEADLINE_S = 120  # how long a wait may last before the test fails (never reached when it works)


def fail(message):
    print("cli_serve: FAIL: " + message, file=sys.stderr)
    for s in Server.started:
        try:
            s.proc.kill()
        except OSError:
            pass
        print(f"--- {s.name} log (tail) ---\n" + open(s.log_path).read()[-3000:], file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def close(a, b, tol):
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b))


class Server:
    started = []

    def __init__(self, name, args):
        self.name = name
        self.log_path = f"{TMP}/{name}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([CLI, "serve", "--port", "0", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        Server.started.append(self)
        self.port = None

    def wait_listening(self):
        deadline = time.time() + DEADLINE_S
        while not self.events("listening"):
            check(self.proc.poll() is None, f"{self.name} exited with {self.proc.returncode}")
            check(time.time() < deadline, f"{self.name} never said it was listening")
            time.sleep(0.05)
        self.port = self.events("listening")[0]["port"]
        self.base = f"http://127.0.0.1:{self.port}"

    def events(self, kind=None):
        out = []
        with open(self.log_path) as f:
            for line in f:
                try:
                    d = json.loads(line)
                except ValueError:
                    continue  # another line (or one being written)
                if isinstance(d, dict) and (kind is None or d.get("event") == kind):
                    out.append(d)
        return out

    def request(self, method, path, body=None, raw=None, headers=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        h = {"Content-Type": "application/json"}
        h.update(headers or {})
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=h)
        try:
            with urllib.request.urlopen(req, timeout=DEADLINE_S) as r:
                return r.status, r.read(), r.headers
        except urllib.error.HTTPError as e:
            return e.code, e.read(), e.headers

    def json(self, method, path, body=None, raw=None, headers=None):
        status, data, h = self.request(method, path, body, raw, headers)
        try:
            doc = json.loads(data)
        except ValueError:
            fail(f"{method} {path}: the answer is not JSON: {data[:200]!r}")
        return status, doc, h

    def expect_error(self, status, method, path, body=None, raw=None, headers=None, contains=""):
        got, doc, h = self.json(method, path, body, raw, headers)
        check(got == status, f"{method} {path} {str(body if raw is None else raw)[:80]}: expected {status}, got {got}: {doc}")
        check(isinstance(doc, dict) and isinstance(doc.get("error"), str) and doc["error"],
              f"{method} {path}: no TF Serving error body: {doc}")
        check(contains in doc["error"], f"{method} {path}: '{contains}' not in the error: {doc['error']}")
        return doc, h

    def metrics(self, headers=None):
        status, data, _ = self.request("GET", "/monitoring/prometheus/metrics", headers=headers)
        check(status == 200, f"metrics: {status}")
        values = {}
        for line in data.decode().splitlines():
            if line and not line.startswith("#"):
                key, value = line.rsplit(" ", 1)
                values[key] = float(value)
        return values

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            fail(f"{self.name} did not stop on SIGTERM")
        check(code == 0, f"{self.name} exited with {code} after SIGTERM")
        Server.started.remove(self)


def b64(data):
    return {"b64": base64.b64encode(data).decode()}


def png(width, height, rows=None):
    """A PNG declaring width x height (8-bit RGB); rows: the raw scanlines (else one empty IDAT)."""
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows or b"")) + chunk(b"IEND", b"")


def jpeg_with_size(data, width, height):
    """A JPEG whose frame header (SOF0/SOF2) declares width x height."""
    data = bytearray(data)
    i = 2
    while i < len(data) - 9:
        check(data[i] == 0xFF, "jpeg_with_size: lost in the markers")
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            data[i + 5:i + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        i += 2 + length
    fail("jpeg_with_size: no frame header")


def load_reference(path):
    """lathe-cli predict --json: file name -> probabilities in label order."""
    out = {}
    for item in json.load(open(path)):
        check("predictions" in item, f"predict failed on {item}")
        probs = {p["class"]: p["probability"] for p in item["predictions"]}
        out[os.path.basename(item["path"])] = [probs[label] for label in LABELS]
    return out


def version_state(server, name, version):
    status, doc, _ = server.json("GET", f"/v1/models/{name}")
    check(status == 200, f"status of {name}: {status} {doc}")
    for v in doc["model_version_status"]:
        if v["version"] == str(version):
            return v
    return None


def wait_for(what, predicate):
    deadline = time.time() + DEADLINE_S
    while True:
        value = predicate()
        if value:
            return value
        check(time.time() < deadline, f"waited in vain for {what}")
        time.sleep(0.05)


def main():
    photos = sorted(os.listdir(f"{TMP}/photos"))
    images = {p: open(f"{TMP}/photos/{p}", "rb").read() for p in photos}
    ref1, ref2 = load_reference(f"{TMP}/predict1.json"), load_reference(f"{TMP}/predict2.json")
    check(any(not close(ref1[p], ref2[p], 1e-3) for p in photos), "versions 1 and 2 predict the same")

    # Model folders: m (numbered versions, hot reload), the plain export, an ONNX-only and a
    # safetensors-only copy of version 1, and one whose report says failed.
    os.makedirs(f"{TMP}/models/m")
    shutil.copytree(f"{TMP}/e1", f"{TMP}/models/m/1")

    def variant(name, keep, files, edit=None):
        dst = f"{TMP}/{name}"
        os.makedirs(dst)
        for f in files:
            shutil.copy(f"{TMP}/e1/{f}", dst)
        report = json.load(open(f"{TMP}/e1/report.json"))
        report["artifacts"] = [a for a in report["artifacts"] if a["format"] in keep]
        if edit:
            edit(report)
        json.dump(report, open(f"{dst}/report.json", "w"))
        return dst

    variant("onnxonly", ["onnx"], ["model.onnx"])
    variant("stonly", ["safetensors"], ["model.safetensors", "model.json"])

    def failed(report):
        report["status"] = "failed"
        report["artifacts"][0].update(status="failed", reason="max|diff| 3.2 above the limit")
    variant("failed", ["torchscript"], ["model.pt"], failed)
    token = "s3cret-token-of-the-test-0123456789"
    open(f"{TMP}/token", "w").write(token + "\n")
    auth = {"Authorization": "Bearer " + token}

    a = Server("a", ["--model", f"m={TMP}/models/m", "--model", f"plain={TMP}/e1", "--device", "cpu",
                     "--max-batch", "8", "--batch-timeout-ms", "5", "--poll-seconds", "0.2", "--threads", "16",
                     "--max-body-mb", "1", "--torch-threads", "1"])
    b = Server("b", ["--model", f"onnx={TMP}/onnxonly", "--model", f"st={TMP}/stonly", "--device", "cpu",
                     "--max-batch", "4", "--batch-timeout-ms", "5000", "--max-queue", "1", "--threads", "8",
                     "--poll-seconds", "0", "--token-file", f"{TMP}/token", "--torch-threads", "1"])
    refused = subprocess.run([CLI, "serve", "--port", "0", "--model", f"x={TMP}/failed"], stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=DEADLINE_S)
    check(refused.returncode != 0 and "does not say passed" in refused.stderr and "max|diff| 3.2" in refused.stderr,
          f"a failed export was served: {refused.returncode} {refused.stderr[-500:]}")
    a.wait_listening()
    b.wait_listening()

    # --- endpoints -----------------------------------------------------------------------------
    status, doc, _ = a.json("GET", "/healthz")
    check(status == 200 and doc == {"status": "ok", "models": {"m": 1, "plain": 1}}, f"healthz: {doc}")
    status, doc, _ = a.json("GET", "/v1/models/m")
    check(status == 200 and doc == {"model_version_status": [
        {"version": "1", "state": "AVAILABLE", "status": {"error_code": "OK", "error_message": ""}}]}, f"status: {doc}")
    status, doc, _ = a.json("GET", "/v1/models/m/versions/1")
    check(status == 200 and doc["model_version_status"][0]["version"] == "1", f"status of version 1: {doc}")
    status, doc, _ = a.json("GET", "/v1/models/m/metadata")
    check(status == 200, f"metadata: {status} {doc}")
    check(doc["model_spec"] == {"name": "m", "signature_name": "", "version": "1"}, f"metadata model_spec: {doc}")
    sig = doc["metadata"]["signature_def"]["signature_def"]["serving_default"]
    check(sig["method_name"] == "tensorflow/serving/predict", f"method_name: {sig}")
    check(sig["inputs"]["input"]["dtype"] == "DT_FLOAT" and
          [d["size"] for d in sig["inputs"]["input"]["tensor_shape"]["dim"]] == ["-1", "3", "32", "32"],
          f"metadata input: {sig['inputs']}")
    check(sorted(sig["outputs"]) == ["logits", "probabilities"] and
          [d["size"] for d in sig["outputs"]["probabilities"]["tensor_shape"]["dim"]] == ["-1", "3"],
          f"metadata outputs: {sig['outputs']}")
    check(doc["metadata"]["lathe"]["labels"] == LABELS and doc["metadata"]["lathe"]["runtime"] == "torchscript",
          f"metadata lathe: {doc['metadata']['lathe']}")

    sent_to_m = 0  # instances answered by model m: the batch-size histogram must add up to them

    def predict(server, name, body, headers=None, path_suffix=""):
        status, doc, _ = server.json("POST", f"/v1/models/{name}{path_suffix}:predict", body, headers=headers)
        check(status == 200, f"predict {name}: {status} {doc}")
        return doc

    # Row format, every photo (JPEG and PNG) at once: lathe-cli predict's probabilities.
    doc = predict(a, "m", {"instances": [b64(images[p]) for p in photos]})
    sent_to_m += len(photos)
    rows = doc["predictions"]
    check(len(rows) == len(photos), f"{len(rows)} predictions for {len(photos)} images")
    for p, row in zip(photos, rows):
        check(close(row["probabilities"], ref1[p], 1e-4), f"{p}: served {row['probabilities']}, predict {ref1[p]}")
        check(abs(sum(row["probabilities"]) - 1) < 1e-5 and len(row["logits"]) == 3, f"{p}: {row}")
    single = {p: row["probabilities"] for p, row in zip(photos, rows)}
    # Columnar format, named input; named row instances; the version in the path; the plain export.
    doc = predict(a, "m", {"signature_name": "serving_default", "inputs": {"input": [b64(images[p]) for p in photos]}})
    sent_to_m += len(photos)
    check(set(doc["outputs"]) == {"logits", "probabilities"}, f"columnar outputs: {doc}")
    for p, row in zip(photos, doc["outputs"]["probabilities"]):
        check(close(row, single[p], 1e-5), f"columnar {p}: {row} vs {single[p]}")
    doc = predict(a, "m", {"instances": [{"image_bytes": b64(images[photos[0]])}, {"input": b64(images[photos[1]])}]},
                  path_suffix="/versions/1")
    sent_to_m += 2
    check(close(doc["predictions"][0]["probabilities"], single[photos[0]], 1e-5) and
          close(doc["predictions"][1]["probabilities"], single[photos[1]], 1e-5), f"named instances: {doc}")
    doc = predict(a, "plain", {"instances": [b64(images[p]) for p in photos]})
    for p, row in zip(photos, doc["predictions"]):
        check(close(row["probabilities"], ref1[p], 1e-4), f"plain {p}: {row}")
    # :classify: labels and scores, highest first.
    status, doc, _ = a.json("POST", "/v1/models/m:classify",
                            {"examples": [{"image": b64(images[p])} for p in photos[:3]]})
    sent_to_m += 3
    check(status == 200 and len(doc["result"]) == 3, f"classify: {status} {doc}")
    for p, result in zip(photos, doc["result"]):
        check([r[0] for r in result] == sorted(LABELS, key=lambda lab: -ref1[p][LABELS.index(lab)]),
              f"classify {p}: {result} vs {ref1[p]}")
        check(all(abs(score - ref1[p][LABELS.index(lab)]) < 1e-4 for lab, score in result), f"classify scores {p}")

    # Float tensors: the logits TorchScript in PyTorch gives for the same input.
    import torch
    torch.manual_seed(0)
    x = torch.randn(2, 3, 32, 32)
    with torch.no_grad():
        want = torch.jit.load(f"{TMP}/e1/model.pt")(x)
    doc = predict(a, "m", {"instances": x.tolist()})
    sent_to_m += 2
    for i in range(2):
        check(close(doc["predictions"][i]["logits"], want[i].tolist(), 1e-4),
              f"tensor instance {i}: {doc['predictions'][i]['logits']} vs {want[i].tolist()}")
    doc = predict(a, "m", {"inputs": x[:1].tolist()})
    sent_to_m += 1
    check(close(doc["outputs"]["logits"][0], want[0].tolist(), 1e-4), f"columnar tensor: {doc}")

    # --- every error path: a TF Serving error body, the right status, the server unharmed -------
    P = "/v1/models/m:predict"
    photo = images[photos[0]]
    hostile = [
        (400, dict(raw=b'{"instances": [{"b64": "'), "JSON Parse error"),
        (400, dict(raw=b'{"instances": [1, 2'), "JSON Parse error"),
        (400, dict(raw=b''), "JSON Parse error"),
        (400, dict(raw=b'[1, 2, 3]'), "must be a JSON object"),
        (400, dict(raw=b'{"instances": [NaN]}'), "JSON Parse error"),
        (400, dict(raw=b'{"instances": [' + b"[" * 100000 + b"]" * 100000 + b"]}"), "nested deeper"),
        (400, dict(raw=b'{"instances": [' + json.dumps([[[0.5] * 32] * 32] * 3).replace("0.5", "1e999", 1).encode() + b']}'),
         ""),
        (400, dict(body={}), "Missing 'inputs' or 'instances' key"),
        (400, dict(body={"instances": [b64(photo)], "inputs": [b64(photo)]}), "Not both"),
        (400, dict(body={"instances": []}), "no instances"),
        (400, dict(body={"instances": "abc"}), "expected a list"),
        (400, dict(body={"inputs": {"input": b64(photo)}}), "expected a batch"),
        (400, dict(body={"instances": [[[0.0] * 32] * 32]}), "instance shape [3, 32, 32]"),
        (400, dict(body={"instances": [[[[0.0] * 31] * 32] * 3]}), "instance shape [3, 32, 32]"),
        (400, dict(body={"instances": [[[["0"] * 32] * 32] * 3]}), "expected float32 numbers"),
        (400, dict(body={"instances": [[[[True] * 32] * 32] * 3]}), "expected float32 numbers"),
        (400, dict(body={"instances": [{"pixels": b64(photo)}]}), "the model has one input"),
        (400, dict(body={"instances": [{"b64": 12}]}), "expected a base64 string"),
        (400, dict(body={"instances": [{"b64": "!!!not base64!!!"}]}), "not valid base64"),
        (400, dict(body={"instances": [{"b64": "QUJDRA=Q"}]}), "not valid base64"),
        (400, dict(body={"instances": [{"b64": "QUJDR"}]}), "not valid base64"),
        (400, dict(body={"instances": [b64(b"hello, not an image at all")]}), "not a JPEG or PNG image"),
        (400, dict(body={"instances": [b64(photo[:20])]}), ""),
        (400, dict(body={"instances": [b64(b"BM" + struct.pack("<IHHI", 58, 0, 0, 54) +
                                           struct.pack("<IiiHHIIiiII", 40, 1, 1, 1, 24, 0, 4, 2835, 2835, 0, 0) +
                                           b"\x00\x00\xff\x00")]}), "only JPEG and PNG"),
        (400, dict(body={"instances": [b64(png(100000, 100000))]}), "refused before decoding"),
        (400, dict(body={"instances": [b64(jpeg_with_size(images["HappyFish.jpg"], 65000, 65000))]}),
         "refused before decoding"),
        (400, dict(body={"instances": [b64(png(1, 1, b"\x00\xff\x00\x00"))] * 65}), "over the limit serve.instances = 64"),
        (400, dict(body={"signature_name": "nope", "instances": [b64(photo)]}), "not found in signature def"),
    ]
    for status, kwargs, contains in hostile:
        a.expect_error(status, "POST", P, contains=contains, **kwargs)
    # A truncated photo decodes as far as it goes or is refused; either way the server answers.
    status, _, _ = a.request("POST", P, {"instances": [b64(photo[:len(photo) // 2])]})
    check(status in (200, 400), f"half a JPEG: {status}")
    sent_to_m += 1 if status == 200 else 0
    a.expect_error(400, "POST", "/v1/models/m:regress", {"instances": [b64(photo)]}, contains="does not regress")
    a.expect_error(404, "POST", "/v1/models/nope:predict", {"instances": [b64(photo)]}, contains="Servable not found")
    a.expect_error(404, "GET", "/v1/models/nope", contains="Servable not found")
    a.expect_error(404, "GET", "/v1/models/nope/metadata", contains="Servable not found")
    a.expect_error(404, "POST", "/v1/models/m/versions/9:predict", {"instances": [b64(photo)]},
                   contains="Specific(m, 9)")
    a.expect_error(404, "GET", "/v1/models/m/versions/9", contains="version 9")
    a.expect_error(400, "GET", "/v1/models/m/versions/x1", contains="non-negative integer")
    a.expect_error(404, "POST", "/v1/models/m/labels/stable:predict", {"instances": []}, contains="label")
    _, h = a.expect_error(405, "GET", P, contains="POST")
    check(h.get("Allow") == "POST", f"Allow: {h.get('Allow')}")
    a.expect_error(405, "POST", "/v1/models/m", {"instances": []})
    a.expect_error(404, "GET", "/nope", contains="Malformed request")
    a.expect_error(404, "DELETE", "/v1/models/m")
    # A 100 MB body is refused from its Content-Length (413) before any of it is read...
    with socket.create_connection(("127.0.0.1", a.port), timeout=DEADLINE_S) as s:
        s.sendall(b"POST " + P.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 104857600\r\n\r\n")
        answer = b""
        while True:
            piece = s.recv(65536)
            if not piece:
                break
            answer += piece
    check(answer.startswith(b"HTTP/1.1 413"), f"100 MB body: {answer[:200]!r}")
    check(b"larger than the limit" in answer, f"413 body: {answer[-300:]!r}")
    # ...a chunked one when it passes the limit (413, or the connection closed on the rest)...
    try:
        with socket.create_connection(("127.0.0.1", a.port), timeout=DEADLINE_S) as s:
            s.sendall(b"POST " + P.encode() + b" HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n" % 16384 + b" " * 16384 + b"\r\n"
            for _ in range(80):  # 1.3 MB
                s.sendall(chunk)
            s.sendall(b"0\r\n\r\n")
            answer = s.recv(65536)
        check(answer.startswith(b"HTTP/1.1 413"), f"chunked 1.3 MB body: {answer[:200]!r}")
    except ConnectionError:
        pass
    # ...and one really sent gets 413 or has its connection closed, never an answer from the model.
    try:
        status, _, _ = a.request("POST", P, raw=b'{"instances": ["' + b"A" * (2 << 20) + b'"]}')
        check(status == 413, f"2 MB body: {status}")
    except (urllib.error.URLError, ConnectionError):
        pass
    status, doc, _ = a.json("GET", "/healthz")
    check(status == 200 and a.proc.poll() is None, "the server did not survive the hostile requests")

    # --- dynamic batching: concurrent requests, each gets its own rows back ----------------------
    results, errors = [], []

    def client(k):
        for j in range(3):
            chosen = [photos[(k + j + i) % len(photos)] for i in range(1 + (k + j) % 3)]
            status, doc, _ = a.json("POST", P, {"instances": [b64(images[p]) for p in chosen]})
            if status != 200:
                errors.append((status, doc))
                continue
            results.append((chosen, [r["probabilities"] for r in doc["predictions"]]))
    threads = [threading.Thread(target=client, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors, f"batched requests failed: {errors[:3]}")
    for chosen, probs in results:
        sent_to_m += len(chosen)
        for p, row in zip(chosen, probs):
            check(close(row, single[p], 1e-4), f"batched {p}: {row} vs {single[p]}")
    m = a.metrics()
    batched = m.get('lathe_serve_batch_size_sum{model="m"}')
    check(batched == sent_to_m, f"batch sizes add up to {batched}, {sent_to_m} instances were sent")
    check(m.get('lathe_serve_requests_total{model="m",api="predict",status="400"}', 0) >= len(hostile),
          "400s not counted")
    check(m.get('lathe_serve_queue_depth{model="m"}') == 0 and m.get('lathe_serve_model_version{model="m"}') == 1,
          "queue depth / version gauges")
    check(any(k.startswith("lathe_serve_request_latency_seconds_bucket{") for k in m), "no latency histogram")

    # --- hot reload under load: v2 switched to, v3 (report failed) and v4 (corrupt) refused -----
    stop = threading.Event()
    answers = []

    def load_client():
        for _ in range(5000):
            if stop.is_set():
                return
            status, doc, _ = a.json("POST", P, {"instances": [b64(images[photos[0]])]})
            answers.append((status, doc.get("predictions", [{}])[0].get("probabilities") if status == 200 else doc))
    loaders = [threading.Thread(target=load_client) for _ in range(2)]
    for t in loaders:
        t.start()
    wait_for("requests before the new version", lambda: len(answers) >= 5)

    def add_version(v, source, damage=None):
        tmp = f"{TMP}/models/m/.incoming-{v}"
        shutil.copytree(source, tmp)
        if damage:
            damage(tmp)
        os.rename(tmp, f"{TMP}/models/m/{v}")  # a version folder appears whole

    add_version(2, f"{TMP}/e2")
    wait_for("version 2", lambda: (version_state(a, "m", 2) or {}).get("state") == "AVAILABLE")
    n = len(answers)
    wait_for("requests after the switch", lambda: len(answers) >= n + 5)

    def fail_report(d):
        report = json.load(open(f"{d}/report.json"))
        report["status"] = "failed"
        report["artifacts"][0].update(status="failed", reason="top-1 agreement 0.5")
        json.dump(report, open(f"{d}/report.json", "w"))

    def corrupt(d):
        with open(f"{d}/model.pt", "r+b") as f:
            f.truncate(1000)
    add_version(3, f"{TMP}/e1", fail_report)
    st3 = wait_for("version 3 refused", lambda: (lambda s: s if s and s["state"] == "END" else None)(version_state(a, "m", 3)))
    check(st3["status"]["error_code"] != "OK" and "does not say passed" in st3["status"]["error_message"], f"v3: {st3}")
    add_version(4, f"{TMP}/e1", corrupt)
    st4 = wait_for("version 4 refused", lambda: (lambda s: s if s and s["state"] == "END" else None)(version_state(a, "m", 4)))
    check("model.pt" in st4["status"]["error_message"], f"v4: {st4}")
    n = len(answers)
    wait_for("requests after the refusals", lambda: len(answers) >= n + 5)
    stop.set()
    for t in loaders:
        t.join()
    bad = [s for s, _ in answers if s != 200]
    check(not bad, f"{len(bad)} requests failed during the reload: {answers[:3]}")
    v1 = v2 = 0
    for _, probs in answers:
        if close(probs, ref2[photos[0]], 1e-4):
            v2 += 1
        elif close(probs, ref1[photos[0]], 1e-4):
            v1 += 1
        else:
            fail(f"an answer from neither version: {probs}")
    check(v1 > 0 and v2 > 0, f"answers: {v1} from version 1, {v2} from version 2")
    check(version_state(a, "m", 2)["state"] == "AVAILABLE" and version_state(a, "m", 1)["state"] == "END",
          "version states after the reload")
    doc = predict(a, "m", {"instances": [b64(images[photos[1]])]})
    check(close(doc["predictions"][0]["probabilities"], ref2[photos[1]], 1e-4), "version 2 is not what answers")
    refusals = {e["version"]: e["reason"] for e in a.events("model_refused")}
    check(set(refusals) == {3, 4} and "top-1 agreement 0.5" in refusals[3], f"refusals logged: {refusals}")
    m = a.metrics()
    check(m.get('lathe_serve_model_loads_total{model="m",result="refused"}') == 2 and
          m.get('lathe_serve_model_loads_total{model="m",result="loaded"}') == 2 and
          m.get('lathe_serve_model_version{model="m"}') == 2, "load counters")

    # --- access log: one JSON line per request -------------------------------------------------
    requests = a.events("request")
    check(any(r["status"] == 413 for r in requests), "the 413 is not in the access log")
    check(all({"method", "path", "status", "ms", "remote", "bytes_in", "bytes_out"} <= set(r) for r in requests),
          f"access log fields: {requests[0]}")
    check(any(r.get("model") == "m" and r.get("version") == 2 and r["status"] == 200 for r in requests),
          "no access log line names the model and version")

    # --- server b: auth, the ONNX and safetensors runtimes, the bounded queue, SIGTERM drain ----
    b.expect_error(401, "POST", "/v1/models/st:predict", {"instances": [b64(photo)]}, contains="bearer token")
    _, h = b.expect_error(401, "GET", "/v1/models/st", headers={"Authorization": "Bearer " + token[:-1] + "x"})
    check(h.get("WWW-Authenticate") == "Bearer", "WWW-Authenticate")
    b.expect_error(401, "GET", "/monitoring/prometheus/metrics", headers={"Authorization": "Basic " + token})
    status, doc, _ = b.json("GET", "/healthz")
    check(status == 200, "healthz needs no token")
    for name, runtime, tol in (("onnx", "torchscript-from-onnx", 1e-4), ("st", "libtorch", 1e-5)):
        status, doc, _ = b.json("GET", f"/v1/models/{name}/metadata", headers=auth)
        check(status == 200 and doc["metadata"]["lathe"]["runtime"] == runtime, f"{name} runtime: {doc}")
        doc = predict(b, name, {"instances": [b64(images[p]) for p in photos]}, headers=auth)
        for p, row in zip(photos, doc["predictions"]):
            check(close(row["probabilities"], ref1[p], tol), f"{name} {p}: {row['probabilities']} vs {ref1[p]}")

    def queued(server, name):
        return server.metrics(auth).get(f'lathe_serve_queue_depth{{model="{name}"}}') == 1

    first = []
    t = threading.Thread(target=lambda: first.append(b.json("POST", "/v1/models/st:predict",
                                                            {"instances": [b64(photo)]}, headers=auth)))
    t.start()
    wait_for("a request waiting for its batch", lambda: queued(b, "st"))
    _, h = b.expect_error(503, "POST", "/v1/models/st:predict", {"instances": [b64(photo)]}, headers=auth,
                          contains="queue is full")
    check(h.get("Retry-After") == "1", f"Retry-After: {h.get('Retry-After')}")
    t.join()
    check(first[0][0] == 200, f"the queued request: {first[0][:2]}")

    # SIGTERM while a request waits for its batch: it is answered, then the server exits 0.
    last = []
    t = threading.Thread(target=lambda: last.append(b.json("POST", "/v1/models/st:predict",
                                                           {"instances": [b64(photo)]}, headers=auth)))
    t.start()
    wait_for("a request in flight", lambda: queued(b, "st"))
    b.stop()
    t.join()
    check(last and last[0][0] == 200 and close(last[0][1]["predictions"][0]["probabilities"], ref1[photos[0]], 1e-5),
          f"the request in flight during SIGTERM: {last[:1]}")
    check(b.events("draining") and b.events("stopped"), "no draining/stopped events")
    a.stop()
    print(f"cli_serve: {len(hostile) + 12} hostile requests refused, {len(answers)} requests during the reload "
          f"({v1} from version 1, {v2} from version 2), batching and drain checked")


main()
