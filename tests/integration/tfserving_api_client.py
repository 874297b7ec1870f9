"""lathe-cli serve, driven as a TensorFlow Serving client would drive it (cli_serve.sh prepares TMP).

  tfserving_api_client.py LATHE_CLI TMP

TMP holds photos/, e1/ (version 1 of the test's ResNet-18: logits and probabilities, float32
NCHW input), e3/ (the same weights exported with --softmax --preprocessing: probabilities only,
uint8 NHWC input) and predict1.json (lathe-cli predict's probabilities for the photos).

(a) TF Serving's documented REST requests (https://www.tensorflow.org/tfx/serving/api_rest): row
    format with signature_name, columnar format (plain and named), {"b64": ...} binary values,
    :classify with examples and context, GET model status and metadata, the documented 404; each
    answer's shape and fields checked against the documented response formats.
(b) Requests built with tensorflow-serving-api's protobufs (PredictRequest with
    tf.make_tensor_proto inputs, ClassificationRequest with tf.train.Example, GetModelStatusRequest,
    GetModelMetadataRequest), turned into REST JSON the way TF Serving's HTTP handler maps JSON to
    them (tensorflow_serving/util/json_tensor.cc, model_servers/http_rest_api_util.cc), and the
    answers parsed back into the API's response protobufs: PredictResponse (tf.make_tensor_proto
    of the outputs, dtypes and shapes from the served signature), ClassificationResponse,
    GetModelStatusResponse and GetModelMetadataResponse (google.protobuf.json_format, which is
    what TF Serving's REST status and metadata answers are).
Predictions must equal what cli_serve's serve_client.py checks for the same inputs: lathe-cli
predict's probabilities for images, TorchScript in PyTorch for tensors (within 1e-4). Exits 77
(skipped) only when tensorflow_serving cannot be imported. No assertion is on a timing.
"""
import base64
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
try:
    from tensorflow_serving.apis import classification_pb2, get_model_metadata_pb2, get_model_status_pb2, predict_pb2
except ImportError as e:
    if not (e.name or "").startswith("tensorflow_serving"):
        raise
    print(f"cli_serve: tfserving_api_client skipped: tensorflow_serving cannot be imported ({e}); "
          "scripts/install-python.sh installs tensorflow-serving-api (python/requirements-nodeps.txt)")
    sys.exit(77)
import numpy as np
import tensorflow as tf
from google.protobuf import json_format
from tensorflow.core.protobuf import error_codes_pb2

CLI, TMP = sys.argv[1], sys.argv[2]
LABELS = ["cat", "dog", "fish"]
DEADLINE_S = 120  # how long a wait may last before the test fails (never reached when it works)
TOL = 1e-4
checks = 0


class Server:
    def __init__(self, args):
        self.log_path = f"{TMP}/tfserving-api.log"
        self.proc = subprocess.Popen([CLI, "serve", "--port", "0", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=open(self.log_path, "w"))
        deadline = time.time() + DEADLINE_S
        while True:
            listening = [e for e in self.events() if e.get("event") == "listening"]
            if listening:
                break
            if self.proc.poll() is not None:
                fail(f"the server exited with {self.proc.returncode}")
            if time.time() > deadline:
                fail("the server never said it was listening")
            time.sleep(0.05)
        self.base = f"http://127.0.0.1:{listening[0]['port']}"

    def events(self):
        out = []
        with open(self.log_path) as f:
            for line in f:
                try:
                    d = json.loads(line)
                except ValueError:
                    continue
                if isinstance(d, dict):
                    out.append(d)
        return out

    def call(self, method, path, body=None):
        """(status, parsed JSON answer); every answer must be JSON with TF Serving's content type."""
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=DEADLINE_S) as r:
                status, raw, headers = r.status, r.read(), r.headers
        except urllib.error.HTTPError as e:
            status, raw, headers = e.code, e.read(), e.headers
        check(headers.get("Content-Type", "").startswith("application/json"),
              f"{method} {path}: Content-Type {headers.get('Content-Type')}")
        try:
            return status, json.loads(raw)
        except ValueError:
            fail(f"{method} {path}: the answer is not JSON: {raw[:200]!r}")

    def ok(self, method, path, body=None):
        status, doc = self.call(method, path, body)
        check(status == 200, f"{method} {path}: {status} {str(doc)[:300]}")
        return doc

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            fail("the server did not stop on SIGTERM")
        check(code == 0, f"the server exited with {code} after SIGTERM")


