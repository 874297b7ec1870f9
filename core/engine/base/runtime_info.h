#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// Versions of the libraries the engine was built with and the compute it can see.
struct RuntimeInfo
{
    std::string lathe;
    std::string libtorch;
    // The CUDA version this LibTorch was built with ("13.0"); empty for a CPU-only LibTorch.
    std::string libtorchCuda;
    std::string opencv;
    std::string libjpegTurbo;
    std::string parallel; // LibTorch's own report of its threading and BLAS back ends
    int torchThreads = 0;
    int cudaDevices = 0;
};

RuntimeInfo runtimeInfo();

// A device a run can train on (run config "devices").
struct ComputeDevice
{
    std::string id;               // "cpu", "cuda:0", ...
    std::string name;             // the CPU model or the GPU's name
    std::uint64_t totalMemory = 0; // bytes: physical RAM for the CPU; 0 when unknown
};

struct ComputeDevices
{
    std::vector<ComputeDevice> devices; // the CPU first, then every CUDA device LibTorch can use
    // GPUs the CUDA driver sees: more than the CUDA devices listed when this LibTorch build has
    // no CUDA support (0 without a driver).
    int driverGpus = 0;
};

// GPU names and memory come from the CUDA driver (libcuda, opened at run time), so this works
// the same with CPU-only and CUDA builds of LibTorch.
ComputeDevices computeDevices();
// Physical RAM in bytes (0 when unknown).
std::uint64_t physicalMemory();

// LibTorch here starts with one intra-op thread; use every core unless told otherwise
// (threads <= 0 means all hardware threads). Returns the count in effect.
int configureTorchThreads(int threads = 0);

} // namespace lathe::engine
