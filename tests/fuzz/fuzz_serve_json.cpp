// `lathe-cli serve`'s request bodies (TensorFlow Serving's REST JSON): the depth-checked body
// parser, then :predict (instances / inputs, row and columnar, b64 JPEG and PNG images, nested
// float32 or uint8 arrays, signature names) and :classify (examples, context, features) for a
// float32 model [3, 8, 8] and a pixel-input model [8, 8, 3], as the server decodes them before
// its batcher runs the model. A batch it accepts must have the model's instance shape.
#include "engine/pipeline/sample_transform.h"
#include "engine/serve/tf_json.h"
#include "fuzz_support.h"

#include <torch/types.h>

#include <string_view>

namespace {

using lathe::engine::serve::ModelVersion;

std::shared_ptr<const ModelVersion> makeModel(bool pixels)
{
    auto model = std::make_shared<ModelVersion>();
    model->name = pixels ? "pixels" : "floats";
    model->labels = {"a", "b"};
    model->numClasses = 2;
    model->pixelInput = pixels;
    model->instanceShape = pixels ? std::vector<std::int64_t>{8, 8, 3} : std::vector<std::int64_t>{3, 8, 8};
    lathe::engine::TransformOptions transform;
    transform.train = false;
    transform.imageSize = 8;
    transform.resizeSize = 9;
    transform.uint8Output = pixels;
    transform.channelsLast = pixels;
    model->transform = std::make_shared<const lathe::engine::SampleTransform>(transform);
    return model;
}

void checkBatch(const torch::Tensor &batch, const ModelVersion &model, const lathe::engine::serve::DecodeLimits &limits)
{
    if (batch.dim() != 1 + std::int64_t(model.instanceShape.size()) || batch.size(0) < 1 ||
        batch.size(0) > limits.maxInstances ||
        batch.sizes().slice(1).vec() != model.instanceShape ||
        batch.scalar_type() != (model.pixelInput ? torch::kByte : torch::kFloat))
        std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const std::shared_ptr<const ModelVersion> models[] = {makeModel(false), makeModel(true)};
    // The server's limits, smaller images: the pixel limit is checked the same way whatever it is.
    lathe::engine::serve::DecodeLimits limits;
    limits.maxInstances = 8;
    limits.maxImagePixels = 1 << 16;
    nlohmann::json body;
    bool parsed = false;
    lathe::fuzz::refusalAllowed([&] {
        body = lathe::engine::serve::parseRequestBody(std::string_view(reinterpret_cast<const char *>(data), size));
        parsed = true;
    });
    if (!parsed)
        return 0;
    for (const auto &model : models) {
        lathe::fuzz::refusalAllowed([&] {
            checkBatch(lathe::engine::serve::decodePredict(*model, body, limits).input, *model, limits);
        });
        lathe::fuzz::refusalAllowed([&] {
            checkBatch(lathe::engine::serve::decodeClassify(*model, body, limits), *model, limits);
        });
    }
    return 0;
}
