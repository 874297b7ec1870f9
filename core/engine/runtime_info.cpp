#include "runtime_info.h"

#include <ATen/Parallel.h>
#include <jconfig.h>
#include <opencv2/core/version.hpp>
#include <torch/cuda.h>
#include <torch/version.h>

#include <thread>

#define LATHE_STRINGIFY2(x) #x
#define LATHE_STRINGIFY(x) LATHE_STRINGIFY2(x)

namespace lathe::engine {

RuntimeInfo runtimeInfo()
{
    RuntimeInfo info;
    info.lathe = LATHE_VERSION;
    info.libtorch = TORCH_VERSION;
    info.opencv = CV_VERSION;
    info.libjpegTurbo = LATHE_STRINGIFY(LIBJPEG_TURBO_VERSION);
    info.parallel = at::get_parallel_info();
    info.torchThreads = at::get_num_threads();
    info.cudaDevices = static_cast<int>(torch::cuda::device_count());
    return info;
}

int configureTorchThreads(int threads)
{
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    return at::get_num_threads();
}

} // namespace lathe::engine
