// MobileNetV3 small/large with torchvision's module names, forward and initialisation
// (torchvision.models.mobilenetv3, width_mult=1, no reduced tail, no dilation).

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
#include <vector>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

enum class Activation { None, ReLU, Hardswish };

torch::Tensor activate(Activation a, torch::Tensor x)
{
    switch (a) {
    case Activation::ReLU:
        return torch::relu(x);
    case Activation::Hardswish:
        return torch::hardswish(x);
    case Activation::None:
        break;
    }
    return x;
}

// torchvision's _make_divisible (from the TF reference): round to a multiple of 8, never more
// than 10% down.
std::int64_t makeDivisible(double v, std::int64_t divisor = 8)
{
    std::int64_t rounded = std::max<std::int64_t>(divisor, std::int64_t(v + double(divisor) / 2) / divisor * divisor);
    if (double(rounded) < 0.9 * v)
        rounded += divisor;
    return rounded;
}

torch::nn::BatchNorm2d batchNorm(std::int64_t channels)
{
    return torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(channels).eps(0.001).momentum(0.01));
}

// Conv2dNormActivation: "0" the bias-free convolution, "1" BatchNorm, "2" the activation.
class ConvBnActImpl : public torch::nn::Module
{
public:
    ConvBnActImpl(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t groups,
                  Activation activation)
        : m_activation(activation)
    {
        m_conv = register_module("0", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                                                             .stride(stride)
                                                             .padding((kernel - 1) / 2)
                                                             .groups(groups)
                                                             .bias(false)));
        m_bn = register_module("1", batchNorm(out));
        if (activation != Activation::None)
            register_module("2", torch::nn::Functional([activation](torch::Tensor x) { return activate(activation, x); }));
    }

    torch::Tensor forward(torch::Tensor x) { return activate(m_activation, m_bn->forward(m_conv->forward(x))); }

private:
    Activation m_activation;
    torch::nn::Conv2d m_conv{nullptr};
    torch::nn::BatchNorm2d m_bn{nullptr};
};
TORCH_MODULE(ConvBnAct);

// SqueezeExcitation with ReLU and hardsigmoid, 1x1 convolutions "fc1"/"fc2" with bias.
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
        scale = torch::hardsigmoid(m_fc2->forward(torch::relu(m_fc1->forward(scale))));
        return scale * x;
    }

private:
    torch::nn::Conv2d m_fc1{nullptr}, m_fc2{nullptr};
};
TORCH_MODULE(SqueezeExcitation);

struct BlockConfig
{
    std::int64_t in, kernel, expanded, out;
    bool se;
    Activation activation;
    std::int64_t stride;
};

// InvertedResidual: "block" = [expand 1x1] depthwise [SE] project, residual when shapes allow.
class InvertedResidualImpl : public torch::nn::Module
{
public:
    explicit InvertedResidualImpl(const BlockConfig &c)
        : m_residual(c.stride == 1 && c.in == c.out)
    {
        torch::nn::Sequential block;
        if (c.expanded != c.in)
            block->push_back(ConvBnAct(c.in, c.expanded, 1, 1, 1, c.activation));
        block->push_back(ConvBnAct(c.expanded, c.expanded, c.kernel, c.stride, c.expanded, c.activation));
        if (c.se)
            block->push_back(SqueezeExcitation(c.expanded, makeDivisible(double(c.expanded / 4))));
        block->push_back(ConvBnAct(c.expanded, c.out, 1, 1, 1, Activation::None));
        m_block = register_module("block", block);
    }

    torch::Tensor forward(torch::Tensor x)
    {
        torch::Tensor out = m_block->forward(x);
        return m_residual ? out + x : out;
    }

private:
    bool m_residual;
    torch::nn::Sequential m_block{nullptr};
};
TORCH_MODULE(InvertedResidual);

