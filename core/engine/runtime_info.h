#pragma once

#include <string>

namespace lathe::engine {

// Versions of the libraries the engine was built with and the compute it can see.
struct RuntimeInfo
{
    std::string lathe;
    std::string libtorch;
    std::string opencv;
    std::string libjpegTurbo;
    std::string parallel; // LibTorch's own report of its threading and BLAS back ends
    int torchThreads = 0;
    int cudaDevices = 0;
};

RuntimeInfo runtimeInfo();

// LibTorch here starts with one intra-op thread; use every core unless told otherwise
// (threads <= 0 means all hardware threads). Returns the count in effect.
int configureTorchThreads(int threads = 0);

} // namespace lathe::engine
