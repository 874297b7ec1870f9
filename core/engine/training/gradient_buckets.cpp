#include "engine/training/gradient_buckets.h"

namespace lathe::engine {

GradientBuckets::GradientBuckets(RankGroup &group, const std::vector<torch::Tensor> &parameters,
                                 std::int64_t bucketElements)
    : m_group(group)
    , m_parameters(parameters)
    , m_bucketOf(parameters.size())
    , m_slotOf(parameters.size())
    , m_got(parameters.size(), false)
{
    // Reverse order, a new bucket when the next would not fit or has another dtype or device.
    std::int64_t elements = 0;
    for (std::size_t k = parameters.size(); k-- > 0;) {
        const torch::Tensor &p = parameters[k];
        const bool fits = !m_buckets.empty() && elements + p.numel() <= bucketElements &&
                          m_buckets.back().flat.scalar_type() == p.scalar_type() &&
                          m_buckets.back().flat.device() == p.device();
        if (!fits) {
            m_buckets.emplace_back();
            m_buckets.back().flat = torch::empty({0}, p.options());
            elements = 0;
        }
        Bucket &b = m_buckets.back();
        m_bucketOf[k] = m_buckets.size() - 1;
        m_slotOf[k] = b.members.size();
        b.members.push_back(k);
        b.offsets.push_back(elements);
        elements += p.numel();
        b.flat = torch::empty({elements}, p.options());
    }
    for (std::size_t k = 0; k < m_parameters.size(); ++k)
        m_hooks.push_back(m_parameters[k].register_hook([this, k](const torch::Tensor &grad) { onGradient(k, grad); }));
}

GradientBuckets::~GradientBuckets()
{
    for (std::size_t k = 0; k < m_hooks.size(); ++k)
        m_parameters[k].remove_hook(m_hooks[k]);
}

void GradientBuckets::arm()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    reset();
    m_armed = true;
}

void GradientBuckets::reset()
{
    m_nextToStart = 0;
    std::fill(m_got.begin(), m_got.end(), false);
    for (Bucket &b : m_buckets) {
        b.ready = 0;
        b.started = false;
    }
}

// grad is this backward's gradient of the parameter; .grad still holds the earlier
// micro-batches' (autograd adds grad to it after the hook).
void GradientBuckets::onGradient(std::size_t parameter, const torch::Tensor &grad)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_armed || m_got[parameter])
        return;
    m_got[parameter] = true;
    Bucket &b = m_buckets[m_bucketOf[parameter]];
    const torch::Tensor &p = m_parameters[parameter];
    torch::Tensor slot = b.flat.narrow(0, b.offsets[m_slotOf[parameter]], p.numel()).view(p.sizes());
    torch::NoGradGuard noGrad;
    if (p.grad().defined())
        torch::add_out(slot, p.grad(), grad);
    else
        slot.copy_(grad);
    ++b.ready;
    startReadyBuckets();
}

void GradientBuckets::startReadyBuckets()
{
    while (m_nextToStart < m_buckets.size() && m_buckets[m_nextToStart].ready == m_buckets[m_nextToStart].members.size())
        start(m_buckets[m_nextToStart++]);
}

void GradientBuckets::start(Bucket &bucket)
{
    bucket.pending = m_group.allReduceSumAsync(bucket.flat);
    bucket.started = true;
}

void GradientBuckets::finish()
{
    std::unique_lock<std::mutex> lock(m_mutex);
    if (!m_armed)
        reset(); // no backward filled the buckets: every gradient is taken as it is now
    torch::NoGradGuard noGrad;
    for (std::size_t k = 0; k < m_parameters.size(); ++k) {
        if (m_got[k])
            continue;
        const torch::Tensor &p = m_parameters[k];
        Bucket &b = m_buckets[m_bucketOf[k]];
        torch::Tensor slot = b.flat.narrow(0, b.offsets[m_slotOf[k]], p.numel()).view(p.sizes());
        if (p.grad().defined())
            slot.copy_(p.grad());
        else
            slot.zero_();
        m_got[k] = true;
        ++b.ready;
    }
    startReadyBuckets();
    m_armed = false;
    lock.unlock();
    const double world = m_group.worldSize();
    for (Bucket &b : m_buckets) {
        b.pending.wait();
        b.flat.div_(world);
        for (std::size_t i = 0; i < b.members.size(); ++i) {
            torch::Tensor &p = m_parameters[b.members[i]];
            const torch::Tensor mean = b.flat.narrow(0, b.offsets[i], p.numel()).view(p.sizes());
            if (p.grad().defined())
                p.mutable_grad().copy_(mean);
            else
                p.mutable_grad() = mean.clone();
        }
    }
}

std::vector<std::int64_t> GradientBuckets::bucketBytes() const
{
    std::vector<std::int64_t> out;
    for (const Bucket &b : m_buckets)
        out.push_back(b.flat.numel() * std::int64_t(b.flat.element_size()));
    return out;
}

} // namespace lathe::engine
