#include "engine/base/runtime_info.h"

#include <ATen/Parallel.h>
#include <jconfig.h>
#include <opencv2/core/version.hpp>
#include <torch/cuda.h>
#include <torch/version.h>

#include <fstream>
#include <thread>

#include <dlfcn.h>
#include <unistd.h>

#define LATHE_STRINGIFY2(x) #x
#define LATHE_STRINGIFY(x) LATHE_STRINGIFY2(x)

namespace lathe::engine {

RuntimeInfo runtimeInfo()
{
    RuntimeInfo info;
    info.lathe = LATHE_VERSION;
    info.libtorch = TORCH_VERSION;
#ifdef LATHE_TORCH_CUDA_VERSION
    info.libtorchCuda = LATHE_TORCH_CUDA_VERSION;
#endif
    info.opencv = CV_VERSION;
    info.libjpegTurbo = LATHE_STRINGIFY(LIBJPEG_TURBO_VERSION);
    info.parallel = at::get_parallel_info();
    info.torchThreads = at::get_num_threads();
    info.cudaDevices = static_cast<int>(torch::cuda::device_count());
    return info;
}

namespace {

std::string cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
            const std::string name = line.substr(line.find(':') + 1);
            const std::size_t begin = name.find_first_not_of(' ');
            return begin == std::string::npos ? std::string() : name.substr(begin);
        }
    }
    return {};
}

// The CUDA driver API, opened at run time (no CUDA headers or libraries at build time).
struct CudaDriver
{
    using Init = int (*)(unsigned);
    using GetCount = int (*)(int *);
    using Get = int (*)(int *, int);
    using GetName = int (*)(char *, int, int);
    using TotalMem = int (*)(std::size_t *, int);

    void *handle = nullptr;
    GetCount getCount = nullptr;
    Get get = nullptr;
    GetName getName = nullptr;
    TotalMem totalMem = nullptr;

    CudaDriver()
    {
        handle = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle)
            return;
        const auto init = reinterpret_cast<Init>(::dlsym(handle, "cuInit"));
        getCount = reinterpret_cast<GetCount>(::dlsym(handle, "cuDeviceGetCount"));
        get = reinterpret_cast<Get>(::dlsym(handle, "cuDeviceGet"));
        getName = reinterpret_cast<GetName>(::dlsym(handle, "cuDeviceGetName"));
        totalMem = reinterpret_cast<TotalMem>(::dlsym(handle, "cuDeviceTotalMem_v2"));
        if (!init || !getCount || !get || !getName || !totalMem || init(0) != 0)
            getCount = nullptr;
    }
    ~CudaDriver()
    {
        if (handle)
            ::dlclose(handle);
    }
    int count() const
    {
        int n = 0;
        return getCount && getCount(&n) == 0 ? n : 0;
    }
    ComputeDevice device(int index) const
    {
        ComputeDevice d;
        d.id = "cuda:" + std::to_string(index);
        d.name = "CUDA device " + std::to_string(index);
        int handleOfDevice = 0;
        if (getCount && get(&handleOfDevice, index) == 0) {
            char name[256] = {};
            if (getName(name, int(sizeof name) - 1, handleOfDevice) == 0 && name[0])
                d.name = name;
            std::size_t bytes = 0;
            if (totalMem(&bytes, handleOfDevice) == 0)
                d.totalMemory = bytes;
        }
        return d;
    }
};

} // namespace

std::uint64_t physicalMemory()
{
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long pageSize = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && pageSize > 0 ? std::uint64_t(pages) * std::uint64_t(pageSize) : 0;
}

ComputeDevices computeDevices()
{
    ComputeDevices out;
    ComputeDevice cpu;
    cpu.id = "cpu";
    cpu.name = cpuModelName();
    if (cpu.name.empty())
        cpu.name = "CPU";
    cpu.name += " (" + std::to_string(std::max(1u, std::thread::hardware_concurrency())) + " threads)";
    cpu.totalMemory = physicalMemory();
    out.devices.push_back(cpu);

    const int usable = static_cast<int>(torch::cuda::device_count());
    const CudaDriver driver;
    for (int i = 0; i < usable; ++i)
        out.devices.push_back(driver.device(i));
    out.driverGpus = driver.count();
    return out;
}

int configureTorchThreads(int threads)
{
    if (threads <= 0)
        threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(threads);
    return at::get_num_threads();
}

} // namespace lathe::engine
