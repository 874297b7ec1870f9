#pragma once

// Engine-internal (training only): includes LibTorch. The last leg of a rank's input: batches
// moved to the rank's device one batch ahead of the step, and normalised there.
//
// On a CUDA device the pipeline hands over page-locked uint8 NHWC batches (a quarter of the
// bytes of float32); DeviceFeed queues the next batch's copy on a side stream while the current
// step runs, and turns the pixels into normalised float32 with two fused element-wise kernels on
// the device, in the batch's memory format (channels-last stays channels-last). On the CPU the
// same normalisation runs on the CPU, batch by batch (there is nothing to copy ahead), so the
// path is tested without a GPU.

#include "engine/training/cuda_support.h"
#include "engine/training/feature_cache.h"

#include <torch/torch.h>

#include <array>
#include <memory>
#include <optional>

namespace lathe::engine {

class DeviceFeed : public BatchSource
{
public:
    // normalize: the inner source gives uint8 pixels (TransformOptions::uint8Output) that are
    // normalised here with mean and std (per channel, in [0, 1] units; the first `channels`).
    DeviceFeed(std::unique_ptr<BatchSource> inner, const torch::Device &device, bool normalize,
               const std::array<float, 3> &mean, const std::array<float, 3> &std, int channels);

    void start(std::int64_t epoch, std::int64_t firstBatch) override;
    // The batch on the device (images float32 normalised when normalize), labels and soft
    // targets too; on CUDA the following batch's copy is under way when it returns.
    std::optional<Batch> next() override;
    std::int64_t batchesPerEpoch() const override { return m_inner->batchesPerEpoch(); }
    // The pipeline's wait plus the time spent waiting for copies to finish.
    double waitSeconds() const override { return m_inner->waitSeconds() + m_copyWaitSeconds; }

private:
    struct Staged
    {
        Batch batch;  // its tensors already the device's (copies may still be running)
        Batch host;   // the pipeline's batch, kept until its copy is done
        CopyStream::Ticket ticket;
    };
    std::optional<Staged> stage();

    std::unique_ptr<BatchSource> m_inner;
    torch::Device m_device;
    CopyStream m_copies;
    bool m_normalize;
    torch::Tensor m_shift; // [1, C, 1, 1] 255 * mean, on the device
    torch::Tensor m_scale; // [1, C, 1, 1] 1 / (255 * std)
    std::optional<Staged> m_ahead;
    double m_copyWaitSeconds = 0;
};

} // namespace lathe::engine