server = None


def fail(message):
    print("cli_serve: tfserving_api_client: FAIL: " + message, file=sys.stderr)
    if server is not None:
        try:
            server.proc.kill()
        except OSError:
            pass
        print("--- server log (tail) ---\n" + open(server.log_path).read()[-3000:], file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    global checks
    checks += 1
    if not condition:
        fail(message)


def close(a, b, tol=TOL):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol))


def b64(data):
    return {"b64": base64.b64encode(data).decode()}


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_float_matrix(v, rows, cols):
    return (isinstance(v, list) and len(v) == rows and
            all(isinstance(r, list) and len(r) == cols and all(is_number(x) for x in r) for r in v))


def proto_json_matches(served, printed, where="$"):
    """served (the server's JSON) equals printed (json_format's printing of the parsed message with
    every field shown), except that an empty repeated or map field may be left out."""
    if isinstance(printed, dict):
        check(isinstance(served, dict), f"{where}: {served!r} is not an object")
        extra = set(served) - set(printed)
        check(not extra, f"{where}: fields {sorted(extra)} are not in the protobuf's JSON")
        for k, v in printed.items():
            if k not in served:
                check(v in ({}, []), f"{where}.{k} missing (the protobuf prints {v!r})")
            else:
                proto_json_matches(served[k], v, f"{where}.{k}")
    elif isinstance(printed, list):
        check(isinstance(served, list) and len(served) == len(printed), f"{where}: {served!r} vs {printed!r}")
        for i, (s, p) in enumerate(zip(served, printed)):
            proto_json_matches(s, p, f"{where}[{i}]")
    else:
        check(served == printed and type(served) is type(printed), f"{where}: served {served!r}, protobuf {printed!r}")


