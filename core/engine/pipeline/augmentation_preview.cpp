#include "engine/pipeline/augmentation_preview.h"

#include "engine/base/engine_error.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/pipeline/sample_transform.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace lathe::engine {
namespace {

struct Source
{
    std::string encoded;
    std::int64_t label = 0;
    std::string where; // names the record in errors
};

std::string share(double v)
{
    char text[16];
    std::snprintf(text, sizeof(text), "%.2f", v);
    return text;
}

std::vector<PreviewImage> preview(const std::vector<Source> &sources, const std::vector<std::string> &classNames,
                                  const std::vector<AugmentationSpec> &augmentations, int imageSize, std::uint64_t seed)
{
    TransformOptions options;
    options.augmentations = augmentations;
    options.train = true;
    options.imageSize = imageSize;
    options.resizeSize = std::max(imageSize, static_cast<int>(std::lround(imageSize * 256.0 / 224.0)));
    options.uint8Output = true;
    options.channelsLast = true; // HWC RGB: what a widget shows
    const SampleTransform transform(options);
    const int numClasses = static_cast<int>(std::max<std::size_t>(classNames.size(), 1));
    const BatchMixer mixer(augmentations, numClasses);

    std::vector<PreviewImage> out(sources.size());
    for (std::size_t i = 0; i < sources.size(); ++i) {
        PreviewImage &p = out[i];
        p.width = p.height = imageSize;
        p.rgb.resize(transform.sampleBytes());
        // One generator per image, so an image looks the same whatever the count asked for.
        std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + i);
        try {
            transform.apply(reinterpret_cast<const std::uint8_t *>(sources[i].encoded.data()), sources[i].encoded.size(),
                            rng, p.rgb.data());
        } catch (const EngineError &e) {
            throw EngineError(sources[i].where + ": " + e.what());
        }
        const std::int64_t label = sources[i].label;
        p.label = label >= 0 && std::size_t(label) < classNames.size() ? classNames[std::size_t(label)] : "image " + std::to_string(i);
    }
    if (!mixer.active() || out.empty())
        return out;

    // Mix the group as a batch would be: uint8 HWC -> float NCHW, mixed, back.
    const auto n = static_cast<std::int64_t>(out.size());
    at::Tensor images = at::empty({n, imageSize, imageSize, 3}, at::kFloat);
    at::Tensor labels = at::empty({n}, at::kLong);
    for (std::int64_t i = 0; i < n; ++i) {
        images[i].copy_(at::from_blob(out[std::size_t(i)].rgb.data(), {imageSize, imageSize, 3}, at::kByte));
        labels[i] = std::clamp<std::int64_t>(sources[std::size_t(i)].label, 0, numClasses - 1);
    }
    at::Tensor nchw = images.permute({0, 3, 1, 2});
    std::mt19937_64 rng(seed ^ 0x5DEECE66Dull);
    const at::Tensor targets = mixer.apply(nchw, labels, rng);
    const at::Tensor pixels = nchw.permute({0, 2, 3, 1}).round().clamp(0, 255).to(at::kByte).contiguous();
    for (std::int64_t i = 0; i < n; ++i) {
        PreviewImage &p = out[std::size_t(i)];
        std::memcpy(p.rgb.data(), pixels[i].data_ptr<std::uint8_t>(), p.rgb.size());
        // Name the (at most two) classes with a share of the soft target.
        const at::Tensor t = targets[i];
        const at::Tensor order = t.argsort(0, true);
        std::string label;
        for (std::int64_t k = 0; k < std::min<std::int64_t>(2, t.size(0)); ++k) {
            const std::int64_t c = order[k].item<std::int64_t>();
            const double weight = t[c].item<double>();
            if (weight <= 0.005)
                break;
            const std::string name = std::size_t(c) < classNames.size() ? classNames[std::size_t(c)] : "class " + std::to_string(c);
            label += (label.empty() ? "" : " + ") + name + " " + share(weight);
        }
        p.label = label;
    }
    return out;
}

} // namespace

std::vector<PreviewImage> previewAugmentations(const std::string &datasetDir, const std::string &split, int count,
                                               const std::vector<AugmentationSpec> &augmentations, int imageSize,
                                               std::uint64_t seed)
{
    ShardDataset dataset(datasetDir);
    if (dataset.size(split) == 0)
        throw EngineError(datasetDir + ": the dataset has no records in split \"" + split + "\"");
    const std::vector<RecordRef> order = dataset.epochOrder(split, 0, 0, 0, 1, false);
    std::vector<Source> sources;
    const std::size_t n = std::min<std::size_t>(order.size(), std::size_t(std::max(count, 0)));
    for (std::size_t i = 0; i < n; ++i) {
        ImageExample example = dataset.read(order[i]);
        Source s;
        s.where = datasetDir + ": " + split + " record " + std::to_string(i)
                  + (example.filename.empty() ? "" : " (" + example.filename + ")");
        s.encoded = std::move(example.encoded);
        s.label = example.label;
        sources.push_back(std::move(s));
    }
    return preview(sources, dataset.manifest().classes, augmentations, imageSize, seed);
}

std::vector<PreviewImage> previewAugmentationsOnImages(const std::vector<std::string> &encodedImages,
                                                       const std::vector<AugmentationSpec> &augmentations, int imageSize,
                                                       std::uint64_t seed)
{
    std::vector<Source> sources;
    for (std::size_t i = 0; i < encodedImages.size(); ++i)
        sources.push_back({encodedImages[i], std::int64_t(i), "image " + std::to_string(i)});
    std::vector<std::string> names;
    for (std::size_t i = 0; i < encodedImages.size(); ++i)
        names.push_back("image " + std::to_string(i));
    return preview(sources, names, augmentations, imageSize, seed);
}

} // namespace lathe::engine
