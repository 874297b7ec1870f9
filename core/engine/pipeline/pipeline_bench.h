#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>

namespace lathe::engine {

struct PipelineBenchOptions
{
    std::string datasetDir;
    std::string split = "train";
    int imageSize = 224;
    int batchSize = 64;
    int threads = 0; // 0: every hardware thread
    double seconds = 10;
    // "standard": torchvision's ImageNet training recipe (random_resized_crop + horizontal_flip
    // + normalize, float32 NCHW). "none": evaluation resize + center crop + normalize.
    // "decode-only": no pipeline; full-size libjpeg-turbo decodes of the split's JPEG records
    // to RGB on one thread, the per-core ceiling the pipeline is compared with.
    std::string augment = "standard";
    std::size_t cacheBytes = 0;
    bool fastDecode = false; // "standard": TransformOptions::fastDecode (off: PIL's decode)
};

// Runs the input pipeline over the split, epoch after epoch, until `seconds` have passed, with
// a consumer that takes each batch and drops it. Rates are counted after the first batch (the
// warm-up). Returns images_per_s, batches, errors, peak_rss_mb (VmHWM), threads,
// wait_fraction (share of the time the consumer waited for a batch), image_size, batch,
// epochs, and more. Throws EngineError for an unreadable dataset or bad options.
nlohmann::json benchPipeline(const PipelineBenchOptions &options);

} // namespace lathe::engine