def printed(message):
    """A message as TF Serving's REST handler prints it (every field shown, proto field names)."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True,
                                     preserving_proto_field_name=True)


# --- protobuf -> REST, the inverse of TF Serving's JSON -> protobuf (json_tensor.cc) -------------

def model_path(spec, suffix):
    path = "/v1/models/" + urllib.parse.quote(spec.name, safe="")
    which = spec.WhichOneof("version_choice")
    if which == "version":
        path += f"/versions/{spec.version.value}"
    elif which == "version_label":
        path += "/labels/" + urllib.parse.quote(spec.version_label, safe="")
    return path + suffix


def json_leaf(v):
    if isinstance(v, bytes):  # DT_STRING / bytes_list: binary values go as {"b64": ...}
        return b64(v)
    return v


def tensor_json(proto):
    """A TensorProto as TF Serving's JSON: nested lists in the tensor's shape."""
    def walk(x):
        return [walk(e) for e in x] if isinstance(x, list) else json_leaf(x)
    return walk(tf.make_ndarray(proto).tolist())


def predict_request_json(request, columnar, named):
    """PredictRequest -> (path, body). Row format: one entry of "instances" per row of the batch
    dimension (objects keyed by input name when named or when there are several inputs); columnar:
    "inputs", the tensor itself or an object of them."""
    body = {}
    if request.model_spec.signature_name:
        body["signature_name"] = request.model_spec.signature_name
    tensors = {name: tensor_json(t) for name, t in request.inputs.items()}
    if columnar:
        body["inputs"] = tensors if named or len(tensors) > 1 else next(iter(tensors.values()))
    else:
        sizes = {len(v) for v in tensors.values()}
        check(len(sizes) == 1, "row format needs one batch size for every input")
        n = sizes.pop()
        if named or len(tensors) > 1:
            body["instances"] = [{name: v[i] for name, v in tensors.items()} for i in range(n)]
        else:
            body["instances"] = next(iter(tensors.values()))
    return model_path(request.model_spec, ":predict"), body


def example_json(example):
    """A tf.train.Example's features as TF Serving's JSON: one value or a list of them per feature."""
    out = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        values = list(getattr(feature, kind).value)
        if kind == "bytes_list":
            values = [v.decode() if v.isascii() and v.decode().isprintable() else b64(v) for v in values]
        out[name] = values[0] if len(values) == 1 else values
    return out


def classification_request_json(request):
    body = {}
    if request.model_spec.signature_name:
        body["signature_name"] = request.model_spec.signature_name
    kind = request.input.WhichOneof("kind")
    if kind == "example_list_with_context":
        body["context"] = example_json(request.input.example_list_with_context.context)
        examples = request.input.example_list_with_context.examples
    else:
        examples = request.input.example_list.examples
    body["examples"] = [example_json(e) for e in examples]
    return model_path(request.model_spec, ":classify"), body


# --- REST -> protobuf, as TF Serving's handler prints its response protobufs ---------------------

def check_shape(name, array, info):
    dims = [d.size for d in info.tensor_shape.dim]
    check(array.ndim == len(dims) and all(d in (-1, s) for d, s in zip(dims, array.shape)),
          f"output {name}: shape {list(array.shape)}, the signature says {dims}")


def predict_response(doc, request, columnar, outputs_info, rows):
    """The REST answer as a PredictResponse: each output (named by the signature; the name is left
    out when there is only one) as tf.make_tensor_proto in the signature's dtype and shape."""
    key = "outputs" if columnar else "predictions"
    check(isinstance(doc, dict) and set(doc) == {key}, f"predict answer keys {list(doc)}, expected ['{key}']")
    names = sorted(outputs_info)
    value = doc[key]
    if columnar:
        if len(names) == 1:
            check(isinstance(value, list), f"one output: 'outputs' is the tensor itself, got {str(value)[:80]}")
            columns = {names[0]: value}
        else:
            check(isinstance(value, dict) and sorted(value) == names, f"'outputs' keys {list(value)[:5]}, expected {names}")
            columns = value
    else:
        check(isinstance(value, list) and len(value) == rows, f"'predictions': {len(value)} rows for {rows}")
        if len(names) == 1:
            check(all(isinstance(r, list) for r in value), "one output: each prediction is the row itself")
            columns = {names[0]: value}
        else:
            check(all(isinstance(r, dict) and sorted(r) == names for r in value),
                  f"each prediction must be an object of {names}: {str(value[0])[:80]}")
            columns = {name: [r[name] for r in value] for name in names}
    response = predict_pb2.PredictResponse()
    response.model_spec.CopyFrom(request.model_spec)
    for name, column in columns.items():
        info = outputs_info[name]
        check(info.dtype == tf.float32.as_datatype_enum, f"output {name}: dtype {info.dtype}")
        cols = len(column[0]) if column and isinstance(column[0], list) else -1
        check(is_float_matrix(column, rows, cols), f"output {name}: not [N, K] numbers: {str(column)[:80]}")
        array = np.array(column, dtype=tf.dtypes.as_dtype(info.dtype).as_numpy_dtype)
        check_shape(name, array, info)
        response.outputs[name].CopyFrom(tf.make_tensor_proto(array, dtype=info.dtype))
    return response


def classification_response(doc, request, examples):
    check(isinstance(doc, dict) and set(doc) == {"result"}, f"classify answer keys {list(doc)}, expected ['result']")
    result = doc["result"]
    check(isinstance(result, list) and len(result) == examples, f"'result': {str(result)[:80]} for {examples} examples")
    response = classification_pb2.ClassificationResponse()
    response.model_spec.CopyFrom(request.model_spec)
    for classes in result:
        check(isinstance(classes, list) and all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and
                                                is_number(c[1]) for c in classes),
              f"each result is a list of [label, score]: {str(classes)[:120]}")
        out = response.result.classifications.add()
        for label, score in classes:
            out.classes.add(label=label, score=score)
    return response


def status_response(server, request):
    doc = server.ok("GET", model_path(request.model_spec, ""))
    response = json_format.ParseDict(doc, get_model_status_pb2.GetModelStatusResponse())  # strict: no unknown field
    proto_json_matches(doc, json_format.MessageToDict(response, always_print_fields_with_no_presence=True),
                       "GetModelStatusResponse")
    return response


