#include "engine/base/device_name.h"

namespace lathe::engine {

std::optional<DeviceName> parseDeviceName(const std::string &name)
{
    if (name == "cpu")
        return DeviceName{};
    if (name == "cuda")
        return DeviceName{true, 0};
    const std::string prefix = "cuda:";
    if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() || name.size() > prefix.size() + 3)
        return std::nullopt;
    for (std::size_t i = prefix.size(); i < name.size(); ++i)
        if (name[i] < '0' || name[i] > '9')
            return std::nullopt;
    return DeviceName{true, std::stoi(name.substr(prefix.size()))};
}

} // namespace lathe::engine
