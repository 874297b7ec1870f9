// predictWithOnnx: classifies images with an exported float ONNX file through OpenCV DNN, the
// file's Lathe metadata saying how to prepare them.

#include "engine/export/export_job.h"

#include "engine/base/engine_error.h"
#include "engine/export/export_images.h"
#include "engine/export/export_verify.h"
#include "engine/export/onnx_export.h"
#include "engine/pipeline/sample_transform.h"

#include <algorithm>
#include <array>
#include <map>
#include <random>

namespace lathe::engine {

nlohmann::json predictWithOnnx(const OnnxPredictOptions &options)
{
    const onnx::ModelProto model = readOnnxFile(options.modelPath);
    std::map<std::string, std::string> meta;
    for (const auto &p : model.metadata_props())
        meta[p.key()] = p.value();
    auto need = [&](const std::string &key) -> const std::string & {
        auto it = meta.find(key);
        if (it == meta.end())
            throw EngineError(options.modelPath + ": metadata '" + key + "' is missing (not exported by Lathe?)");
        return it->second;
    };
    TransformOptions transform;
    transform.train = false;
    nlohmann::json labels;
    bool pixels = false, probabilities = false;
    try {
        transform.imageSize = std::stoi(need("lathe.image_size"));
        transform.resizeSize = std::stoi(need("lathe.resize_size"));
        transform.channels = std::stoi(need("lathe.in_channels"));
        transform.mean = nlohmann::json::parse(need("lathe.mean")).get<std::array<float, 3>>();
        transform.std = nlohmann::json::parse(need("lathe.std")).get<std::array<float, 3>>();
        labels = nlohmann::json::parse(need("lathe.labels"));
        pixels = need("lathe.input_layout").rfind("uint8", 0) == 0;
        probabilities = need("lathe.output_name") == "probabilities";
    } catch (const EngineError &) {
        throw;
    } catch (const std::exception &e) {
        throw EngineError(options.modelPath + ": malformed Lathe metadata (" + e.what() + ")");
    }
    transform.uint8Output = pixels;
    transform.channelsLast = pixels;
    const SampleTransform sample(transform);
    export_internal::OpenCvRunner net(model);
    nlohmann::json predictions = nlohmann::json::array();
    std::mt19937_64 rng(0);
    const int s = transform.imageSize, c = transform.channels;
    for (const std::string &image : options.images) {
        const std::string bytes = export_internal::readWholeFile(image);
        torch::Tensor x = pixels ? torch::empty({1, s, s, c}, torch::kByte) : torch::empty({1, c, s, s}, torch::kFloat);
        try {
            sample.apply(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size(), rng, x.data_ptr());
        } catch (const EngineError &e) {
            throw EngineError(image + ": " + e.what());
        }
        torch::Tensor out;
        try {
            out = net.run(x);
        } catch (const cv::Exception &e) {
            throw EngineError(options.modelPath + ": OpenCV DNN cannot run it (float ONNX only): " + e.what());
        }
        torch::Tensor p = probabilities ? out[0] : torch::softmax(out[0], 0);
        const int k = std::min<int>(options.top, int(p.size(0)));
        auto top = p.topk(k);
        nlohmann::json list = nlohmann::json::array();
        for (int i = 0; i < k; ++i) {
            const std::int64_t index = std::get<1>(top)[i].item<std::int64_t>();
            list.push_back({{"index", index},
                            {"label", index < std::int64_t(labels.size()) ? labels[std::size_t(index)] : nlohmann::json()},
                            {"probability", std::get<0>(top)[i].item<double>()}});
        }
        predictions.push_back({{"image", image}, {"top", list}});
    }
    return {{"model", options.modelPath}, {"runtime", "opencv_dnn"}, {"predictions", predictions}};
}

} // namespace lathe::engine
