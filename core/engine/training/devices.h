#pragma once

// Engine-internal (LibTorch): device names (base/device_name.h) as torch devices.

#include <torch/torch.h>

#include <string>

namespace lathe::engine {

// A training or inference device that exists here: throws EngineError naming the device when
// the name is not one, CUDA is not available, or the ordinal is beyond the GPUs present.
// context starts the message ("devices", "device").
torch::Device torchDevice(const std::string &name, const std::string &context = "device");

// Empty: the first CUDA device when there is one, else the CPU; otherwise torchDevice(name).
torch::Device inferenceDevice(const std::string &name);

} // namespace lathe::engine
