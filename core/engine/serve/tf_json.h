#pragma once

// Engine-internal (LibTorch): TensorFlow Serving's REST request and response bodies
// (https://www.tensorflow.org/tfx/serving/api_rest) for a served Lathe model. Requests are
// checked field by field; every failure is a ServeError with the HTTP status TF Serving gives
// (INVALID_ARGUMENT: 400) and a message naming the field.

#include "engine/base/parse_limits.h"
#include "engine/serve/served_model.h"
#include "engine/serve/serve_error.h"

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lathe::engine::serve {

struct DecodeLimits
{
    // engine/base/parse_limits.h: serve.instances and serve.image_pixels (declared by an image's
    // header, refused before decoding) unless the command line says otherwise.
    int maxInstances = int(parse_limits::kServeInstances.value);
    std::int64_t maxImagePixels = std::int64_t(parse_limits::kServeImagePixels.value);
};

// A request body as JSON: at most maxDepth (serve.json_depth) nested arrays/objects (checked
// before parsing, so a deeply nested body costs no recursion). ServeError 400 with the parser's
// reason.
nlohmann::json parseRequestBody(std::string_view body, int maxDepth = int(parse_limits::kServeJsonDepth.value));

// Base64 (standard or URL-safe alphabet, padding optional, CR/LF ignored). ServeError 400
// naming what on bad characters or length.
std::vector<std::uint8_t> decodeBase64(std::string_view text, const std::string &what);

// One decoded request: the batch [N, ...model.instanceShape] in the model's input dtype.
struct DecodedBatch
{
    torch::Tensor input;
    bool columnar = false; // "inputs" (answered with "outputs") rather than "instances"
};

// :predict's {"instances": [...]} (row format) or {"inputs": ...} (columnar format). An instance
// is {"b64": "<JPEG or PNG>"} (decoded and preprocessed by the model's recipe), a nested array
// of the instance shape (float32 numbers, or uint8 integers for pixel-input exports), or an
// object naming the input ("input"; "image", "image_bytes" and "images" are accepted for it).
DecodedBatch decodePredict(const ModelVersion &model, const nlohmann::json &body, const DecodeLimits &limits);

// :classify's {"examples": [{feature: value}], "context": {...}}: the image feature is "input",
// "image" or "image_bytes" (or the only feature): {"b64": ...}, [{"b64": ...}], or the instance as
// a nested or flat number list.
torch::Tensor decodeClassify(const ModelVersion &model, const nlohmann::json &body, const DecodeLimits &limits);

// The signature's output names: ["logits", "probabilities"], or ["probabilities"] when the
// export's output is already the probabilities.
std::vector<std::string> outputNames(const ModelVersion &model);

// :predict's answer for the model's outputs [N, K] (float32, CPU): {"predictions": [...]} or,
// columnar, {"outputs": ...}.
nlohmann::json encodePredict(const ModelVersion &model, const torch::Tensor &outputs, bool columnar);

// :classify's answer: {"result": [[[label, score], ...], ...]}, every class, highest score first.
nlohmann::json encodeClassify(const ModelVersion &model, const torch::Tensor &outputs);

// GET /v1/models/NAME/metadata's answer: model_spec and the signature_def (inputs, outputs,
// dtypes, shapes), and "lathe": the labels and preprocessing.
nlohmann::json encodeMetadata(const ModelVersion &model);

} // namespace lathe::engine::serve
