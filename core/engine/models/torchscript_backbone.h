#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.

#include "engine/models/backbone_registry.h"
#include "engine/models/networks/classifier.h"

#include <torch/script.h>

#include <string>

namespace lathe::engine {

// A user's own model, exported with torch.jit.script or torch.jit.trace and torch.jit.save,
// trained as a backbone: its last Linear layer gets numClasses outputs, freshly initialised
// (as torch.nn.Linear initialises), and every parameter of the scripted module trains.
//
// The scripted module is opaque: featureMap() runs its whole forward (the logits), pool() and
// head() pass through, and embeddingSize() is numClasses. Parameters and buffers are registered
// on this module under their scripted dotted names (through empty holder submodules), sharing
// memory with the scripted module, so optimisers, to(), state dicts and freezing all work.
class TorchScriptBackbone : public models::Classifier
{
public:
    // Throws EngineError naming the file when it cannot be loaded or has no Linear layer
    // with a 2-D weight and 1-D bias to replace.
    TorchScriptBackbone(const std::string &path, const HeadOptions &head);

    torch::Tensor featureMap(torch::Tensor input) override;
    torch::Tensor pool(torch::Tensor featureMap) override { return featureMap; }
    torch::Tensor head(torch::Tensor embedding) override { return embedding; }
    std::int64_t embeddingSize() const override { return m_numClasses; }

    void train(bool on = true) override;

    // Family "TorchScript"; stages "backbone" (everything else) and "head" (the replaced Linear).
    const BackboneInfo &info() const { return m_info; }
    torch::jit::Module &scripted() { return m_module; }

private:
    std::string m_path;
    torch::jit::Module m_module;
    std::int64_t m_numClasses = 0;
    BackboneInfo m_info;
};

} // namespace lathe::engine
