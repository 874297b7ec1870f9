// TensorFlow Serving's REST bodies for Lathe models: requests into input batches, outputs into
// answers. Images go through the export's own evaluation transform (SampleTransform), so the
// server sees the pixels `lathe-cli predict` and the export's verification saw.

#include "engine/serve/tf_json.h"

#include "engine/dataset/image_header.h"

#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>

namespace lathe::engine::serve {
namespace {

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::string typeName(const nlohmann::json &v)
{
    if (v.is_number_float())
        return "a float";
    if (v.is_number())
        return "an integer";
    if (v.is_array())
        return "an array";
    if (v.is_object())
        return "an object";
    if (v.is_string())
        return "a string";
    if (v.is_boolean())
        return "a boolean";
    return "null";
}

bool isB64(const nlohmann::json &v)
{
    return v.is_object() && v.size() == 1 && v.contains("b64");
}

// The input's own name and the names image clients commonly give it.
bool isInputName(const std::string &key)
{
    return key == "input" || key == "image" || key == "image_bytes" || key == "images";
}

// Writes one image, decoded and preprocessed, at out.
void decodeImage(const ModelVersion &model, const nlohmann::json &b64, const std::string &path,
                 const DecodeLimits &limits, void *out)
{
    const nlohmann::json &text = b64.at("b64");
    if (!text.is_string())
        throw invalidArgument(path + ".b64: expected a base64 string (got " + typeName(text) + ")");
    const std::vector<std::uint8_t> bytes = decodeBase64(text.get_ref<const std::string &>(), path + ".b64");
    ImageHeader header;
    try {
        header = readImageHeader(bytes.data(), bytes.size());
    } catch (const EngineError &e) {
        throw invalidArgument(path + ": not a JPEG or PNG image (" + e.what() + ")");
    }
    if (header.format != ImageFormat::Jpeg && header.format != ImageFormat::Png)
        throw invalidArgument(path + ": only JPEG and PNG images are accepted (got " + formatName(header.format) + ")");
    if (header.width <= 0 || header.height <= 0 || header.pixels() > limits.maxImagePixels)
        throw invalidArgument(path + ": the image declares " + std::to_string(header.width) + "x" +
                              std::to_string(header.height) + " = " + std::to_string(header.pixels()) + " pixels, " +
                              overLimit(parse_limits::kServeImagePixels, std::uint64_t(limits.maxImagePixels)) +
                              " (--max-image-mpx); refused before decoding");
    thread_local std::mt19937_64 rng(0); // the evaluation transform draws nothing
    try {
        model.transform->apply(bytes.data(), bytes.size(), rng, out);
    } catch (const std::exception &e) {
        throw invalidArgument(path + ": the image cannot be decoded (" + e.what() + ")");
    }
}

// A nested array of exactly shape, elements written to dst in row-major order.
template <typename T>
void fillNested(const nlohmann::json &v, const std::vector<std::int64_t> &shape, std::size_t dim, T *&dst,
                const std::string &path, bool pixels)
{
    if (!v.is_array() || std::int64_t(v.size()) != shape[dim])
        throw invalidArgument(path + ": expected an array of " + std::to_string(shape[dim]) + " at dimension " +
                              std::to_string(dim) + " of the instance shape " + shapeText(shape) + " (got " +
                              (v.is_array() ? "an array of " + std::to_string(v.size()) : typeName(v)) + ")");
    if (dim + 1 < shape.size()) {
        for (const nlohmann::json &e : v)
            fillNested(e, shape, dim + 1, dst, path, pixels);
        return;
    }
    for (const nlohmann::json &e : v) {
        if (pixels) {
            if (!e.is_number_integer() || e.get<std::int64_t>() < 0 || e.get<std::int64_t>() > 255)
                throw invalidArgument(path + ": expected uint8 pixel values, integers in [0, 255] (got " +
                                      e.dump().substr(0, 40) + ")");
            *dst++ = T(e.get<std::int64_t>());
        } else {
            if (!e.is_number())
                throw invalidArgument(path + ": expected float32 numbers (DT_FLOAT) (got " + typeName(e) + ")");
            const double x = e.get<double>();
            if (!std::isfinite(x) || std::fabs(x) > 3.4e38)
                throw invalidArgument(path + ": non-finite or out-of-range float32 value " + e.dump().substr(0, 40));
            *dst++ = T(x);
        }
    }
}

// One instance (b64 image or tensor) written at row `row` of batch.
void decodeInstance(const ModelVersion &model, const nlohmann::json &v, const std::string &path,
                    const DecodeLimits &limits, torch::Tensor &batch, std::int64_t row, bool allowFlat)
{
    if (isB64(v)) {
        decodeImage(model, v, path, limits, batch[row].data_ptr());
        return;
    }
    if (allowFlat && v.is_array() && v.size() == 1 && isB64(v[0])) {
        decodeImage(model, v[0], path + "[0]", limits, batch[row].data_ptr());
        return;
    }
    if (!v.is_array())
        throw invalidArgument(path + ": expected {\"b64\": \"<JPEG or PNG bytes>\"} or a " +
                              std::string(model.pixelInput ? "uint8" : "float32") + " array of shape " +
                              shapeText(model.instanceShape) + " (got " + typeName(v) + ")");
    std::vector<std::int64_t> shape = model.instanceShape;
    if (allowFlat && !v.empty() && !v[0].is_array()) // tf.Example feature lists are flat
        shape = {std::accumulate(shape.begin(), shape.end(), std::int64_t(1), std::multiplies<>())};
    if (model.pixelInput) {
        std::uint8_t *dst = batch[row].data_ptr<std::uint8_t>();
        fillNested(v, shape, 0, dst, path, true);
    } else {
        float *dst = batch[row].data_ptr<float>();
        fillNested(v, shape, 0, dst, path, false);
    }
}

torch::Tensor emptyBatch(const ModelVersion &model, std::int64_t rows)
{
    std::vector<std::int64_t> shape{rows};
    shape.insert(shape.end(), model.instanceShape.begin(), model.instanceShape.end());
    return torch::empty(shape, model.pixelInput ? torch::kByte : torch::kFloat32);
}

void checkCount(std::size_t n, const std::string &path, const DecodeLimits &limits)
{
    if (n == 0)
        throw invalidArgument(path + ": no instances (an empty batch)");
    if (n > std::size_t(limits.maxInstances))
        throw invalidArgument(path + ": " + std::to_string(n) + " instances, " +
                              overLimit(parse_limits::kServeInstances, std::uint64_t(limits.maxInstances)) +
                              " per request (--max-instances)");
}

void checkSignature(const nlohmann::json &body, const std::vector<std::string> &accepted)
{
    const auto it = body.find("signature_name");
    if (it == body.end())
        return;
    if (!it->is_string())
        throw invalidArgument("signature_name: expected a string (got " + typeName(*it) + ")");
    const std::string &s = it->get_ref<const std::string &>();
    if (!s.empty() && std::find(accepted.begin(), accepted.end(), s) == accepted.end())
        throw invalidArgument("Serving signature name: \"" + s + "\" not found in signature def");
}

nlohmann::json rowOf(const torch::Tensor &t, std::int64_t row)
{
    const float *p = t[row].data_ptr<float>();
    return std::vector<float>(p, p + t.size(1));
}

nlohmann::json tensorInfo(const std::string &dtype, const std::vector<std::int64_t> &dims, const std::string &name)
{
    nlohmann::json dim = nlohmann::json::array();
    for (std::int64_t d : dims)
        dim.push_back({{"size", std::to_string(d)}, {"name", ""}});
    return {{"dtype", dtype}, {"tensor_shape", {{"dim", dim}, {"unknown_rank", false}}}, {"name", name + ":0"}};
}

} // namespace

nlohmann::json parseRequestBody(std::string_view body, int maxDepth)
{
    int depth = 0;
    bool inString = false, escaped = false;
    for (char ch : body) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                inString = false;
            continue;
        }
        if (ch == '"')
            inString = true;
        else if (ch == '[' || ch == '{') {
            if (++depth > maxDepth)
                throw invalidArgument("JSON Parse error: nested deeper than " + std::to_string(maxDepth) + " levels, " +
                                      overLimit(parse_limits::kServeJsonDepth, std::uint64_t(maxDepth)));
        } else if (ch == ']' || ch == '}')
            --depth;
    }
    try {
        nlohmann::json doc = nlohmann::json::parse(body.begin(), body.end());
        if (!doc.is_object())
            throw invalidArgument("JSON Parse error: the request body must be a JSON object (got " + typeName(doc) + ")");
        return doc;
    } catch (const nlohmann::json::exception &e) {
        std::string what = e.what();
        const std::size_t bracket = what.find("] ");
        throw invalidArgument("JSON Parse error: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)));
    }
}

