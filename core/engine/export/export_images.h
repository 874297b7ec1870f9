#pragma once

// Engine-internal, private to export/ (includes LibTorch): the real images an export runs
// through the model and its artifacts (verification, validation accuracy, INT8 calibration) and
// that predictWithOnnx classifies.

#include "engine/base/parse_limits.h"
#include "engine/pipeline/sample_transform.h"

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine::export_internal {

struct ImageBatch
{
    torch::Tensor images;                // float [N, C, S, S], normalised
    torch::Tensor pixels;                // uint8 [N, S, S, C] (preprocessing inside the graph)
    std::vector<std::int64_t> labels;    // -1 when unknown
    std::string source;
};

// A whole image file of at most limit bytes (image.file_bytes). Throws EngineError naming the file.
std::string readWholeFile(const std::string &path, std::uintmax_t limit = parse_limits::kImageFileBytes.value);

// The first n images of a shard folder's split (optionally shuffled with a fixed seed) or of
// an image folder (sorted paths), transformed for evaluation: images always, pixels too when
// asked. An empty or missing split falls back to the first of val, validation, test, train
// that holds images. Throws EngineError naming the folder or the image.
ImageBatch loadImages(const std::string &dir, std::string split, int n, bool shuffle, TransformOptions transform,
                      bool pixels);

} // namespace lathe::engine::export_internal
