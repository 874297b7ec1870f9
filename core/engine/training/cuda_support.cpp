#include "engine/training/cuda_support.h"

#include <cstdio>

// Only through LibTorch's libraries (libc10_cuda, libtorch_cuda) and c10's device-generic events
// and stream guards, never the CUDA runtime's functions directly: lathe-cli then needs no
// libcudart of its own beside the torch wheel's (the engine bundle, scripts/make-engine-bundle.sh).
#ifdef LATHE_HAVE_CUDA
#include <ATen/autocast_mode.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/core/Event.h>
#include <c10/core/StreamGuard.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace lathe::engine {

namespace {
constexpr double kMiB = 1 << 20;
} // namespace

// ---- the allocator --------------------------------------------------------------------------

std::optional<CudaMemory> cudaMemory(const torch::Device &device)
{
#ifdef LATHE_HAVE_CUDA
    if (!device.is_cuda())
        return std::nullopt;
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device.index());
    constexpr auto all = std::size_t(c10::CachingAllocator::StatType::AGGREGATE);
    CudaMemory m;
    m.allocatedMiB = double(stats.allocated_bytes[all].current) / kMiB;
    m.reservedMiB = double(stats.reserved_bytes[all].current) / kMiB;
    m.peakAllocatedMiB = double(stats.allocated_bytes[all].peak) / kMiB;
    return m;
#else
    (void)device;
    (void)kMiB;
    return std::nullopt;
#endif
}

void resetCudaPeak(const torch::Device &device)
{
#ifdef LATHE_HAVE_CUDA
    if (device.is_cuda())
        c10::cuda::CUDACachingAllocator::resetPeakStats(device.index());
#else
    (void)device;
#endif
}

void synchronizeDevice(const torch::Device &device)
{
#ifdef LATHE_HAVE_CUDA
    if (device.is_cuda())
        c10::Stream(c10::cuda::getCurrentCUDAStream(device.index())).synchronize();
#else
    (void)device;
#endif
}

std::string cudaPciBusId(const torch::Device &device)
{
#ifdef LATHE_HAVE_CUDA
    // From LibTorch's cached device properties, not cudaDeviceGetPCIBusId: no call into the CUDA
    // runtime of its own, so lathe-cli needs no libcudart beside the torch wheel's.
    if (device.is_cuda()) {
        const cudaDeviceProp *p = at::cuda::getDeviceProperties(device.index());
        char id[32] = {};
        std::snprintf(id, sizeof id, "%08X:%02X:%02X.0", unsigned(p->pciDomainID), unsigned(p->pciBusID),
                      unsigned(p->pciDeviceID));
        return id;
    }
#else
    (void)device;
#endif
    return {};
}

// ---- the copy stream ------------------------------------------------------------------------

struct CopyStream::Impl
{
#ifdef LATHE_HAVE_CUDA
    explicit Impl(const torch::Device &device)
        : stream(c10::cuda::getStreamFromPool(false, device.index()))
    {
    }
    c10::cuda::CUDAStream stream;
#endif
};

CopyStream::CopyStream(const torch::Device &device)
    : m_device(device)
{
#ifdef LATHE_HAVE_CUDA
    if (device.is_cuda())
        m_impl = std::make_unique<Impl>(device);
#endif
}

CopyStream::~CopyStream() = default;

CopyStream::Ticket CopyStream::copy(std::vector<torch::Tensor *> tensors) const
{
    Ticket ticket;
#ifdef LATHE_HAVE_CUDA
    if (m_impl) {
        c10::StreamGuard guard(m_impl->stream);
        for (torch::Tensor *t : tensors)
            if (t->defined())
                *t = t->to(m_device, /*non_blocking=*/true);
        auto event = std::make_shared<c10::Event>(c10::DeviceType::CUDA);
        event->record(m_impl->stream);
        ticket.event = event;
        return ticket;
    }
#endif
    for (torch::Tensor *t : tensors)
        if (t->defined())
            *t = t->to(m_device);
    return ticket;
}

void CopyStream::finish(const Ticket &ticket, const std::vector<torch::Tensor *> &deviceTensors) const
{
#ifdef LATHE_HAVE_CUDA
    if (!m_impl || !ticket.event)
        return;
    auto *event = static_cast<c10::Event *>(ticket.event.get());
    event->synchronize();
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(m_device.index());
    event->block(current);
    // Allocated on the side stream, used on the current one: the allocator must not hand the
    // memory out again before the current stream is done with it.
    for (torch::Tensor *t : deviceTensors)
        if (t->defined())
            c10::cuda::CUDACachingAllocator::recordStream(t->storage().data_ptr(), current);
#else
    (void)ticket;
    (void)deviceTensors;
#endif
}

// ---- CUDA graphs ----------------------------------------------------------------------------

struct CudaStepGraph::Impl
{
#ifdef LATHE_HAVE_CUDA
    std::unique_ptr<at::cuda::CUDAGraph> graph;
#endif
};

CudaStepGraph::CudaStepGraph()
    : m_impl(std::make_unique<Impl>())
{
}

CudaStepGraph::~CudaStepGraph() = default;

std::string CudaStepGraph::tryCapture(const torch::Device &device, const std::function<void()> &body,
                                      const std::function<void()> &clearGradients)
{
    if (!device.is_cuda())
        return "the device is " + device.str() + " (CUDA graphs need a CUDA device)";
#ifdef LATHE_HAVE_CUDA
    const bool cache = at::autocast::is_autocast_cache_enabled();
    try {
        // Warm-up on a side stream: cuDNN's benchmark, the allocator's pools and lazy
        // initialisations happen outside the capture.
        const c10::cuda::CUDAStream side = c10::cuda::getStreamFromPool(false, device.index());
        const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device.index());
        // b waits for what is queued on a so far.
        const auto after = [](const c10::Stream &a, const c10::Stream &b) {
            c10::Event event(c10::DeviceType::CUDA);
            event.record(a);
            event.block(b);
        };
        after(current, side);
        {
            c10::StreamGuard guard(side);
            for (int i = 0; i < 3; ++i) {
                clearGradients();
                body();
            }
        }
        after(side, current);
        clearGradients();
        // Autocast's cache of cast weights would hold tensors from outside the graph's pool.
        at::autocast::set_autocast_cache_enabled(false);
        auto graph = std::make_unique<at::cuda::CUDAGraph>();
        {
            c10::StreamGuard guard(side);
            graph->capture_begin();
            try {
                body();
            } catch (...) {
                try {
                    graph->capture_end();
                } catch (...) {
                }
                throw;
            }
            graph->capture_end();
        }
        at::autocast::set_autocast_cache_enabled(cache);
        after(side, current);
        m_impl->graph = std::move(graph);
        return {};
    } catch (const std::exception &e) {
        at::autocast::set_autocast_cache_enabled(cache);
        return std::string("capture failed: ") + e.what();
    }
#else
    (void)body;
    (void)clearGradients;
    return "this build of Lathe has no CUDA";
#endif
}

bool CudaStepGraph::captured() const
{
#ifdef LATHE_HAVE_CUDA
    return m_impl->graph != nullptr;
#else
    return false;
#endif
}

void CudaStepGraph::replay()
{
#ifdef LATHE_HAVE_CUDA
    if (m_impl->graph)
        m_impl->graph->replay();
#endif
}

} // namespace lathe::engine
