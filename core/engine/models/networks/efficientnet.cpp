// EfficientNet B0-B4 with torchvision's module names, forward and initialisation
// (torchvision.models.efficientnet: MBConv blocks, BatchNorm2d defaults, stochastic depth 0.2).

#include "engine/models/networks/families.h"

#include "engine/models/networks/blocks.h"

#include "engine/base/engine_error.h"
#include "engine/models/networks/head.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

// MBConv: "block" = [expand 1x1] depthwise SE project; on the residual path the block's output
// is dropped per sample during training (StochasticDepth "row" mode) before the skip is added.
class MBConvImpl : public torch::nn::Module
{
public:
    MBConvImpl(double expandRatio, std::int64_t kernel, std::int64_t stride, std::int64_t in, std::int64_t out,
               double dropProbability)
        : m_residual(stride == 1 && in == out)
        , m_dropProbability(dropProbability)
    {
        const std::int64_t expanded = makeDivisible(double(in) * expandRatio);
        torch::nn::Sequential block;
        if (expanded != in)
            block->push_back(ConvBnAct(in, expanded, 1, 1, 1, Activation::SiLU));
        block->push_back(ConvBnAct(expanded, expanded, kernel, stride, expanded, Activation::SiLU));
        block->push_back(SqueezeExcitation(expanded, std::max<std::int64_t>(1, in / 4), Activation::SiLU,
                                           SqueezeExcitationImpl::Gate::Sigmoid));
        block->push_back(ConvBnAct(expanded, out, 1, 1, 1, Activation::None));
        m_block = register_module("block", block);
    }

    torch::Tensor forward(torch::Tensor x)
    {
        torch::Tensor out = m_block->forward(x);
        return m_residual ? stochasticDepth(out, m_dropProbability, is_training()).add_(x) : out; // torchvision: result += input
    }

private:
    bool m_residual;
    double m_dropProbability;
    torch::nn::Sequential m_block{nullptr};
};
TORCH_MODULE(MBConv);

// One stage of blocks, named "0", "1", ... like the nn.Sequential torchvision uses (LibTorch's
// Sequential cannot hold another Sequential).
class StageImpl : public torch::nn::Module
{
public:
    void add(MBConv block) { m_blocks.push_back(register_module(std::to_string(m_blocks.size()), block)); }

    torch::Tensor forward(torch::Tensor x)
    {
        for (auto &block : m_blocks)
            x = block->forward(x);
        return x;
    }

private:
    std::vector<MBConv> m_blocks;
};
TORCH_MODULE(Stage);

struct StageConfig
{
    double expandRatio;
    std::int64_t kernel, stride, in, out, layers;
};

class EfficientNet : public Classifier
{
public:
    EfficientNet(double widthMult, double depthMult, double defaultDropout, int inChannels, const HeadOptions &head)
    {
        // Table 1 of the EfficientNet paper (B0), scaled by width and depth.
        const std::vector<StageConfig> base{{1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},   {6, 5, 2, 24, 40, 2},
                                            {6, 3, 2, 40, 80, 3},  {6, 5, 1, 80, 112, 3},  {6, 5, 2, 112, 192, 4},
                                            {6, 3, 1, 192, 320, 1}};
        std::vector<StageConfig> stages;
        std::int64_t totalBlocks = 0;
        for (StageConfig c : base) {
            c.in = makeDivisible(double(c.in) * widthMult);
            c.out = makeDivisible(double(c.out) * widthMult);
            c.layers = std::int64_t(std::ceil(double(c.layers) * depthMult));
            totalBlocks += c.layers;
            stages.push_back(c);
        }

        const double stochasticDepth = 0.2;
        torch::nn::Sequential features;
        features->push_back(ConvBnAct(inChannels, stages.front().in, 3, 2, 1, Activation::SiLU));
        std::int64_t blockId = 0;
        for (const StageConfig &c : stages) {
            Stage stage;
            for (std::int64_t i = 0; i < c.layers; ++i) {
                const double p = stochasticDepth * double(blockId) / double(totalBlocks);
                stage->add(MBConv(c.expandRatio, c.kernel, i == 0 ? c.stride : 1, i == 0 ? c.in : c.out, c.out, p));
                ++blockId;
            }
            features->push_back(stage);
        }
        m_embeddingSize = 4 * stages.back().out;
        features->push_back(ConvBnAct(stages.back().out, m_embeddingSize, 1, 1, 1, Activation::SiLU));
        m_features = register_module("features", features);

        const double dropout = headDropout(head, defaultDropout);
        m_hidden = HiddenLayer(*this, m_embeddingSize, head, dropout);
        m_dropout = torch::nn::Dropout(dropout);
        m_fc = torch::nn::Linear(m_hidden.finalInputSize(), head.numClasses);
        register_module("classifier", torch::nn::Sequential(m_dropout, m_fc));

        initConvBnLinear(*this, [](torch::nn::LinearImpl &linear) {
            const double range = 1.0 / std::sqrt(double(linear.weight.size(0)));
            torch::nn::init::uniform_(linear.weight, -range, range);
            torch::nn::init::zeros_(linear.bias);
        });
    }

    torch::Tensor featureMap(torch::Tensor x) override { return m_features->forward(x); }

    torch::Tensor pool(torch::Tensor x) override
    {
        return torch::flatten(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)), 1);
    }

    torch::Tensor head(torch::Tensor x) override
    {
        return m_fc->forward(m_dropout->forward(m_hidden.apply(x, is_training())));
    }

    std::int64_t embeddingSize() const override { return m_embeddingSize; }

private:
    std::int64_t m_embeddingSize = 0;
    torch::nn::Sequential m_features{nullptr};
    HiddenLayer m_hidden;
    torch::nn::Dropout m_dropout{nullptr};
    torch::nn::Linear m_fc{nullptr};
};

} // namespace

std::shared_ptr<Classifier> createEfficientNet(const std::string &arch, int inChannels, const HeadOptions &head)
{
    // width multiplier, depth multiplier, dropout before the classifier (torchvision's builders)
    if (arch == "efficientnet_b0")
        return std::make_shared<EfficientNet>(1.0, 1.0, 0.2, inChannels, head);
    if (arch == "efficientnet_b1")
        return std::make_shared<EfficientNet>(1.0, 1.1, 0.2, inChannels, head);
    if (arch == "efficientnet_b2")
        return std::make_shared<EfficientNet>(1.1, 1.2, 0.3, inChannels, head);
    if (arch == "efficientnet_b3")
        return std::make_shared<EfficientNet>(1.2, 1.4, 0.3, inChannels, head);
    if (arch == "efficientnet_b4")
        return std::make_shared<EfficientNet>(1.4, 1.8, 0.4, inChannels, head);
    throw EngineError("unknown EfficientNet architecture '" + arch + "'");
}

} // namespace lathe::engine::models
