// predictWithOnnx: classifies images with an exported float ONNX file through OpenCV DNN, or a
// TFLite file (FP32, FP16 or INT8) through the reference runtime, the file's Lathe metadata
// saying how to prepare them.

#include "engine/export/export_job.h"

#include "engine/base/engine_error.h"
#include "engine/export/export_images.h"
#include "engine/export/export_verify.h"
#include "engine/export/onnx_export.h"
#include "engine/export/tflite_model.h"
#include "engine/pipeline/sample_transform.h"

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <map>
#include <random>

namespace lathe::engine {

namespace {

// An exported file ready to classify: how to prepare an image for it, and how to run it.
struct Predictor
{
    TransformOptions transform;
    nlohmann::json labels;
    bool probabilities = false; // the file outputs probabilities (else logits)
    bool multiLabel = false;    // per-class sigmoid scores; thresholds pick the label set
    std::vector<double> thresholds;
    bool int8Pixels = false;    // TFLite INT8 with int8 input: pixel - 128
    std::string runtime;
    std::function<torch::Tensor(const torch::Tensor &)> run; // one prepared image -> [1, K] float
};

// A float ONNX file through OpenCV DNN; its metadata_props say how to prepare images.
Predictor onnxPredictor(const std::string &path)
{
    auto model = std::make_shared<onnx::ModelProto>(readOnnxFile(path));
    std::map<std::string, std::string> meta;
    for (const auto &p : model->metadata_props())
        meta[p.key()] = p.value();
    auto need = [&](const std::string &key) -> const std::string & {
        auto it = meta.find(key);
        if (it == meta.end())
            throw EngineError(path + ": metadata '" + key + "' is missing (not exported by Lathe?)");
        return it->second;
    };
    Predictor p;
    TransformOptions &transform = p.transform;
    bool pixels = false;
    try {
        transform.imageSize = std::stoi(need("lathe.image_size"));
        transform.resizeSize = std::stoi(need("lathe.resize_size"));
        transform.channels = std::stoi(need("lathe.in_channels"));
        transform.mean = nlohmann::json::parse(need("lathe.mean")).get<std::array<float, 3>>();
        transform.std = nlohmann::json::parse(need("lathe.std")).get<std::array<float, 3>>();
        p.labels = nlohmann::json::parse(need("lathe.labels"));
        pixels = need("lathe.input_layout").rfind("uint8", 0) == 0;
        p.probabilities = need("lathe.output_name") == "probabilities";
        // Files exported before multi-label existed have neither key: single-label.
        p.multiLabel = meta.count("lathe.task") && meta["lathe.task"] == "multi_label";
        if (p.multiLabel)
            p.thresholds = nlohmann::json::parse(need("lathe.thresholds")).get<std::vector<double>>();
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        throw EngineError(path + ": malformed Lathe metadata (" + e.what() + ")");
    }
    transform.uint8Output = pixels;
    transform.channelsLast = pixels;
    p.runtime = "opencv_dnn";
    auto net = std::make_shared<export_internal::OpenCvRunner>(*model);
    p.run = [net, path](const torch::Tensor &x) {
        try {
            return net->run(x);
        } catch (const cv::Exception &e) {
            throw EngineError(path + ": OpenCV DNN cannot run it (float ONNX only): " + e.what());
        }
    };
    return p;
}

// A TFLite file (any variant) through the reference runtime; its "lathe" metadata says how to
// prepare images. Quantised outputs come back dequantised.
Predictor tflitePredictor(const std::string &path)
{
    const TfliteModel model = readTfliteFile(path);
    auto it = model.metadata.find("lathe");
    if (it == model.metadata.end())
        throw EngineError(path + ": metadata 'lathe' is missing (not exported by Lathe?)");
    Predictor p;
    TransformOptions &transform = p.transform;
    const TfliteTensor &in = model.tensors.at(std::size_t(model.inputs.at(0)));
    const TfliteTensor &out = model.tensors.at(std::size_t(model.outputs.at(0)));
    try {
        const nlohmann::json meta = nlohmann::json::parse(it->second);
        transform.imageSize = meta.at("image_size").get<int>();
        transform.resizeSize = meta.at("resize_size").get<int>();
        transform.channels = meta.at("in_channels").get<int>();
        transform.mean = meta.at("mean").get<std::array<float, 3>>();
        transform.std = meta.at("std").get<std::array<float, 3>>();
        p.labels = meta.at("labels");
        p.probabilities = meta.at("output").at("content") == "probabilities";
        p.multiLabel = meta.value("task", "single_label") == "multi_label";
        if (p.multiLabel)
            p.thresholds = meta.at("thresholds").get<std::vector<double>>();
    } catch (const std::exception &e) {
        throw EngineError(path + ": malformed Lathe metadata (" + e.what() + ")");
    }
    transform.uint8Output = in.type != TfliteType::Float32;
    transform.channelsLast = true;
    p.int8Pixels = in.type == TfliteType::Int8;
    p.runtime = "tflite_reference";
    auto runtime = std::make_shared<TfliteReferenceRuntime>(model);
    const TfliteTensor output = out;
    p.run = [runtime, output](const torch::Tensor &x) { return tfliteDequantize(runtime->run(x), output); };
    return p;
}

} // namespace

nlohmann::json predictWithOnnx(const OnnxPredictOptions &options)
{
    const bool tflite = options.modelPath.size() > 7 && options.modelPath.compare(options.modelPath.size() - 7, 7, ".tflite") == 0;
    const Predictor predictor = tflite ? tflitePredictor(options.modelPath) : onnxPredictor(options.modelPath);
    const TransformOptions &transform = predictor.transform;
    const SampleTransform sample(transform);
    nlohmann::json predictions = nlohmann::json::array();
    std::mt19937_64 rng(0);
    const int s = transform.imageSize, c = transform.channels;
    for (const std::string &image : options.images) {
        const std::string bytes = export_internal::readWholeFile(image);
        const std::vector<std::int64_t> shape = transform.channelsLast ? std::vector<std::int64_t>{1, s, s, c}
                                                                       : std::vector<std::int64_t>{1, c, s, s};
        torch::Tensor x = torch::empty(shape, transform.uint8Output ? torch::kByte : torch::kFloat);
        try {
            sample.apply(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), rng, x.data_ptr());
        } catch (const EngineError &e) {
            throw EngineError(image + ": " + e.what());
        }
        if (predictor.int8Pixels)
            x = (x.to(torch::kInt) - 128).to(torch::kChar);
        const torch::Tensor out = predictor.run(x).reshape({-1});
        const torch::Tensor p = predictor.probabilities ? out
                                : predictor.multiLabel  ? torch::sigmoid(out)
                                                        : torch::softmax(out, 0);
        const int k = std::min<int>(options.top, int(p.size(0)));
        auto top = p.topk(k);
        nlohmann::json list = nlohmann::json::array();
        for (int i = 0; i < k; ++i) {
            const std::int64_t index = std::get<1>(top)[i].item<std::int64_t>();
            const nlohmann::json &labels = predictor.labels;
            list.push_back({{"index", index},
                            {"label", index < std::int64_t(labels.size()) ? labels[std::size_t(index)] : nlohmann::json()},
                            {"probability", std::get<0>(top)[i].item<double>()}});
        }
        nlohmann::json entry = {{"image", image}, {"top", list}};
        if (predictor.multiLabel) {
            // The label set: every class whose score reaches its threshold, highest first.
            if (predictor.thresholds.size() != std::size_t(p.size(0)))
                throw EngineError(options.modelPath + ": " + std::to_string(predictor.thresholds.size()) +
                                  " thresholds for " + std::to_string(p.size(0)) + " outputs");
            const torch::Tensor order = std::get<1>(p.sort(0, /*descending=*/true));
            nlohmann::json set = nlohmann::json::array();
            for (std::int64_t i = 0; i < p.size(0); ++i) {
                const std::int64_t index = order[i].item<std::int64_t>();
                if (p[index].item<double>() >= predictor.thresholds[std::size_t(index)])
                    set.push_back(index < std::int64_t(predictor.labels.size()) ? predictor.labels[std::size_t(index)]
                                                                               : nlohmann::json(index));
            }
            entry["labels"] = set;
        }
        predictions.push_back(entry);
    }
    return {{"model", options.modelPath}, {"runtime", predictor.runtime}, {"predictions", predictions}};
}

} // namespace lathe::engine