std::vector<std::uint8_t> decodeBase64(std::string_view text, const std::string &what)
{
    static const auto table = [] {
        std::array<signed char, 256> t{};
        t.fill(-1);
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < 64; ++i)
            t[std::size_t(std::uint8_t(alphabet[i]))] = static_cast<signed char>(i);
        t[std::size_t('-')] = 62; // URL-safe alphabet
        t[std::size_t('_')] = 63;
        return t;
    }();
    std::vector<std::uint8_t> out;
    out.reserve(text.size() / 4 * 3 + 3);
    std::uint32_t acc = 0;
    int bits = 0, symbols = 0, padding = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char ch = static_cast<unsigned char>(text[i]);
        if (ch == '\r' || ch == '\n')
            continue;
        if (ch == '=') {
            ++padding;
            continue;
        }
        const int v = table[ch];
        if (v < 0 || padding > 0)
            throw invalidArgument(what + ": not valid base64 (" +
                                  (padding > 0 ? std::string("data after the '=' padding")
                                               : "character " + nlohmann::json(std::string(1, char(ch))).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)) +
                                  " at offset " + std::to_string(i) + ")");
        ++symbols;
        acc = (acc << 6) | std::uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(std::uint8_t((acc >> bits) & 0xFF));
        }
    }
    if (symbols % 4 == 1 || padding > 2 || (padding > 0 && (symbols + padding) % 4 != 0))
        throw invalidArgument(what + ": not valid base64 (truncated: " + std::to_string(symbols) + " symbols)");
    if (out.empty())
        throw invalidArgument(what + ": empty");
    return out;
}

