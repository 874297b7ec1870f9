// MobileNetV3 small/large with torchvision's module names, forward and initialisation
// (torchvision.models.mobilenetv3, width_mult=1, no reduced tail, no dilation).

#include "engine/models/networks/families.h"

#include "engine/models/networks/blocks.h"

#include "engine/base/engine_error.h"
#include "engine/models/networks/head.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/container/functional.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/linear.h>

#include <algorithm>
#include <vector>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

// BatchNorm2d(eps=0.001, momentum=0.01), as torchvision's MobileNetV3.
constexpr BatchNormParams kBatchNorm{0.001, 0.01};

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
            block->push_back(ConvBnAct(c.in, c.expanded, 1, 1, 1, c.activation, kBatchNorm));
        block->push_back(ConvBnAct(c.expanded, c.expanded, c.kernel, c.stride, c.expanded, c.activation, kBatchNorm));
        if (c.se)
            block->push_back(SqueezeExcitation(c.expanded, makeDivisible(double(c.expanded / 4)), Activation::ReLU,
                                               SqueezeExcitationImpl::Gate::Hardsigmoid));
        block->push_back(ConvBnAct(c.expanded, c.out, 1, 1, 1, Activation::None, kBatchNorm));
        m_block = register_module("block", block);
    }

    torch::Tensor forward(torch::Tensor x)
    {
        torch::Tensor out = m_block->forward(x);
        return m_residual ? out.add_(x) : out; // as torchvision's result += input (out is batch norm's output)
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
        features->push_back(ConvBnAct(inChannels, blocks.front().in, 3, 2, 1, Activation::Hardswish, kBatchNorm));
        for (const BlockConfig &c : blocks)
            features->push_back(InvertedResidual(c));
        const std::int64_t lastConv = 6 * blocks.back().out;
        features->push_back(ConvBnAct(blocks.back().out, lastConv, 1, 1, 1, Activation::Hardswish, kBatchNorm));
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

        initConvBnLinear(*this, [](torch::nn::LinearImpl &linear) {
            torch::nn::init::normal_(linear.weight, 0, 0.01);
            torch::nn::init::zeros_(linear.bias);
        });
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
