// ResNet-18/34/50/101 with torchvision's module names, forward and initialisation
// (torchvision.models.resnet, zero_init_residual=False, groups=1, width_per_group=64).

#include "engine/models/networks/families.h"

#include "engine/base/engine_error.h"
#include "engine/models/networks/blocks.h"
#include "engine/models/networks/head.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>

#include <vector>

namespace lathe::engine::models {
namespace {

namespace F = torch::nn::functional;

torch::nn::Conv2d conv(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride)
{
    return torch::nn::Conv2d(
        torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(kernel / 2).bias(false));
}

// BasicBlock (two 3x3 convolutions) or Bottleneck (1x1, 3x3 carrying the stride, 1x1 x4).
class ResidualBlockImpl : public torch::nn::Module
{
public:
    ResidualBlockImpl(bool bottleneck, std::int64_t inPlanes, std::int64_t planes, std::int64_t stride)
        : m_bottleneck(bottleneck)
    {
        const std::int64_t outPlanes = planes * (bottleneck ? 4 : 1);
        if (bottleneck) {
            m_conv1 = register_module("conv1", conv(inPlanes, planes, 1, 1));
            m_bn1 = register_module("bn1", torch::nn::BatchNorm2d(planes));
            m_conv2 = register_module("conv2", conv(planes, planes, 3, stride));
            m_bn2 = register_module("bn2", torch::nn::BatchNorm2d(planes));
            m_conv3 = register_module("conv3", conv(planes, outPlanes, 1, 1));
            m_bn3 = register_module("bn3", torch::nn::BatchNorm2d(outPlanes));
        } else {
            m_conv1 = register_module("conv1", conv(inPlanes, planes, 3, stride));
            m_bn1 = register_module("bn1", torch::nn::BatchNorm2d(planes));
            m_conv2 = register_module("conv2", conv(planes, planes, 3, 1));
            m_bn2 = register_module("bn2", torch::nn::BatchNorm2d(planes));
        }
        if (stride != 1 || inPlanes != outPlanes) {
            m_downsample = register_module("downsample", torch::nn::Sequential(conv(inPlanes, outPlanes, 1, stride),
                                                                               torch::nn::BatchNorm2d(outPlanes)));
        }
    }

    torch::Tensor forward(torch::Tensor x)
    {
        // In place where autograd allows, as torchvision (ReLU(inplace=True), out += identity):
        // ReLU's backward needs only its output and batch norm's only its input, so the
        // activations are not allocated twice.
        torch::Tensor out = batchNorm(*m_bn1, m_conv1->forward(x)).relu_();
        out = batchNorm(*m_bn2, m_conv2->forward(out));
        if (m_bottleneck)
            out = batchNorm(*m_bn3, m_conv3->forward(out.relu_()));
        // The Sequential names the downsample's tensors as torchvision does; its batch norm goes
        // through batchNorm() as the others do.
        out.add_(m_downsample ? batchNorm(*m_downsample[1]->as<torch::nn::BatchNorm2d>(), m_downsample[0]->as<torch::nn::Conv2d>()->forward(x))
                              : x);
        return out.relu_();
    }

private:
    bool m_bottleneck;
    torch::nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr}, m_conv3{nullptr};
    torch::nn::BatchNorm2d m_bn1{nullptr}, m_bn2{nullptr}, m_bn3{nullptr};
    torch::nn::Sequential m_downsample{nullptr};
};
TORCH_MODULE(ResidualBlock);

class ResNet : public Classifier
{
public:
    ResNet(bool bottleneck, const std::vector<int> &layers, int inChannels, const HeadOptions &head)
        : m_dropout(headDropout(head, 0.0))
    {
        m_conv1 = register_module("conv1", conv(inChannels, 64, 7, 2));
        m_bn1 = register_module("bn1", torch::nn::BatchNorm2d(64));
        std::int64_t inPlanes = 64;
        for (int i = 0; i < 4; ++i) {
            const std::int64_t planes = std::int64_t(64) << i;
            torch::nn::Sequential layer;
            for (int b = 0; b < layers[i]; ++b) {
                layer->push_back(ResidualBlock(bottleneck, inPlanes, planes, b == 0 && i > 0 ? 2 : 1));
                inPlanes = planes * (bottleneck ? 4 : 1);
            }
            m_layers.push_back(register_module("layer" + std::to_string(i + 1), layer));
        }
        m_embeddingSize = inPlanes;
        m_hidden = HiddenLayer(*this, m_embeddingSize, head, m_dropout);
        m_fc = register_module("fc", torch::nn::Linear(m_hidden.finalInputSize(), head.numClasses));

        // Linear layers keep PyTorch's default initialisation, as in torchvision.
        for (const auto &module : modules(/*include_self=*/false)) {
            if (auto *c = module->as<torch::nn::Conv2d>()) {
                torch::nn::init::kaiming_normal_(c->weight, 0.0, torch::kFanOut, torch::kReLU);
            } else if (auto *bn = module->as<torch::nn::BatchNorm2d>()) {
                torch::nn::init::ones_(bn->weight);
                torch::nn::init::zeros_(bn->bias);
            }
        }
    }

    torch::Tensor featureMap(torch::Tensor x) override
    {
        x = batchNorm(*m_bn1, m_conv1->forward(x)).relu_();
        x = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
        for (auto &layer : m_layers)
            x = layer->forward(x);
        return x;
    }

    torch::Tensor pool(torch::Tensor x) override
    {
        return torch::flatten(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1)), 1);
    }

    torch::Tensor head(torch::Tensor x) override
    {
        // torchvision's ResNet has no dropout; only an explicit option adds one.
        return linearHead(m_hidden, m_dropout, m_fc, x, is_training());
    }

    std::int64_t embeddingSize() const override { return m_embeddingSize; }

private:
    double m_dropout;
    std::int64_t m_embeddingSize = 0;
    torch::nn::Conv2d m_conv1{nullptr};
    torch::nn::BatchNorm2d m_bn1{nullptr};
    std::vector<torch::nn::Sequential> m_layers;
    HiddenLayer m_hidden;
    torch::nn::Linear m_fc{nullptr};
};

} // namespace

std::shared_ptr<Classifier> createResNet(const std::string &arch, int inChannels, const HeadOptions &head)
{
    if (arch == "resnet18")
        return std::make_shared<ResNet>(false, std::vector<int>{2, 2, 2, 2}, inChannels, head);
    if (arch == "resnet34")
        return std::make_shared<ResNet>(false, std::vector<int>{3, 4, 6, 3}, inChannels, head);
    if (arch == "resnet50")
        return std::make_shared<ResNet>(true, std::vector<int>{3, 4, 6, 3}, inChannels, head);
    if (arch == "resnet101")
        return std::make_shared<ResNet>(true, std::vector<int>{3, 4, 23, 3}, inChannels, head);
    throw EngineError("unknown ResNet architecture '" + arch + "'");
}

} // namespace lathe::engine::models
