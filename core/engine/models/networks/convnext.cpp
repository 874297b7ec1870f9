// ConvNeXt-Tiny with torchvision's module names, initialisation and forward semantics.

#include "engine/models/networks/blocks.h"
#include "engine/models/networks/families.h"
#include "engine/models/networks/head.h"

#include "engine/base/engine_error.h"

#include <torch/nn/functional/activation.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

// torchvision's LayerNorm2d: LayerNorm over the channels of an NCHW tensor.
torch::Tensor layerNorm2d(torch::nn::LayerNorm norm, const torch::Tensor &x)
{
    return norm->forward(x.permute({0, 2, 3, 1})).permute({0, 3, 1, 2});
}

class CNBlock : public torch::nn::Module
{
public:
    CNBlock(std::int64_t dim, double layerScale, double stochasticDepthProb)
        : m_stochasticDepthProb(stochasticDepthProb)
    {
        auto block = register_module("block", std::make_shared<Node>());
        // Indices 1, 4 and 6 are torchvision's parameterless Permute/GELU/Permute.
        m_depthwise = block->register_module(
            "0", torch::nn::Conv2d(torch::nn::Conv2dOptions(dim, dim, 7).padding(3).groups(dim).bias(true)));
        m_norm = block->register_module("2", layerNorm(dim));
        m_expand = block->register_module("3", torch::nn::Linear(dim, 4 * dim));
        m_project = block->register_module("5", torch::nn::Linear(4 * dim, dim));
        m_layerScale = register_parameter("layer_scale", torch::full({dim, 1, 1}, layerScale));
    }

    torch::Tensor forward(const torch::Tensor &input)
    {
        torch::Tensor x = m_depthwise->forward(input).permute({0, 2, 3, 1});
        x = m_project->forward(F::gelu(m_expand->forward(m_norm->forward(x))));
        x = m_layerScale * x.permute({0, 3, 1, 2});
        return stochasticDepth(x, m_stochasticDepthProb, is_training()).add_(input); // torchvision: result += input
    }

private:
    torch::nn::Conv2d m_depthwise{nullptr};
    torch::nn::LayerNorm m_norm{nullptr};
    torch::nn::Linear m_expand{nullptr};
    torch::nn::Linear m_project{nullptr};
    torch::Tensor m_layerScale;
    double m_stochasticDepthProb = 0;
};

struct StageConfig
{
    std::int64_t channels;
    std::int64_t outChannels; // 0: no downsampling after the stage
    int blocks;
};

