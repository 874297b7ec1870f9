// EfficientNet B0-B4 with torchvision's module names, forward and initialisation
// (torchvision.models.efficientnet: MBConv blocks, BatchNorm2d defaults, stochastic depth 0.2).

#include "families.h"

#include "engine_error.h"
#include "head.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/functional.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

// torchvision's _make_divisible (from the TF reference): round to a multiple of 8, never more
// than 10% down.
std::int64_t makeDivisible(double v, std::int64_t divisor = 8)
{
    std::int64_t rounded = std::max<std::int64_t>(divisor, std::int64_t(v + double(divisor) / 2) / divisor * divisor);
    if (double(rounded) < 0.9 * v)
        rounded += divisor;
    return rounded;
}

// Conv2dNormActivation: "0" the bias-free convolution, "1" BatchNorm, "2" SiLU (when used).
class ConvBnActImpl : public torch::nn::Module
{
public:
    ConvBnActImpl(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t groups,
                  bool silu)
        : m_silu(silu)
    {
        m_conv = register_module("0", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                                                             .stride(stride)
                                                             .padding((kernel - 1) / 2)
                                                             .groups(groups)
                                                             .bias(false)));
        m_bn = register_module("1", torch::nn::BatchNorm2d(out));
        if (silu)
            register_module("2", torch::nn::Functional([](torch::Tensor x) { return torch::silu(x); }));
    }

    torch::Tensor forward(torch::Tensor x)
    {
        x = m_bn->forward(m_conv->forward(x));
        return m_silu ? torch::silu(x) : x;
    }

private:
    bool m_silu;
    torch::nn::Conv2d m_conv{nullptr};
    torch::nn::BatchNorm2d m_bn{nullptr};
};
TORCH_MODULE(ConvBnAct);

// SqueezeExcitation with SiLU and sigmoid, 1x1 convolutions "fc1"/"fc2" with bias.
class SqueezeExcitationImpl : public torch::nn::Module
{
public:
    SqueezeExcitationImpl(std::int64_t channels, std::int64_t squeeze)
    {
        m_fc1 = register_module("fc1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, squeeze, 1)));
        m_fc2 = register_module("fc2", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeeze, channels, 1)));
    }

    torch::Tensor forward(torch::Tensor x)
    {
        torch::Tensor scale = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1));
        scale = torch::sigmoid(m_fc2->forward(torch::silu(m_fc1->forward(scale))));
        return scale * x;
    }

private:
    torch::nn::Conv2d m_fc1{nullptr}, m_fc2{nullptr};
};
TORCH_MODULE(SqueezeExcitation);

// MBConv: "block" = [expand 1x1] depthwise SE project; on the residual path the block's output
// is dropped per sample during training (StochasticDepth "row" mode) before the skip is added.
class MBConvImpl : public torch::nn::Module
{
public:
    MBConvImpl(double expandRatio, std::int64_t kernel, std::int64_t stride, std::int64_t in, std::int64_t out,
               double stochasticDepth)
        : m_residual(stride == 1 && in == out)
        , m_stochasticDepth(stochasticDepth)
    {
        const std::int64_t expanded = makeDivisible(double(in) * expandRatio);
        torch::nn::Sequential block;
        if (expanded != in)
            block->push_back(ConvBnAct(in, expanded, 1, 1, 1, true));
        block->push_back(ConvBnAct(expanded, expanded, kernel, stride, expanded, true));
        block->push_back(SqueezeExcitation(expanded, std::max<std::int64_t>(1, in / 4)));
        block->push_back(ConvBnAct(expanded, out, 1, 1, 1, false));
        m_block = register_module("block", block);
    }

    torch::Tensor forward(torch::Tensor x)
    {
        torch::Tensor out = m_block->forward(x);
        if (!m_residual)
            return out;
        if (is_training() && m_stochasticDepth > 0) {
            const double survival = 1.0 - m_stochasticDepth;
            std::vector<std::int64_t> size(std::size_t(out.dim()), 1);
            size[0] = out.size(0);
            torch::Tensor noise = torch::empty(size, out.options()).bernoulli_(survival);
            if (survival > 0)
                noise.div_(survival);
            out = out * noise;
        }
        return out + x;
    }

private:
    bool m_residual;
    double m_stochasticDepth;
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
        features->push_back(ConvBnAct(inChannels, stages.front().in, 3, 2, 1, true));
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
        features->push_back(ConvBnAct(stages.back().out, m_embeddingSize, 1, 1, 1, true));
        m_features = register_module("features", features);

        const double dropout = headDropout(head, defaultDropout);
        m_hidden = HiddenLayer(*this, m_embeddingSize, head, dropout);
        m_dropout = torch::nn::Dropout(dropout);
        m_fc = torch::nn::Linear(m_hidden.finalInputSize(), head.numClasses);
        register_module("classifier", torch::nn::Sequential(m_dropout, m_fc));

        for (const auto &module : modules(/*include_self=*/false)) {
            if (auto *conv = module->as<torch::nn::Conv2d>()) {
                torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut);
                if (conv->bias.defined())
                    torch::nn::init::zeros_(conv->bias);
            } else if (auto *bn = module->as<torch::nn::BatchNorm2d>()) {
                torch::nn::init::ones_(bn->weight);
                torch::nn::init::zeros_(bn->bias);
            } else if (auto *linear = module->as<torch::nn::Linear>()) {
                const double range = 1.0 / std::sqrt(double(linear->weight.size(0)));
                torch::nn::init::uniform_(linear->weight, -range, range);
                torch::nn::init::zeros_(linear->bias);
            }
        }
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
