#pragma once

// Engine-internal (LibTorch). The optional hidden layer every architecture's head can have.

#include "engine/models/model_spec.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>

namespace lathe::engine::models {

// HeadOptions::hiddenUnits > 0 puts Linear(embedding, hidden) + ReLU + Dropout in front of the
// final Linear, registered on the classifier as "head_hidden". Architectures call
// registerOn() in their constructor and apply() on the embedding before their dropout and
// final Linear, whose input size is finalInputSize().
class HiddenLayer
{
public:
    HiddenLayer() = default;
    HiddenLayer(torch::nn::Module &owner, std::int64_t embeddingSize, const HeadOptions &options, double dropout);

    std::int64_t finalInputSize() const { return m_outputSize; }
    torch::Tensor apply(torch::Tensor embedding, bool training) const;

private:
    mutable torch::nn::Linear m_linear{nullptr}; // forward() is not const in LibTorch
    std::int64_t m_outputSize = 0;
    double m_dropout = 0;
};

// The head of the architectures whose classifier is a bare Linear (ResNet, ConvNeXt, ViT): the
// hidden layer, dropout when dropout > 0, the final Linear fc.
torch::Tensor linearHead(const HiddenLayer &hidden, double dropout, torch::nn::Linear &fc, const torch::Tensor &embedding,
                         bool training);

// The dropout before the final Linear: the option when given (>= 0), else the architecture's own.
inline double headDropout(const HeadOptions &options, double architectureDefault)
{
    return options.dropout >= 0 ? options.dropout : architectureDefault;
}

} // namespace lathe::engine::models