class ConvNeXt : public Classifier
{
public:
    ConvNeXt(const std::vector<StageConfig> &stages, double stochasticDepthProb, int inChannels,
             const HeadOptions &head)
    {
        const double layerScale = 1e-6;
        auto features = register_module("features", std::make_shared<Node>());
        int index = 0;

        auto stem = features->register_module(std::to_string(index++), std::make_shared<Node>());
        m_stemConv = stem->register_module(
            "0", torch::nn::Conv2d(torch::nn::Conv2dOptions(inChannels, stages.front().channels, 4).stride(4).bias(true)));
        m_stemNorm = stem->register_module("1", layerNorm(stages.front().channels));

        int totalBlocks = 0;
        for (const StageConfig &s : stages)
            totalBlocks += s.blocks;
        int blockId = 0;
        for (const StageConfig &s : stages) {
            auto stage = features->register_module(std::to_string(index++), std::make_shared<Node>());
            std::vector<std::shared_ptr<CNBlock>> blocks;
            for (int b = 0; b < s.blocks; ++b, ++blockId) {
                // Linearly increasing drop probability over the depth, as torchvision.
                const double p = stochasticDepthProb * blockId / (totalBlocks - 1.0);
                blocks.push_back(stage->register_module(std::to_string(b), std::make_shared<CNBlock>(s.channels, layerScale, p)));
            }
            m_stages.push_back(std::move(blocks));
            if (s.outChannels > 0) {
                auto down = features->register_module(std::to_string(index++), std::make_shared<Node>());
                Downsample d;
                d.norm = down->register_module("0", layerNorm(s.channels));
                d.conv = down->register_module(
                    "1", torch::nn::Conv2d(torch::nn::Conv2dOptions(s.channels, s.outChannels, 2).stride(2)));
                m_downsamples.push_back(d);
            } else {
                m_downsamples.push_back({});
            }
        }

        const StageConfig &last = stages.back();
        m_embedding = last.outChannels > 0 ? last.outChannels : last.channels;
        auto classifier = register_module("classifier", std::make_shared<Node>());
        m_poolNorm = classifier->register_module("0", layerNorm(m_embedding));
        m_dropout = headDropout(head, 0.0);
        m_hidden = HiddenLayer(*this, m_embedding, head, m_dropout);
        m_fc = classifier->register_module("2", torch::nn::Linear(m_hidden.finalInputSize(), head.numClasses));

        // torchvision initialises every Conv2d and Linear of the network this way; the optional
        // hidden layer is Lathe's and keeps LibTorch's default.
        for (const auto &module : features->modules()) {
            if (auto *conv = module->as<torch::nn::Conv2d>()) {
                truncNormal(conv->weight, 0.02);
                torch::NoGradGuard noGrad;
                conv->bias.zero_();
            } else if (auto *linear = module->as<torch::nn::Linear>()) {
                truncNormal(linear->weight, 0.02);
                torch::NoGradGuard noGrad;
                linear->bias.zero_();
            }
        }
        truncNormal(m_fc->weight, 0.02);
        torch::NoGradGuard noGrad;
        m_fc->bias.zero_();
    }

    torch::Tensor featureMap(torch::Tensor input) override
    {
        torch::Tensor x = layerNorm2d(m_stemNorm, m_stemConv->forward(input));
        for (std::size_t s = 0; s < m_stages.size(); ++s) {
            for (const auto &block : m_stages[s])
                x = block->forward(x);
            if (m_downsamples[s].conv)
                x = m_downsamples[s].conv->forward(layerNorm2d(m_downsamples[s].norm, x));
        }
        return x;
    }

    torch::Tensor pool(torch::Tensor featureMap) override
    {
        // avgpool, classifier.0 (LayerNorm2d), classifier.1 (Flatten)
        torch::Tensor x = featureMap.mean({2, 3}, /*keepdim=*/true);
        return layerNorm2d(m_poolNorm, x).flatten(1);
    }

    torch::Tensor head(torch::Tensor embedding) override
    {
        return linearHead(m_hidden, m_dropout, m_fc, embedding, is_training());
    }

    std::int64_t embeddingSize() const override { return m_embedding; }

private:
    struct Downsample
    {
        torch::nn::LayerNorm norm{nullptr};
        torch::nn::Conv2d conv{nullptr};
    };

    torch::nn::Conv2d m_stemConv{nullptr};
    torch::nn::LayerNorm m_stemNorm{nullptr};
    std::vector<std::vector<std::shared_ptr<CNBlock>>> m_stages;
    std::vector<Downsample> m_downsamples;
    torch::nn::LayerNorm m_poolNorm{nullptr};
    HiddenLayer m_hidden;
    double m_dropout = 0;
    torch::nn::Linear m_fc{nullptr};
    std::int64_t m_embedding = 0;
};

} // namespace

std::shared_ptr<Classifier> createConvNeXt(const std::string &arch, int inChannels, const HeadOptions &head)
{
    if (arch == "convnext_tiny")
        return std::make_shared<ConvNeXt>(
            std::vector<StageConfig>{{96, 192, 3}, {192, 384, 3}, {384, 768, 9}, {768, 0, 3}}, 0.1, inChannels, head);
    throw EngineError("unknown ConvNeXt variant '" + arch + "'");
}

} // namespace lathe::engine::models