DecodedBatch decodePredict(const ModelVersion &model, const nlohmann::json &body, const DecodeLimits &limits)
{
    checkSignature(body, {"serving_default", "predict"});
    const bool hasInstances = body.contains("instances"), hasInputs = body.contains("inputs");
    if (hasInstances == hasInputs)
        throw invalidArgument(hasInstances ? "Not both 'instances' and 'inputs' may be given"
                                           : "Missing 'inputs' or 'instances' key");
    DecodedBatch out;
    out.columnar = hasInputs;
    if (hasInstances) {
        const nlohmann::json &list = body["instances"];
        if (!list.is_array())
            throw invalidArgument("instances: expected a list of instances (got " + typeName(list) + ")");
        checkCount(list.size(), "instances", limits);
        out.input = emptyBatch(model, std::int64_t(list.size()));
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string path = "instances[" + std::to_string(i) + "]";
            const nlohmann::json &inst = list[i];
            if (inst.is_object() && !isB64(inst)) {
                if (inst.size() != 1 || !isInputName(inst.begin().key()))
                    throw invalidArgument(path + ": the model has one input, \"input\" (got an object with keys " +
                                          inst.dump().substr(0, 60) + ")");
                decodeInstance(model, inst.begin().value(), path + "." + inst.begin().key(), limits, out.input,
                               std::int64_t(i), false);
            } else {
                decodeInstance(model, inst, path, limits, out.input, std::int64_t(i), false);
            }
        }
        return out;
    }
    const nlohmann::json *column = &body["inputs"];
    std::string path = "inputs";
    if (column->is_object() && !isB64(*column)) {
        if (column->size() != 1 || !isInputName(column->begin().key()))
            throw invalidArgument("inputs: the model has one input, \"input\" (got an object with keys " +
                                  column->dump().substr(0, 60) + ")");
        path += "." + column->begin().key();
        column = &column->begin().value();
    }
    if (!column->is_array())
        throw invalidArgument(path + ": expected a batch (a list with one entry per instance) (got " + typeName(*column) +
                              ")");
    checkCount(column->size(), path, limits);
    out.input = emptyBatch(model, std::int64_t(column->size()));
    for (std::size_t i = 0; i < column->size(); ++i)
        decodeInstance(model, (*column)[i], path + "[" + std::to_string(i) + "]", limits, out.input, std::int64_t(i),
                       false);
    return out;
}

torch::Tensor decodeClassify(const ModelVersion &model, const nlohmann::json &body, const DecodeLimits &limits)
{
    checkSignature(body, {"serving_default", "classify"});
    const auto examples = body.find("examples");
    if (examples == body.end() || !examples->is_array())
        throw invalidArgument("examples: expected a list of examples");
    checkCount(examples->size(), "examples", limits);
    static const nlohmann::json noContext = nlohmann::json::object();
    const nlohmann::json &context = body.contains("context") ? body.at("context") : noContext;
    if (!context.is_object())
        throw invalidArgument("context: expected an object of features");
    torch::Tensor batch = emptyBatch(model, std::int64_t(examples->size()));
    for (std::size_t i = 0; i < examples->size(); ++i) {
        const std::string path = "examples[" + std::to_string(i) + "]";
        const nlohmann::json &example = (*examples)[i];
        if (!example.is_object())
            throw invalidArgument(path + ": expected an object of features (got " + typeName(example) + ")");
        // The example's features over the context's, looked up in place (no copy of the images).
        const auto feature = [&](const char *key) -> const nlohmann::json * {
            if (const auto it = example.find(key); it != example.end())
                return &*it;
            const auto it = context.find(key);
            return it != context.end() ? &*it : nullptr;
        };
        const nlohmann::json *value = nullptr;
        std::string name;
        for (const char *key : {"input", "image", "image_bytes", "images"})
            if ((value = feature(key))) {
                name = key;
                break;
            }
        std::size_t features = example.size();
        for (auto it = context.begin(); it != context.end(); ++it)
            features += !example.contains(it.key());
        if (!value && features == 1) {
            const nlohmann::json &only = example.empty() ? context : example;
            value = &only.begin().value();
            name = only.begin().key();
        }
        if (!value)
            throw invalidArgument(path + ": no image feature (name it \"input\", \"image\" or \"image_bytes\")");
        decodeInstance(model, *value, path + "." + name, limits, batch, std::int64_t(i), true);
    }
    return batch;
}

