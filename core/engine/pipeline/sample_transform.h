#pragma once

// Engine-internal: uses OpenCV and LibTorch types. Not for workspace or widgets.

#include "engine/pipeline/augmentation.h"

#include <opencv2/core/mat.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>

namespace at {
class Tensor;
}

namespace lathe::engine {

struct TransformOptions
{
    std::vector<AugmentationSpec> augmentations; // sample-level steps and batch-level mixup/cutmix
    bool train = true;       // false: resize the short side to resizeSize, center-crop imageSize
    int imageSize = 224;     // output is imageSize x imageSize
    int resizeSize = 256;    // evaluation resize (short side)
    int channels = 3;        // 1 or 3: what the model takes; sources are converted
    std::array<float, 3> mean{0.485f, 0.456f, 0.406f};
    std::array<float, 3> std{0.229f, 0.224f, 0.225f};
    bool uint8Output = false; // true: uint8 pixels, normalization left to the consumer (on the device)
    bool channelsLast = false; // true: HWC sample layout, else CHW
    // Training only (ignored when train is false), off by default: JPEGs decoded with libjpeg's
    // fast IDCT and without chroma interpolation (decodeRegion's fastDecode): about 5% less
    // CPU per sample on 500x375 photos, but pixels off PIL's decode by 0.3-2.6 levels on
    // average (up to ~40 at sharp chroma edges). Evaluation always decodes as PIL does.
    bool fastDecode = false;
};

// Decode + sample-level augmentation + layout/normalization for one image. Immutable after
// construction, so worker threads share one. Randomness comes only from the rng passed in.
class SampleTransform
{
public:
    explicit SampleTransform(TransformOptions options); // throws EngineError for invalid options
    const TransformOptions &options() const { return m_options; }

    // Bytes per output sample (imageSize^2 * channels * (uint8Output ? 1 : 4)).
    std::size_t sampleBytes() const;

    // Decodes an encoded image (JPEG with DCT scaling / ROI decoding where it helps, other
    // formats through OpenCV; EXIF orientation applied; grey/alpha/16-bit/CMYK converted)
    // and writes one augmented sample to out. Throws EngineError with the reason on bad data.
    void apply(const std::uint8_t *data, std::size_t size, std::mt19937_64 &rng, void *out) const;

    // The in-RAM cache path: decodeForCache returns the image decoded and resized so that its
    // short side is cacheShortSide() (never enlarged), before any augmentation;
    // applyDecoded continues from there exactly as apply would.
    int cacheShortSide() const;
    cv::Mat decodeForCache(const std::uint8_t *data, std::size_t size) const;
    void applyDecoded(const cv::Mat &decoded, std::mt19937_64 &rng, void *out) const;

    struct Plan; // the parsed steps

private:
    TransformOptions m_options;
    std::shared_ptr<const Plan> m_plan;
};

// Batch-level steps (mixup, cutmix) of an augmentation list, torchvision v2 semantics:
// one of the configured ones is chosen per batch, with its probability; labels become soft.
class BatchMixer
{
public:
    BatchMixer(const std::vector<AugmentationSpec> &augmentations, int numClasses);
    bool active() const;
    // images: float [N, C, H, W] (any memory format), modified in place. labels: int64 [N].
    // Returns soft targets float [N, numClasses] (one-hot with label smoothing left to the loss
    // when no mixing step is configured or it was skipped).
    at::Tensor apply(at::Tensor &images, const at::Tensor &labels, std::mt19937_64 &rng) const;
    // The same with the targets given, float [N, numClasses] (multi-label: multi-hot rows, so
    // a mixed pair's label sets are mixed with the images' weights). Draws as apply does.
    at::Tensor mix(at::Tensor &images, const at::Tensor &targets, std::mt19937_64 &rng) const;

private:
    std::vector<AugmentationSpec> m_steps;
    int m_numClasses = 0;
};

} // namespace lathe::engine
