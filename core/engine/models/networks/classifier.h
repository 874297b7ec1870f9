#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.

#include "engine/models/model_spec.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/dropout.h>

#include <memory>
#include <string>

namespace lathe::engine::models {

// A backbone with its classification head. Submodules, parameters and buffers carry
// torchvision's names, so state dicts are exchanged with torchvision unchanged, and
// forward() computes what torchvision's model computes.
//
//   forward(x) = head(pool(featureMap(x)))
//
// featureMap: the last spatial feature map [N, C, H, W] (CNNs; Grad-CAM hooks it) or the
//             encoder's token sequence after its final norm [N, T, D] (ViT).
// pool:       everything between that and the final Linear, giving the embedding [N, D]
//             (global pooling, and e.g. MobileNetV3's classifier.0-2, ConvNeXt's classifier.0-1).
// head:       dropout (where torchvision has it), the optional hidden layer, the final Linear.
class Classifier : public torch::nn::Module
{
public:
    torch::Tensor forward(torch::Tensor input) { return head(pool(featureMap(input))); }

    virtual torch::Tensor featureMap(torch::Tensor input) = 0;
    virtual torch::Tensor pool(torch::Tensor featureMap) = 0;
    virtual torch::Tensor head(torch::Tensor embedding) = 0;

    virtual std::int64_t embeddingSize() const = 0;
};

// Builds a registry architecture (backbone_registry.h) with random initialisation exactly as
// torchvision initialises it, inChannels input channels and the given head.
// Throws EngineError for an unknown name or invalid options.
std::shared_ptr<Classifier> createClassifier(const std::string &arch, int inChannels, const HeadOptions &head);

} // namespace lathe::engine::models