std::vector<std::string> outputNames(const ModelVersion &model)
{
    if (model.outputsProbabilities)
        return {"probabilities"};
    return {"logits", "probabilities"};
}

nlohmann::json encodePredict(const ModelVersion &model, const torch::Tensor &outputs, bool columnar)
{
    const torch::Tensor probabilities =
        model.outputsProbabilities ? outputs : torch::softmax(outputs, 1).contiguous();
    const std::int64_t n = outputs.size(0);
    if (columnar) {
        nlohmann::json logits = nlohmann::json::array(), probs = nlohmann::json::array();
        for (std::int64_t i = 0; i < n; ++i) {
            if (!model.outputsProbabilities)
                logits.push_back(rowOf(outputs, i));
            probs.push_back(rowOf(probabilities, i));
        }
        if (model.outputsProbabilities)
            return {{"outputs", probs}};
        return {{"outputs", {{"logits", logits}, {"probabilities", probs}}}};
    }
    nlohmann::json predictions = nlohmann::json::array();
    for (std::int64_t i = 0; i < n; ++i) {
        if (model.outputsProbabilities)
            predictions.push_back(rowOf(probabilities, i));
        else
            predictions.push_back({{"logits", rowOf(outputs, i)}, {"probabilities", rowOf(probabilities, i)}});
    }
    return {{"predictions", predictions}};
}

nlohmann::json encodeClassify(const ModelVersion &model, const torch::Tensor &outputs)
{
    const torch::Tensor probabilities =
        model.outputsProbabilities ? outputs : torch::softmax(outputs, 1).contiguous();
    nlohmann::json result = nlohmann::json::array();
    for (std::int64_t i = 0; i < probabilities.size(0); ++i) {
        const float *p = probabilities[i].data_ptr<float>();
        std::vector<int> order(std::size_t(probabilities.size(1)));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [p](int a, int b) { return p[a] > p[b]; });
        nlohmann::json classes = nlohmann::json::array();
        for (int k : order)
            classes.push_back({model.labels[std::size_t(k)], p[k]});
        result.push_back(classes);
    }
    return {{"result", result}};
}

nlohmann::json encodeMetadata(const ModelVersion &model)
{
    std::vector<std::int64_t> inputDims{-1};
    inputDims.insert(inputDims.end(), model.instanceShape.begin(), model.instanceShape.end());
    const std::string inputType = model.pixelInput ? "DT_UINT8" : "DT_FLOAT";
    nlohmann::json outputs = nlohmann::json::object();
    for (const std::string &name : outputNames(model))
        outputs[name] = tensorInfo("DT_FLOAT", {-1, model.numClasses}, name);
    const nlohmann::json inputs = {{"input", tensorInfo(inputType, inputDims, "input")}};
    const nlohmann::json classifyOutputs = {{"classes", tensorInfo("DT_STRING", {-1, model.numClasses}, "classes")},
                                            {"scores", tensorInfo("DT_FLOAT", {-1, model.numClasses}, "scores")}};
    const nlohmann::json classifyInputs = {{"inputs", tensorInfo("DT_STRING", {-1}, "tf_example")}};
    const TransformOptions &t = model.transform->options();
    return {{"model_spec", {{"name", model.name}, {"signature_name", ""}, {"version", std::to_string(model.version)}}},
            {"metadata",
             {{"signature_def",
               {{"signature_def",
                 {{"serving_default", {{"inputs", inputs}, {"outputs", outputs}, {"method_name", "tensorflow/serving/predict"}}},
                  {"classify",
                   {{"inputs", classifyInputs}, {"outputs", classifyOutputs}, {"method_name", "tensorflow/serving/classify"}}}}}}},
              {"lathe",
               {{"labels", model.labels},
                {"arch", model.arch},
                {"runtime", model.runtime},
                {"file", model.file},
                {"device", model.device.str()},
                {"instance", {{"b64", "JPEG or PNG bytes, preprocessed by the export's recipe"},
                              {"tensor", (model.pixelInput ? "uint8 " : "float32 normalised ") + shapeText(model.instanceShape)}}},
                {"preprocessing",
                 {{"resize_short_side", t.resizeSize},
                  {"center_crop", t.imageSize},
                  {"channels", t.channels},
                  {"mean", t.mean},
                  {"std", t.std},
                  {"normalised_in_graph", model.pixelInput}}}}}}}};
}

} // namespace lathe::engine::serve
