#pragma once

#include <optional>
#include <string>

namespace lathe::engine {

// A device as run configs, the CLI and the GUI name it: "cpu", "cuda" (the first GPU) or
// "cuda:N". The one parser of device names: the run config's checks, the trainer's ranks and
// inference all read names through it (training/devices.h turns them into torch devices).
struct DeviceName
{
    bool cuda = false;
    int index = 0; // the CUDA ordinal; 0 for the CPU

    std::string str() const { return cuda ? "cuda:" + std::to_string(index) : "cpu"; }
};

// std::nullopt for anything else ("gpu0", "cuda:", "cuda:x", "mps").
std::optional<DeviceName> parseDeviceName(const std::string &name);

} // namespace lathe::engine
