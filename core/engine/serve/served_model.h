#pragma once

// Engine-internal (LibTorch): one version of a model that `lathe-cli serve` answers with, loaded
// from an export folder (`lathe-cli export`'s files and report.json).

#include "engine/pipeline/sample_transform.h"

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine::serve {

struct ModelVersion
{
    std::string name;          // the name clients use (--model NAME=DIR)
    std::int64_t version = 1;  // the numbered folder; 1 for a plain export folder
    std::string dir;           // the export folder
    std::string runtime;       // "torchscript", "libtorch", "torchscript-from-onnx"
    std::string file;          // the artifact loaded (model.pt, model.safetensors, model.onnx)
    std::string arch;
    std::vector<std::string> labels; // label i names output i
    int numClasses = 0;

    // What one instance is: float32 [C, S, S] normalised, or uint8 [S, S, C] pixels when the
    // export put the normalisation inside the graph. Images (b64) go through transform, the
    // export's own evaluation recipe, into that layout.
    bool pixelInput = false;
    std::vector<std::int64_t> instanceShape;
    std::shared_ptr<const SampleTransform> transform;

    // The output the export wrote ("logits" or "probabilities"); the server always adds the
    // probabilities.
    bool outputsProbabilities = false;

    torch::Device device = torch::kCPU;
    nlohmann::json report; // the export's report.json

    // The model on a batch [N, ...instanceShape] (any device; CPU tensors are moved): the
    // export's output as float32 [N, numClasses] on the CPU. Thread-safe.
    std::function<torch::Tensor(const torch::Tensor &)> forward;
};

// Loads the export in dir as version `version` of model `name`: report.json must say the export
// passed (and so must the artifact loaded); the runtime is the first of model.pt (TorchScript),
// model.safetensors + model.json (LibTorch, the inference module's loader), model.onnx (turned
// into TorchScript) that the report lists as passed. A forward pass on one zero instance must
// give numClasses finite outputs. device: "cpu", "cuda:N" or empty (the first GPU when there is
// one). Throws EngineError with the reason.
std::shared_ptr<const ModelVersion> loadModelVersion(const std::string &name, std::int64_t version,
                                                     const std::string &dir, const std::string &device);

} // namespace lathe::engine::serve