def metadata_response(server, request):
    """TF Serving's REST metadata answer: {"model_spec": ModelSpec, "metadata": {"signature_def":
    SignatureDefMap}}, each printed with proto field names (http_rest_api_util.cc); the
    GetModelMetadataResponse holds the SignatureDefMap packed in an Any."""
    check(list(request.metadata_field) == ["signature_def"], "TF Serving's REST API answers signature_def only")
    doc = server.ok("GET", model_path(request.model_spec, "/metadata"))
    check(isinstance(doc, dict) and set(doc) == {"model_spec", "metadata"}, f"metadata keys {list(doc)}")
    check("signature_def" in doc["metadata"], f"metadata without signature_def: {list(doc['metadata'])}")
    # Lathe's own "lathe" entry (labels, preprocessing) sits beside it; a TF Serving client reads
    # signature_def only.
    check(set(doc["metadata"]) <= {"signature_def", "lathe"}, f"metadata entries {list(doc['metadata'])}")
    response = get_model_metadata_pb2.GetModelMetadataResponse()
    json_format.ParseDict(doc["model_spec"], response.model_spec)
    signatures = json_format.ParseDict(doc["metadata"]["signature_def"], get_model_metadata_pb2.SignatureDefMap())
    proto_json_matches(doc["model_spec"], printed(response.model_spec), "model_spec")
    proto_json_matches(doc["metadata"]["signature_def"], printed(signatures), "metadata.signature_def")
    response.metadata["signature_def"].Pack(signatures)
    return response


def signature_map(response):
    signatures = get_model_metadata_pb2.SignatureDefMap()
    check(response.metadata["signature_def"].Unpack(signatures), "the Any does not hold a SignatureDefMap")
    return signatures.signature_def


# --- the checks -----------------------------------------------------------------------------

def load_reference(path):
    out = {}
    for item in json.load(open(path)):
        check("predictions" in item, f"predict failed on {item}")
        probs = {p["class"]: p["probability"] for p in item["predictions"]}
        out[os.path.basename(item["path"])] = [probs[label] for label in LABELS]
    return out


def check_classes(response, want_probs, what):
    for i, (classes, want) in enumerate(zip(response.result.classifications, want_probs)):
        labels = [c.label for c in classes.classes]
        scores = [c.score for c in classes.classes]
        check(sorted(labels) == sorted(LABELS) and scores == sorted(scores, reverse=True),
              f"{what} {i}: every class, highest score first: {labels} {scores}")
        got = [scores[labels.index(label)] for label in LABELS]
        check(close(got, want), f"{what} {i}: scores {got}, expected {want}")