class MobileNetV3 : public Classifier
{
public:
    MobileNetV3(const std::vector<BlockConfig> &blocks, std::int64_t lastChannel, int inChannels,
                const HeadOptions &head)
        : m_embeddingSize(lastChannel)
    {
        const double dropout = headDropout(head, 0.2);
        torch::nn::Sequential features;
        features->push_back(ConvBnAct(inChannels, blocks.front().in, 3, 2, 1, Activation::Hardswish));
        for (const BlockConfig &c : blocks)
            features->push_back(InvertedResidual(c));
        const std::int64_t lastConv = 6 * blocks.back().out;
        features->push_back(ConvBnAct(blocks.back().out, lastConv, 1, 1, 1, Activation::Hardswish));
        m_features = register_module("features", features);

        m_hidden = HiddenLayer(*this, lastChannel, head, dropout);
        m_fc0 = torch::nn::Linear(lastConv, lastChannel);
        m_dropout = torch::nn::Dropout(dropout);
        m_fc3 = torch::nn::Linear(m_hidden.finalInputSize(), head.numClasses);
        torch::nn::Sequential classifier;
        classifier->push_back(m_fc0);
        classifier->push_back(torch::nn::Functional([](torch::Tensor x) { return torch::hardswish(x); }));
        classifier->push_back(m_dropout);
        classifier->push_back(m_fc3);
        register_module("classifier", classifier);

        for (const auto &module : modules(/*include_self=*/false)) {
            if (auto *c = module->as<torch::nn::Conv2d>()) {
                torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut);
                if (c->bias.defined())
                    torch::nn::init::zeros_(c->bias);
            } else if (auto *bn = module->as<torch::nn::BatchNorm2d>()) {
                torch::nn::init::ones_(bn->weight);
                torch::nn::init::zeros_(bn->bias);
            } else if (auto *linear = module->as<torch::nn::Linear>()) {
                torch::nn::init::normal_(linear->weight, 0, 0.01);
                torch::nn::init::zeros_(linear->bias);
            }
        }
    }

    torch::Tensor featureMap(torch::Tensor x) override { return m_features->forward(x); }

    torch::Tensor pool(torch::Tensor x) override
    {
        x = torch::flatten(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)), 1);
        return torch::hardswish(m_fc0->forward(x));
    }

    torch::Tensor head(torch::Tensor x) override
    {
        return m_fc3->forward(m_dropout->forward(m_hidden.apply(x, is_training())));
    }

    std::int64_t embeddingSize() const override { return m_embeddingSize; }

private:
    std::int64_t m_embeddingSize;
    torch::nn::Sequential m_features{nullptr};
    HiddenLayer m_hidden;
    torch::nn::Linear m_fc0{nullptr}, m_fc3{nullptr};
    torch::nn::Dropout m_dropout{nullptr};
};

} // namespace

std::shared_ptr<Classifier> createMobileNetV3(const std::string &arch, int inChannels, const HeadOptions &head)
{
    constexpr auto RE = Activation::ReLU;
    constexpr auto HS = Activation::Hardswish;
    // Tables 1 and 2 of the MobileNetV3 paper: in, kernel, expanded, out, SE, activation, stride.
    if (arch == "mobilenet_v3_large") {
        const std::vector<BlockConfig> blocks{
            {16, 3, 16, 16, false, RE, 1},    {16, 3, 64, 24, false, RE, 2},    {24, 3, 72, 24, false, RE, 1},
            {24, 5, 72, 40, true, RE, 2},     {40, 5, 120, 40, true, RE, 1},    {40, 5, 120, 40, true, RE, 1},
            {40, 3, 240, 80, false, HS, 2},   {80, 3, 200, 80, false, HS, 1},   {80, 3, 184, 80, false, HS, 1},
            {80, 3, 184, 80, false, HS, 1},   {80, 3, 480, 112, true, HS, 1},   {112, 3, 672, 112, true, HS, 1},
            {112, 5, 672, 160, true, HS, 2},  {160, 5, 960, 160, true, HS, 1},  {160, 5, 960, 160, true, HS, 1},
        };
        return std::make_shared<MobileNetV3>(blocks, 1280, inChannels, head);
    }
    if (arch == "mobilenet_v3_small") {
        const std::vector<BlockConfig> blocks{
            {16, 3, 16, 16, true, RE, 2},    {16, 3, 72, 24, false, RE, 2},   {24, 3, 88, 24, false, RE, 1},
            {24, 5, 96, 40, true, HS, 2},    {40, 5, 240, 40, true, HS, 1},   {40, 5, 240, 40, true, HS, 1},
            {40, 5, 120, 48, true, HS, 1},   {48, 5, 144, 48, true, HS, 1},   {48, 5, 288, 96, true, HS, 2},
            {96, 5, 576, 96, true, HS, 1},   {96, 5, 576, 96, true, HS, 1},
        };
        return std::make_shared<MobileNetV3>(blocks, 1024, inChannels, head);
    }
    throw EngineError("unknown MobileNetV3 architecture '" + arch + "'");
}

} // namespace lathe::engine::models
