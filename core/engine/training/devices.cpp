#include "engine/training/devices.h"

#include "engine/base/device_name.h"
#include "engine/base/engine_error.h"

namespace lathe::engine {

torch::Device torchDevice(const std::string &name, const std::string &context)
{
    const std::optional<DeviceName> d = parseDeviceName(name);
    if (!d)
        throw EngineError(context + ": unknown device \"" + name + "\" (cpu, cuda, cuda:N)");
    if (!d->cuda)
        return torch::Device(torch::kCPU);
    if (!torch::cuda::is_available())
        throw EngineError(context + ": " + name + " requested but no CUDA device is available in this build or on this machine");
    if (d->index >= int(torch::cuda::device_count()))
        throw EngineError(context + ": " + name + " does not exist (" + std::to_string(torch::cuda::device_count()) +
                          " CUDA devices)");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(d->index));
}

torch::Device inferenceDevice(const std::string &name)
{
    if (name.empty())
        return torch::cuda::is_available() ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    return torchDevice(name, "device");
}

} // namespace lathe::engine
