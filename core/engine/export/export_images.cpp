#include "engine/export/export_images.h"

#include "engine/base/file_io.h"

#include "engine/base/engine_error.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/inference/prediction.h"

#include <algorithm>
#include <filesystem>
#include <random>

namespace lathe::engine::export_internal {
namespace fs = std::filesystem;

std::string readWholeFile(const std::string &path, std::uintmax_t limit)
{
    return readFileWithin(path, parse_limits::kImageFileBytes, limit);
}

ImageBatch loadImages(const std::string &dir, std::string split, int n, bool shuffle, TransformOptions transform,
                      bool pixels)
{
    ImageBatch batch;
    std::vector<std::string> encoded;
    std::vector<std::string> names;
    if (fs::exists(fs::path(dir) / "dataset.json")) {
        ShardDataset ds(dir);
        if (split.empty() || ds.size(split) == 0) {
            const std::string wanted = split;
            split.clear();
            for (const char *s : {"val", "validation", "test", "train"})
                if (ds.size(s) > 0) {
                    split = s;
                    break;
                }
            if (split.empty())
                throw EngineError(dir + ": the dataset holds no images" + (wanted.empty() ? "" : " in split '" + wanted + "'"));
        }
        const std::vector<RecordRef> order = ds.epochOrder(split, 0, 0, 0, 1, shuffle);
        for (std::size_t i = 0; i < order.size() && int(i) < n; ++i) {
            ImageExample ex = ds.read(order[i]);
            encoded.push_back(std::move(ex.encoded));
            names.push_back(ex.filename);
            batch.labels.push_back(ex.label);
        }
        batch.source = dir + " (" + split + ")";
    } else if (fs::is_directory(dir)) {
        std::vector<std::string> files = expandImageInputs({dir}); // sorted; the folder itself when it holds none
        files.erase(std::remove(files.begin(), files.end(), dir), files.end());
        if (shuffle)
            std::shuffle(files.begin(), files.end(), std::mt19937_64(0));
        for (std::size_t i = 0; i < files.size() && int(i) < n; ++i) {
            encoded.push_back(readWholeFile(files[i]));
            names.push_back(files[i]);
            batch.labels.push_back(-1);
        }
        batch.source = dir;
    } else {
        throw EngineError(dir + ": not a shard folder (dataset.json) or a folder of images");
    }
    if (encoded.empty())
        throw EngineError(dir + ": no images found");

    transform.train = false;
    transform.uint8Output = false;
    transform.channelsLast = false;
    const SampleTransform floatTransform(transform);
    std::mt19937_64 rng(0);
    const std::int64_t count = std::int64_t(encoded.size());
    const int c = transform.channels, s = transform.imageSize;
    batch.images = torch::empty({count, c, s, s}, torch::kFloat);
    for (std::int64_t i = 0; i < count; ++i) {
        const auto *data = reinterpret_cast<const std::uint8_t *>(encoded[std::size_t(i)].data());
        try {
            floatTransform.apply(data, encoded[std::size_t(i)].size(), rng, batch.images[i].data_ptr());
        } catch (const EngineError &e) {
            throw EngineError(names[std::size_t(i)] + ": " + e.what());
        }
    }
    if (pixels) {
        transform.uint8Output = true;
        transform.channelsLast = true;
        const SampleTransform pixelTransform(transform);
        batch.pixels = torch::empty({count, s, s, c}, torch::kByte);
        for (std::int64_t i = 0; i < count; ++i)
            pixelTransform.apply(reinterpret_cast<const std::uint8_t *>(encoded[std::size_t(i)].data()),
                                 encoded[std::size_t(i)].size(), rng, batch.pixels[i].data_ptr());
    }
    return batch;
}

} // namespace lathe::engine::export_internal
