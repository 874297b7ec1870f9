#include "engine/models/networks/head.h"

#include "engine/base/engine_error.h"

#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/dropout.h>

namespace lathe::engine::models {

HiddenLayer::HiddenLayer(torch::nn::Module &owner, std::int64_t embeddingSize, const HeadOptions &options,
                         double dropout)
    : m_outputSize(embeddingSize)
    , m_dropout(dropout)
{
    if (options.numClasses < 1)
        throw EngineError("model.head.num_classes must be at least 1 (got " + std::to_string(options.numClasses) + ")");
    if (options.hiddenUnits < 0)
        throw EngineError("model.head.hidden_units must not be negative");
    if (options.dropout > 1)
        throw EngineError("model.head.dropout must be in [0, 1]");
    if (options.hiddenUnits > 0) {
        m_linear = owner.register_module("head_hidden", torch::nn::Linear(embeddingSize, options.hiddenUnits));
        m_outputSize = options.hiddenUnits;
    }
}

torch::Tensor HiddenLayer::apply(torch::Tensor embedding, bool training) const
{
    if (!m_linear)
        return embedding;
    namespace F = torch::nn::functional;
    torch::Tensor x = F::relu(m_linear->forward(embedding));
    return F::dropout(x, F::DropoutFuncOptions().p(m_dropout).training(training));
}

torch::Tensor linearHead(const HiddenLayer &hidden, double dropout, torch::nn::Linear &fc, const torch::Tensor &embedding,
                         bool training)
{
    namespace F = torch::nn::functional;
    torch::Tensor x = hidden.apply(embedding, training);
    if (dropout > 0)
        x = F::dropout(x, F::DropoutFuncOptions().p(dropout).training(training));
    return fc->forward(x);
}

} // namespace lathe::engine::models
