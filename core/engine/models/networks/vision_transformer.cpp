// ViT-B/16 and ViT-B/32 with torchvision's module names, initialisation and forward semantics.

#include "engine/models/networks/blocks.h"
#include "engine/models/networks/families.h"
#include "engine/models/networks/head.h"

#include "engine/base/engine_error.h"

#include <torch/nn/functional/activation.h>
#include <torch/nn/functional/linear.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>

#include <cmath>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

// nn.MultiheadAttention(dim, heads, batch_first=True) used as self-attention, with its parameter
// names (in_proj_weight, in_proj_bias, out_proj.*) and initialisation. torchvision's ViT-B
// has no attention dropout.
class SelfAttention : public torch::nn::Module
{
public:
    SelfAttention(std::int64_t dim, std::int64_t heads)
        : m_heads(heads)
    {
        m_inProjWeight = register_parameter("in_proj_weight", torch::empty({3 * dim, dim}));
        m_inProjBias = register_parameter("in_proj_bias", torch::zeros({3 * dim}));
        m_outProj = register_module("out_proj", torch::nn::Linear(dim, dim));
        torch::nn::init::xavier_uniform_(m_inProjWeight);
        torch::NoGradGuard noGrad;
        m_outProj->bias.zero_();
    }

    torch::Tensor forward(const torch::Tensor &x)
    {
        const std::int64_t n = x.size(0), t = x.size(1), d = x.size(2), hd = d / m_heads;
        // [N, T, 3D] -> 3 x [N, heads, T, hd]
        std::vector<torch::Tensor> qkv =
            F::linear(x, m_inProjWeight, m_inProjBias).view({n, t, 3, m_heads, hd}).permute({2, 0, 3, 1, 4}).unbind(0);
        torch::Tensor scores = torch::matmul(qkv[0] * (1.0 / std::sqrt(double(hd))), qkv[1].transpose(-2, -1));
        torch::Tensor out = torch::matmul(scores.softmax(-1), qkv[2]);
        return m_outProj->forward(out.transpose(1, 2).reshape({n, t, d}));
    }

private:
    std::int64_t m_heads;
    torch::Tensor m_inProjWeight;
    torch::Tensor m_inProjBias;
    torch::nn::Linear m_outProj{nullptr};
};

// torchvision's EncoderBlock: pre-norm attention and MLP (Linear, GELU, Dropout, Linear,
// Dropout, at indices 0-4), each with a residual. ViT-B's dropout is 0.
class EncoderBlock : public torch::nn::Module
{
public:
    EncoderBlock(std::int64_t dim, std::int64_t heads, std::int64_t mlpDim)
    {
        m_ln1 = register_module("ln_1", layerNorm(dim));
        m_attention = register_module("self_attention", std::make_shared<SelfAttention>(dim, heads));
        m_ln2 = register_module("ln_2", layerNorm(dim));
        auto mlp = register_module("mlp", std::make_shared<Node>());
        m_fc1 = mlp->register_module("0", torch::nn::Linear(dim, mlpDim));
        m_fc2 = mlp->register_module("3", torch::nn::Linear(mlpDim, dim));
        torch::NoGradGuard noGrad;
        for (auto *fc : {m_fc1.get(), m_fc2.get()}) {
            torch::nn::init::xavier_uniform_(fc->weight);
            fc->bias.normal_(0, 1e-6);
        }
    }

    torch::Tensor forward(const torch::Tensor &input)
    {
        torch::Tensor x = m_attention->forward(m_ln1->forward(input)) + input;
        return x + m_fc2->forward(F::gelu(m_fc1->forward(m_ln2->forward(x))));
    }

private:
    torch::nn::LayerNorm m_ln1{nullptr};
    std::shared_ptr<SelfAttention> m_attention;
    torch::nn::LayerNorm m_ln2{nullptr};
    torch::nn::Linear m_fc1{nullptr};
    torch::nn::Linear m_fc2{nullptr};
};

struct VitConfig
{
    int patchSize;
    int layers;
    int heads;
    std::int64_t hiddenDim;
    std::int64_t mlpDim;
};