def documented_requests(s, photos, images, ref, models):
    """(a) The requests of TF Serving's REST API page, as JSON."""
    states = {"UNKNOWN", "START", "LOADING", "AVAILABLE", "UNLOADING", "END"}
    for name in models:
        for path in (f"/v1/models/{name}", f"/v1/models/{name}/versions/1"):
            doc = s.ok("GET", path)
            check(isinstance(doc, dict) and list(doc) == ["model_version_status"], f"{path}: {doc}")
            for v in doc["model_version_status"]:
                check(set(v) == {"version", "state", "status"} and isinstance(v["version"], str) and
                      v["version"].isdigit() and v["state"] in states and
                      v["status"] == {"error_code": "OK", "error_message": ""}, f"{path}: {v}")
            check([v["version"] for v in doc["model_version_status"]] == ["1"] and
                  doc["model_version_status"][0]["state"] == "AVAILABLE", f"{path}: {doc}")
        doc = s.ok("GET", f"/v1/models/{name}/metadata")
        check(doc["model_spec"] == {"name": name, "signature_name": "", "version": "1"}, f"model_spec: {doc['model_spec']}")
        sigs = doc["metadata"]["signature_def"]["signature_def"]
        check(sigs["serving_default"]["method_name"] == "tensorflow/serving/predict", f"{name}: {sigs.keys()}")
        for sig in sigs.values():
            for info in list(sig["inputs"].values()) + list(sig["outputs"].values()):
                check(set(info) == {"dtype", "tensor_shape", "name"} and info["dtype"].startswith("DT_") and
                      all(set(d) == {"size", "name"} and isinstance(d["size"], str) for d in info["tensor_shape"]["dim"]),
                      f"{name}: TensorInfo {info}")

    m_outputs, px_outputs = ["logits", "probabilities"], ["probabilities"]
    all_b64 = [b64(images[p]) for p in photos]
    n = len(photos)
    for name, outputs in (("m", m_outputs), ("px", px_outputs)):
        # Row format with the signature named: several outputs give a list of objects, one output
        # a list of its rows.
        doc = s.ok("POST", f"/v1/models/{name}:predict", {"signature_name": "serving_default", "instances": all_b64})
        check(list(doc) == ["predictions"] and len(doc["predictions"]) == n, f"{name} row: {str(doc)[:200]}")
        for p, row in zip(photos, doc["predictions"]):
            if len(outputs) > 1:
                check(isinstance(row, dict) and sorted(row) == outputs and all(is_float_matrix([row[o]], 1, 3) for o in outputs),
                      f"{name} row {p}: {row}")
                row = row["probabilities"]
            check(is_float_matrix([row], 1, 3) and close(row, ref[p]), f"{name} row {p}: {row} vs {ref[p]}")
        # Columnar, the one input given plainly and by name: "outputs" is the tensor itself for one
        # output, an object of tensors for several.
        for inputs in (all_b64, {"input": all_b64}):
            doc = s.ok("POST", f"/v1/models/{name}/versions/1:predict", {"inputs": inputs})
            check(list(doc) == ["outputs"], f"{name} columnar: {str(doc)[:200]}")
            out = doc["outputs"]
            if len(outputs) > 1:
                check(isinstance(out, dict) and sorted(out) == outputs and all(is_float_matrix(out[o], n, 3) for o in outputs),
                      f"{name} columnar: {str(out)[:200]}")
                out = out["probabilities"]
            check(is_float_matrix(out, n, 3), f"{name} columnar: {str(out)[:200]}")
            for p, row in zip(photos, out):
                check(close(row, ref[p]), f"{name} columnar {p}: {row} vs {ref[p]}")
        # Row format as a list of objects keyed by the input's name.
        doc = s.ok("POST", f"/v1/models/{name}:predict", {"instances": [{"input": v} for v in all_b64[:2]]})
        check(len(doc["predictions"]) == 2, f"{name} named rows: {doc}")
        # :classify, the page's example (an image and a caption feature per example), then with the
        # caption as shared context: {"result": [[[label, score], ...], ...]}.
        examples = [{"image": all_b64[0], "caption": "seaside"}, {"image": all_b64[1], "caption": "mountains"}]
        for body in ({"signature_name": "classify", "examples": examples},
                     {"context": {"caption": "seaside"}, "examples": [{"image": e["image"]} for e in examples]}):
            doc = s.ok("POST", f"/v1/models/{name}:classify", body)
            check(list(doc) == ["result"] and len(doc["result"]) == 2, f"{name} classify: {doc}")
            for p, classes in zip(photos[:2], doc["result"]):
                check(all(isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and is_number(c[1]) for c in classes),
                      f"{name} classify: {classes}")
                check([c[0] for c in classes] == sorted(LABELS, key=lambda lab: -ref[p][LABELS.index(lab)]) and
                      all(abs(score - ref[p][LABELS.index(lab)]) <= TOL for lab, score in classes),
                      f"{name} classify {p}: {classes} vs {ref[p]}")
    # The page's error example, word for word.
    status, doc = s.call("POST", "/v1/models/half:predict", {"instances": [1.0, 5.0]})
    check(status == 404 and doc == {"error": "Servable not found for request: Latest(half)"}, f"404: {status} {doc}")


