#pragma once

// Public and torch-free: what lathe-cli's `models` and `forward` verbs need.

#include <nlohmann/json.hpp>

#include <string>

namespace lathe::engine {

// The backbone registry as JSON, one object per architecture: name, family, input_size,
// resize_size, interpolation, mean, std, parameters, gflops, stages [{name, prefixes}], head
// (the final Linear's parameter names), stem (the first convolution's weight), convolutional.
nlohmann::json modelsJson();

struct ForwardOptions
{
    std::string arch;            // a registry name
    std::string weightsPath;     // safetensors or torch.save .pth; empty = random initialisation
    int numClasses = 0;          // 0: the class count of the weights' head, or 1000 without weights
    int inChannels = 3;
    std::string inputPath;       // safetensors holding tensor "input" [N, inChannels, H, W]
    std::string outputPath;      // safetensors to write with tensor "output" [N, numClasses]
    std::string saveWeightsPath; // optional: the model's state dict (torchvision names) as safetensors
};

// Builds the model in eval mode, loads the weights strictly (every tensor must match, except a
// head replaced because numClasses differs from the file's and a stem adapted to inChannels),
// runs the input through it, writes the output and optionally the weights. Returns a report:
// arch, num_classes, in_channels, weights, load {loaded, missing, unexpected, mismatched,
// head_replaced, stem_adapted, text}, input_shape, output_shape, output, saved_weights.
// Throws EngineError naming the file and the reason.
nlohmann::json runForward(const ForwardOptions &options);

} // namespace lathe::engine
