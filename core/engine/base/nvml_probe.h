#pragma once

// GPU utilisation and memory from NVIDIA's management library (NVML), loaded at run time with
// dlopen("libnvidia-ml.so.1") so that Lathe starts, and trains on the CPU, on machines without
// an NVIDIA driver. Torch-free. Thread-safe: the library is opened once, on first use.

#include <optional>
#include <string>

namespace lathe::engine {

struct GpuUtilization
{
    int gpuPercent = 0;      // the share of the last sample period a kernel ran
    int memoryPercent = 0;   // the share it read or wrote device memory
    double usedMiB = 0;      // device memory in use, all processes
    double totalMiB = 0;
    std::string name;        // "NVIDIA H200"
};

// Empty when NVML was loaded and initialised; otherwise why not ("libnvidia-ml.so.1: cannot open
// shared object file: No such file or directory").
std::string nvmlProblem();

// The GPU with this PCI bus id ("00000000:17:00.0", as cudaDeviceGetPCIBusId gives it), or, when
// the id is empty, NVML's device number `index` (which is not the CUDA ordinal when
// CUDA_VISIBLE_DEVICES reorders them). std::nullopt when NVML is missing or the query fails.
std::optional<GpuUtilization> queryGpuUtilization(const std::string &pciBusId, int index);

} // namespace lathe::engine