def api_requests(s, photos, images, ref, torch_refs):
    """(b) tensorflow-serving-api's protobufs, through TF Serving's JSON mapping."""
    status_request = get_model_status_pb2.GetModelStatusRequest()
    status_request.model_spec.name = "m"
    for version in (None, 1):
        if version:
            status_request.model_spec.version.value = version
        response = status_response(s, status_request)
        check(len(response.model_version_status) == 1, f"status: {response}")
        v = response.model_version_status[0]
        check(v.version == 1 and v.state == get_model_status_pb2.ModelVersionStatus.AVAILABLE and
              v.status.error_code == error_codes_pb2.OK and v.status.error_message == "", f"status: {v}")

    signatures = {}
    for name in ("m", "px"):
        request = get_model_metadata_pb2.GetModelMetadataRequest(metadata_field=["signature_def"])
        request.model_spec.name = name
        response = metadata_response(s, request)
        check(response.model_spec.name == name and response.model_spec.version.value == 1, f"{name}: {response.model_spec}")
        sigs = signature_map(response)
        predict = sigs[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        check(predict.method_name == tf.saved_model.PREDICT_METHOD_NAME, f"{name}: {predict.method_name}")
        classify = [k for k, sig in sigs.items() if sig.method_name == tf.saved_model.CLASSIFY_METHOD_NAME]
        check(len(classify) == 1, f"{name}: classify signatures {classify}")
        c = sigs[classify[0]]
        check(list(c.inputs) == [tf.saved_model.CLASSIFY_INPUTS] and
              c.inputs[tf.saved_model.CLASSIFY_INPUTS].dtype == tf.string.as_datatype_enum and
              sorted(c.outputs) == sorted([tf.saved_model.CLASSIFY_OUTPUT_CLASSES, tf.saved_model.CLASSIFY_OUTPUT_SCORES]) and
              c.outputs[tf.saved_model.CLASSIFY_OUTPUT_SCORES].dtype == tf.float32.as_datatype_enum,
              f"{name}: the classify signature {c}")
        signatures[name] = (predict, classify[0])
    m_sig, px_sig = signatures["m"][0], signatures["px"][0]
    check(m_sig.inputs["input"].dtype == tf.float32.as_datatype_enum and
          [d.size for d in m_sig.inputs["input"].tensor_shape.dim] == [-1, 3, 32, 32] and
          sorted(m_sig.outputs) == ["logits", "probabilities"], f"m's signature: {m_sig}")
    check(px_sig.inputs["input"].dtype == tf.uint8.as_datatype_enum and
          [d.size for d in px_sig.inputs["input"].tensor_shape.dim] == [-1, 32, 32, 3] and
          list(px_sig.outputs) == ["probabilities"], f"px's signature: {px_sig}")

    def predict(request, columnar, named, sig, rows):
        path, body = predict_request_json(request, columnar, named)
        return predict_response(s.ok("POST", path, body), request, columnar, sig.outputs, rows)

    def outputs(response, name):
        return tf.make_ndarray(response.outputs[name])

    # Tensors in the signature's dtype: float32 NCHW for m, uint8 NHWC for px; the logits and
    # probabilities TorchScript gives for them.
    (x, m_logits, m_probs), (pixels, px_probs) = torch_refs
    for columnar in (False, True):
        for named in (False, True):
            request = predict_pb2.PredictRequest()
            request.model_spec.name = "m"
            request.model_spec.signature_name = "serving_default"
            if named:
                request.model_spec.version.value = 1
            request.inputs["input"].CopyFrom(tf.make_tensor_proto(x, dtype=m_sig.inputs["input"].dtype))
            response = predict(request, columnar, named, m_sig, len(x))
            check(close(outputs(response, "logits"), m_logits) and close(outputs(response, "probabilities"), m_probs),
                  f"m float32 tensors (columnar {columnar}): {outputs(response, 'logits')} vs {m_logits}")
            request = predict_pb2.PredictRequest()
            request.model_spec.name = "px"
            request.inputs["input"].CopyFrom(tf.make_tensor_proto(pixels, dtype=px_sig.inputs["input"].dtype))
            response = predict(request, columnar, named, px_sig, len(pixels))
            check(response.outputs["probabilities"].dtype == tf.float32.as_datatype_enum and
                  close(outputs(response, "probabilities"), px_probs),
                  f"px uint8 tensors (columnar {columnar}): {outputs(response, 'probabilities')} vs {px_probs}")

    # Encoded images as a DT_STRING tensor under the name image clients give it ("image_bytes":
    # its values are {"b64": ...} in JSON): lathe-cli predict's probabilities.
    want = np.array([ref[p] for p in photos])
    for name, sig in (("m", m_sig), ("px", px_sig)):
        for columnar in (False, True):
            request = predict_pb2.PredictRequest()
            request.model_spec.name = name
            request.inputs["image_bytes"].CopyFrom(tf.make_tensor_proto([images[p] for p in photos], dtype=tf.string))
            check(request.inputs["image_bytes"].dtype == tf.string.as_datatype_enum, "DT_STRING")
            response = predict(request, columnar, True, sig, len(photos))
            check(close(outputs(response, "probabilities"), want),
                  f"{name} image_bytes (columnar {columnar}): {outputs(response, 'probabilities')} vs {want}")

    # ClassificationRequest: tf.train.Example with the image as bytes (a list of examples, and a
    # list with context), and with the instance as a flat float_list (m) or int64_list (px).
    def example(**features):
        f = {}
        for k, v in features.items():
            if isinstance(v, bytes):
                f[k] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[v]))
            elif v.dtype == np.uint8:
                f[k] = tf.train.Feature(int64_list=tf.train.Int64List(value=v.reshape(-1).tolist()))
            else:
                f[k] = tf.train.Feature(float_list=tf.train.FloatList(value=v.reshape(-1).tolist()))
        return tf.train.Example(features=tf.train.Features(feature=f))

    for name in ("m", "px"):
        classify_key = signatures[name][1]
        for with_context in (False, True):
            request = classification_pb2.ClassificationRequest()
            request.model_spec.name = name
            request.model_spec.signature_name = classify_key
            if with_context:
                lst = request.input.example_list_with_context
                lst.context.CopyFrom(example(caption=b"seaside"))
            else:
                lst = request.input.example_list
            lst.examples.extend([example(image=images[p]) for p in photos[:3]])
            path, body = classification_request_json(request)
            response = classification_response(s.ok("POST", path, body), request, 3)
            check_classes(response, [ref[p] for p in photos[:3]], f"{name} ClassificationRequest (context {with_context})")
        request = classification_pb2.ClassificationRequest()
        request.model_spec.name = name
        tensors, probs = (x, m_probs) if name == "m" else (pixels, px_probs)
        request.input.example_list.examples.extend([example(image=t) for t in tensors])
        path, body = classification_request_json(request)
        response = classification_response(s.ok("POST", path, body), request, len(tensors))
        check_classes(response, probs.tolist(), f"{name} ClassificationRequest with a flat feature list")


