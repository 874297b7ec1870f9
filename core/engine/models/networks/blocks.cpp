#include "engine/models/networks/blocks.h"

#include <torch/nn/functional/pooling.h>
#include <torch/nn/init.h>
#include <torch/nn/modules/container/functional.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace lathe::engine::models {

std::int64_t makeDivisible(double v, std::int64_t divisor)
{
    std::int64_t rounded = std::max<std::int64_t>(divisor, std::int64_t(v + double(divisor) / 2) / divisor * divisor);
    if (double(rounded) < 0.9 * v)
        rounded += divisor;
    return rounded;
}

torch::Tensor activate(Activation activation, const torch::Tensor &x)
{
    switch (activation) {
    case Activation::ReLU:
        return torch::relu(x);
    case Activation::Hardswish:
        return torch::hardswish(x);
    case Activation::SiLU:
        return torch::silu(x);
    case Activation::None:
        break;
    }
    return x;
}

namespace {

// The layers whose training forward was handed over, by address; the weak pointer tells a live
// layer from a destroyed one whose address was reused.
struct HandedOver
{
    std::weak_ptr<torch::nn::BatchNorm2dImpl> layer;
    BatchNormForward forward;
};
std::mutex g_handedOverMutex;
std::unordered_map<const torch::nn::BatchNorm2dImpl *, HandedOver> g_handedOver;
std::atomic<std::size_t> g_handedOverCount{0}; // batchNorm()'s lock-free way out when none is

BatchNormForward handedOverForward(const torch::nn::BatchNorm2dImpl &layer)
{
    if (g_handedOverCount.load(std::memory_order_relaxed) == 0)
        return {};
    std::lock_guard<std::mutex> lock(g_handedOverMutex);
    const auto it = g_handedOver.find(&layer);
    if (it == g_handedOver.end())
        return {};
    if (it->second.layer.lock().get() != &layer) {
        g_handedOver.erase(it);
        g_handedOverCount = g_handedOver.size();
        return {};
    }
    return it->second.forward;
}

} // namespace

void setBatchNormForward(const std::shared_ptr<torch::nn::BatchNorm2dImpl> &layer, BatchNormForward forward)
{
    std::lock_guard<std::mutex> lock(g_handedOverMutex);
    for (auto it = g_handedOver.begin(); it != g_handedOver.end();)
        it = it->second.layer.expired() ? g_handedOver.erase(it) : std::next(it);
    if (forward)
        g_handedOver[layer.get()] = {layer, std::move(forward)};
    else
        g_handedOver.erase(layer.get());
    g_handedOverCount = g_handedOver.size();
}

bool hasBatchNormForward(const torch::nn::BatchNorm2dImpl &layer)
{
    return bool(handedOverForward(layer));
}

torch::Tensor batchNorm(torch::nn::BatchNorm2dImpl &layer, const torch::Tensor &x)
{
    if (layer.is_training())
        if (const BatchNormForward forward = handedOverForward(layer))
            return forward(layer, x);
    return layer.forward(x);
}

ConvBnActImpl::ConvBnActImpl(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride,
                             std::int64_t groups, Activation activation, BatchNormParams batchNorm)
    : m_activation(activation)
{
    m_conv = register_module("0", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                                                         .stride(stride)
                                                         .padding((kernel - 1) / 2)
                                                         .groups(groups)
                                                         .bias(false)));
    m_bn = register_module(
        "1", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(out).eps(batchNorm.eps).momentum(batchNorm.momentum)));
    if (activation != Activation::None)
        register_module("2", torch::nn::Functional([activation](torch::Tensor x) { return activate(activation, x); }));
}

torch::Tensor ConvBnActImpl::forward(const torch::Tensor &x)
{
    torch::Tensor y = models::batchNorm(*m_bn, m_conv->forward(x));
    // ReLU in place (its backward needs only its output; batch norm's only its input), as
    // torchvision's ReLU(inplace=True). Hardswish and SiLU need their input for the backward
    // pass, so in place would only trade the new tensor for autograd's saved copy.
    return m_activation == Activation::ReLU ? y.relu_() : activate(m_activation, y);
}

SqueezeExcitationImpl::SqueezeExcitationImpl(std::int64_t channels, std::int64_t squeeze, Activation activation,
                                             Gate gate)
    : m_activation(activation)
    , m_gate(gate)
{
    m_fc1 = register_module("fc1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, squeeze, 1)));
    m_fc2 = register_module("fc2", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeeze, channels, 1)));
}

torch::Tensor SqueezeExcitationImpl::forward(const torch::Tensor &x)
{
    namespace F = torch::nn::functional;
    torch::Tensor scale = F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions(1));
    scale = m_fc2->forward(activate(m_activation, m_fc1->forward(scale)));
    scale = m_gate == Gate::Sigmoid ? torch::sigmoid(scale) : torch::hardsigmoid(scale);
    return scale * x;
}

torch::Tensor stochasticDepth(const torch::Tensor &x, double p, bool training)
{
    if (!training || p == 0)
        return x;
    const double survival = 1 - p;
    std::vector<std::int64_t> shape(std::size_t(x.dim()), 1);
    shape[0] = x.size(0);
    torch::Tensor noise = torch::empty(shape, x.options()).bernoulli_(survival);
    if (survival > 0)
        noise.div_(survival);
    return x * noise;
}

void initConvBnLinear(torch::nn::Module &model, const std::function<void(torch::nn::LinearImpl &)> &initLinear)
{
    for (const auto &module : model.modules(/*include_self=*/false)) {
        if (auto *conv = module->as<torch::nn::Conv2d>()) {
            torch::nn::init::kaiming_normal_(conv->weight, 0.0, torch::kFanOut);
            if (conv->bias.defined())
                torch::nn::init::zeros_(conv->bias);
        } else if (auto *bn = module->as<torch::nn::BatchNorm2d>()) {
            torch::nn::init::ones_(bn->weight);
            torch::nn::init::zeros_(bn->bias);
        } else if (auto *linear = module->as<torch::nn::Linear>()) {
            initLinear(*linear);
        }
    }
}

void truncNormal(torch::Tensor tensor, double stddev, double low, double high)
{
    torch::NoGradGuard noGrad;
    auto cdf = [](double x) { return (1 + std::erf(x / std::sqrt(2.0))) / 2; };
    tensor.uniform_(2 * cdf(low / stddev) - 1, 2 * cdf(high / stddev) - 1);
    tensor.erfinv_().mul_(stddev * std::sqrt(2.0)).clamp_(low, high);
}

torch::nn::LayerNorm layerNorm(std::int64_t channels)
{
    return torch::nn::LayerNorm(torch::nn::LayerNormOptions({channels}).eps(1e-6));
}

} // namespace lathe::engine::models
