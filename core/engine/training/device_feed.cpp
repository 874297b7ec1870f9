#include "engine/training/device_feed.h"

#include "engine/base/clock.h"

namespace lathe::engine {

DeviceFeed::DeviceFeed(std::unique_ptr<BatchSource> inner, const torch::Device &device, bool normalize,
                       const std::array<float, 3> &mean, const std::array<float, 3> &std, int channels)
    : m_inner(std::move(inner))
    , m_device(device)
    , m_copies(device)
    , m_normalize(normalize)
{
    std::vector<float> shift, scale;
    for (int c = 0; c < channels; ++c) {
        shift.push_back(255.0f * mean[std::size_t(c)]);
        scale.push_back(1.0f / (255.0f * std[std::size_t(c)]));
    }
    m_shift = torch::tensor(shift).view({1, channels, 1, 1}).to(device);
    m_scale = torch::tensor(scale).view({1, channels, 1, 1}).to(device);
}

void DeviceFeed::start(std::int64_t epoch, std::int64_t firstBatch)
{
    if (m_ahead) // its host batch goes back to the pipeline's pool only once its copy is done
        m_copies.finish(m_ahead->ticket, {});
    m_ahead.reset();
    m_inner->start(epoch, firstBatch);
}

std::optional<DeviceFeed::Staged> DeviceFeed::stage()
{
    std::optional<Batch> host = m_inner->next();
    if (!host)
        return std::nullopt;
    Staged s;
    s.batch = *host; // shares the host tensors until the copy replaces them
    s.host = std::move(*host);
    s.ticket = m_copies.copy({&s.batch.images, &s.batch.labels, &s.batch.softTargets});
    return s;
}

std::optional<Batch> DeviceFeed::next()
{
    if (!m_ahead)
        m_ahead = stage();
    std::optional<Staged> current = std::move(m_ahead);
    m_ahead.reset();
    if (!current)
        return std::nullopt;
    const auto waitStart = std::chrono::steady_clock::now();
    m_copies.finish(current->ticket, {&current->batch.images, &current->batch.labels, &current->batch.softTargets});
    m_copyWaitSeconds += secondsSince(waitStart);
    current->host = Batch(); // its buffer goes back to the pipeline's pool
    if (m_device.is_cuda())
        m_ahead = stage(); // the next copy runs while this batch is trained on
    Batch batch = std::move(current->batch);
    if (m_normalize) {
        // (x - 255 mean) / (255 std): the pipeline's (x / 255 - mean) / std, fused in two kernels.
        batch.images = batch.images.to(torch::kFloat32).sub_(m_shift).mul_(m_scale);
    }
    return batch;
}

} // namespace lathe::engine