def torch_references():
    """Random tensors in each signature's dtype and what TorchScript in PyTorch answers for them."""
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x = torch.randn(2, 3, 32, 32)
    pixels = torch.randint(0, 256, (2, 32, 32, 3), dtype=torch.uint8)
    with torch.no_grad():
        logits = torch.jit.load(f"{TMP}/e1/model.pt")(x)
        px_probs = torch.jit.load(f"{TMP}/e3/model.pt")(pixels)
    return ((x.numpy(), logits.numpy(), torch.softmax(logits, 1).numpy()), (pixels.numpy(), px_probs.numpy()))


def main():
    global server
    photos = sorted(os.listdir(f"{TMP}/photos"))
    images = {p: open(f"{TMP}/photos/{p}", "rb").read() for p in photos}
    ref = load_reference(f"{TMP}/predict1.json")
    torch_refs = torch_references()
    server = Server(["--model", f"m={TMP}/e1", "--model", f"px={TMP}/e3", "--device", "cpu", "--torch-threads", "1",
                     "--max-batch", "8", "--batch-timeout-ms", "5", "--poll-seconds", "0"])
    documented_requests(server, photos, images, ref, ["m", "px"])
    api_requests(server, photos, images, ref, torch_refs)
    server.stop()
    from importlib.metadata import version
    print(f"cli_serve: tfserving_api_client: {checks} checks passed (TF Serving's documented requests; "
          f"tensorflow-serving-api {version('tensorflow-serving-api')} protobufs with TensorFlow {tf.__version__})")


main()
