#include "engine/base/nvml_probe.h"

#include <dlfcn.h>

#include <mutex>

namespace lathe::engine {

namespace {

// The few NVML entry points used, with the types of nvml.h (stable ABI since NVML 5).
using NvmlDevice = struct NvmlDeviceOpaque *;
struct NvmlUtilization
{
    unsigned int gpu;
    unsigned int memory;
};
struct NvmlMemory
{
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
};
using InitFn = int (*)();
using ByIndexFn = int (*)(unsigned int, NvmlDevice *);
using ByBusIdFn = int (*)(const char *, NvmlDevice *);
using UtilizationFn = int (*)(NvmlDevice, NvmlUtilization *);
using MemoryFn = int (*)(NvmlDevice, NvmlMemory *);
using NameFn = int (*)(NvmlDevice, char *, unsigned int);

struct Nvml
{
    std::string problem;
    ByIndexFn byIndex = nullptr;
    ByBusIdFn byBusId = nullptr;
    UtilizationFn utilization = nullptr;
    MemoryFn memory = nullptr;
    NameFn name = nullptr;
};

const Nvml &nvml()
{
    static Nvml n;
    static std::once_flag once;
    std::call_once(once, [] {
        void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char *why = dlerror();
            n.problem = why ? why : "libnvidia-ml.so.1 could not be loaded";
            return;
        }
        const auto symbol = [lib](const char *name) { return dlsym(lib, name); };
        const auto init = reinterpret_cast<InitFn>(symbol("nvmlInit_v2"));
        n.byIndex = reinterpret_cast<ByIndexFn>(symbol("nvmlDeviceGetHandleByIndex_v2"));
        n.byBusId = reinterpret_cast<ByBusIdFn>(symbol("nvmlDeviceGetHandleByPciBusId_v2"));
        n.utilization = reinterpret_cast<UtilizationFn>(symbol("nvmlDeviceGetUtilizationRates"));
        n.memory = reinterpret_cast<MemoryFn>(symbol("nvmlDeviceGetMemoryInfo"));
        n.name = reinterpret_cast<NameFn>(symbol("nvmlDeviceGetName"));
        if (!init || !n.byIndex || !n.byBusId || !n.utilization || !n.memory || !n.name)
            n.problem = "libnvidia-ml.so.1 lacks the NVML functions Lathe uses (nvmlInit_v2, ...)";
        else if (const int rc = init(); rc != 0)
            n.problem = "nvmlInit_v2 failed (NVML error " + std::to_string(rc) + ": no usable NVIDIA driver?)";
    });
    return n;
}

} // namespace

std::string nvmlProblem()
{
    return nvml().problem;
}

std::optional<GpuUtilization> queryGpuUtilization(const std::string &pciBusId, int index)
{
    const Nvml &n = nvml();
    if (!n.problem.empty())
        return std::nullopt;
    NvmlDevice device = nullptr;
    const int found = pciBusId.empty() ? n.byIndex(unsigned(index), &device) : n.byBusId(pciBusId.c_str(), &device);
    NvmlUtilization u{};
    NvmlMemory m{};
    if (found != 0 || n.utilization(device, &u) != 0 || n.memory(device, &m) != 0)
        return std::nullopt;
    GpuUtilization g;
    g.gpuPercent = int(u.gpu);
    g.memoryPercent = int(u.memory);
    g.usedMiB = double(m.used) / (1 << 20);
    g.totalMiB = double(m.total) / (1 << 20);
    char name[96] = {};
    if (n.name(device, name, sizeof name) == 0)
        g.name = name;
    return g;
}

} // namespace lathe::engine
