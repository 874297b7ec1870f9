#pragma once

// Engine-internal (training only): includes LibTorch, not CUDA's headers. What the training loop
// asks of CUDA beyond tensors: the caching allocator's statistics, a copy stream, and CUDA-graph
// capture of a step. In a build without CUDA (Debian's LibTorch) every function answers "not
// available" and CudaStepGraph never captures, so callers need no #ifdef.

#include <torch/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace lathe::engine {

// The CUDA caching allocator's figures for one device, in MiB: tensors alive, memory the
// allocator holds from the driver, and the peak of the first since resetCudaPeak.
struct CudaMemory
{
    double allocatedMiB = 0;
    double reservedMiB = 0;
    double peakAllocatedMiB = 0;
};
std::optional<CudaMemory> cudaMemory(const torch::Device &device); // nullopt on the CPU
void resetCudaPeak(const torch::Device &device);
// Waits until the device has run everything queued on it (a no-op on the CPU): for timings.
void synchronizeDevice(const torch::Device &device);
// "00000000:17:00.0" for a CUDA device (NVML's key for it); empty on the CPU or without CUDA.
std::string cudaPciBusId(const torch::Device &device);

// A side stream that copies batches to a CUDA device while the step runs on the current
// stream. On the CPU, copies are plain and waits return at once.
class CopyStream
{
public:
    explicit CopyStream(const torch::Device &device);
    ~CopyStream();
    CopyStream(const CopyStream &) = delete;
    CopyStream &operator=(const CopyStream &) = delete;

    // A ticket for copies started together: the copies are queued on the side stream (from
    // page-locked memory they do not block the host) and the ticket records their end.
    struct Ticket
    {
        std::shared_ptr<void> event; // a CUDA event; null on the CPU
    };
    // to(device, non_blocking) of each tensor on the side stream; undefined tensors stay so.
    Ticket copy(std::vector<torch::Tensor *> tensors) const;
    // Blocks the host until the ticket's copies are done (so their host memory may be reused),
    // then orders the current stream after them and marks the device tensors as used there.
    void finish(const Ticket &ticket, const std::vector<torch::Tensor *> &deviceTensors) const;

private:
    torch::Device m_device;
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// One training step (forward, loss, backward) captured once as a CUDA graph and replayed: the
// host launches one graph instead of hundreds of kernels. Needs a CUDA device, static shapes,
// no host synchronisation inside the step, and gradients that the step writes rather than
// adds to (no accumulation over micro-batches). tryCapture runs the body a few times on a side
// stream (warm-up, as PyTorch's whole-network capture recipe does), captures it, and returns the
// empty string; or returns why it cannot ("the device is cpu"), and the caller runs eagerly.
class CudaStepGraph
{
public:
    CudaStepGraph();
    ~CudaStepGraph();
    CudaStepGraph(const CudaStepGraph &) = delete;
    CudaStepGraph &operator=(const CudaStepGraph &) = delete;

    // body() reads the static inputs and writes the static outputs (tensors the caller keeps);
    // clearGradients() sets every gradient to undefined, so the capture allocates them.
    std::string tryCapture(const torch::Device &device, const std::function<void()> &body,
                           const std::function<void()> &clearGradients);
    bool captured() const;
    void replay();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