class VisionTransformer : public Classifier
{
public:
    VisionTransformer(const std::string &arch, const VitConfig &config, int imageSize, int inChannels,
                      const HeadOptions &head)
        : m_arch(arch)
        , m_imageSize(imageSize)
        , m_hiddenDim(config.hiddenDim)
    {
        m_convProj = register_module(
            "conv_proj", torch::nn::Conv2d(torch::nn::Conv2dOptions(inChannels, config.hiddenDim, config.patchSize)
                                               .stride(config.patchSize)));
        const std::int64_t gridSize = imageSize / config.patchSize;
        m_classToken = register_parameter("class_token", torch::zeros({1, 1, config.hiddenDim}));

        auto encoder = register_module("encoder", std::make_shared<Node>());
        m_posEmbedding = encoder->register_parameter(
            "pos_embedding", torch::empty({1, gridSize * gridSize + 1, config.hiddenDim}));
        auto layers = encoder->register_module("layers", std::make_shared<Node>());
        for (int i = 0; i < config.layers; ++i)
            m_layers.push_back(layers->register_module(
                "encoder_layer_" + std::to_string(i),
                std::make_shared<EncoderBlock>(config.hiddenDim, config.heads, config.mlpDim)));
        m_encoderNorm = encoder->register_module("ln", layerNorm(config.hiddenDim));

        m_dropout = headDropout(head, 0.0);
        m_hidden = HiddenLayer(*this, config.hiddenDim, head, m_dropout);
        auto heads = register_module("heads", std::make_shared<Node>());
        m_fc = heads->register_module("head", torch::nn::Linear(m_hidden.finalInputSize(), head.numClasses));

        const double fanIn = double(inChannels) * config.patchSize * config.patchSize;
        truncNormal(m_convProj->weight, std::sqrt(1 / fanIn));
        torch::NoGradGuard noGrad;
        m_posEmbedding.normal_(0, 0.02); // from BERT, as torchvision
        m_convProj->bias.zero_();
        m_fc->weight.zero_();
        m_fc->bias.zero_();
    }

    torch::Tensor featureMap(torch::Tensor input) override
    {
        if (input.dim() != 4 || input.size(2) != m_imageSize || input.size(3) != m_imageSize) {
            std::string got;
            for (std::int64_t s : input.sizes())
                got += (got.empty() ? "" : "x") + std::to_string(s);
            throw EngineError(m_arch + " expects input images of " + std::to_string(m_imageSize) + "x" +
                              std::to_string(m_imageSize) + " pixels (its position embedding is sized for them); got a " +
                              got + " tensor");
        }
        const std::int64_t n = input.size(0);
        torch::Tensor x = m_convProj->forward(input).reshape({n, m_hiddenDim, -1}).permute({0, 2, 1});
        x = torch::cat({m_classToken.expand({n, -1, -1}), x}, 1) + m_posEmbedding;
        for (const auto &layer : m_layers)
            x = layer->forward(x);
        return m_encoderNorm->forward(x);
    }

    torch::Tensor pool(torch::Tensor featureMap) override { return featureMap.select(1, 0); }

    torch::Tensor head(torch::Tensor embedding) override
    {
        return linearHead(m_hidden, m_dropout, m_fc, embedding, is_training());
    }

    std::int64_t embeddingSize() const override { return m_hiddenDim; }

private:
    std::string m_arch;
    std::int64_t m_imageSize;
    std::int64_t m_hiddenDim;
    torch::nn::Conv2d m_convProj{nullptr};
    torch::Tensor m_classToken;
    torch::Tensor m_posEmbedding;
    std::vector<std::shared_ptr<EncoderBlock>> m_layers;
    torch::nn::LayerNorm m_encoderNorm{nullptr};
    HiddenLayer m_hidden;
    double m_dropout = 0;
    torch::nn::Linear m_fc{nullptr};
};

} // namespace

std::shared_ptr<Classifier> createVisionTransformer(const std::string &arch, int inChannels, const HeadOptions &head)
{
    // torchvision's ViT is built for one image size (its pretrained weights use 224).
    const int imageSize = 224;
    if (arch == "vit_b_16")
        return std::make_shared<VisionTransformer>(arch, VitConfig{16, 12, 12, 768, 3072}, imageSize, inChannels, head);
    if (arch == "vit_b_32")
        return std::make_shared<VisionTransformer>(arch, VitConfig{32, 12, 12, 768, 3072}, imageSize, inChannels, head);
    throw EngineError("unknown Vision Transformer variant '" + arch + "'");
}

} // namespace lathe::engine::models
