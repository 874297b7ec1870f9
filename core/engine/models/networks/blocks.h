#pragma once

// Engine-internal (LibTorch): building blocks shared by the backbones, with torchvision's
// module and parameter names, forward and initialisation.

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <cstdint>
#include <functional>

namespace lathe::engine::models {

// A container that only gives its children torchvision's names ("0", "block", ...).
struct Node : torch::nn::Module
{
};

// torchvision's _make_divisible (from the TF reference): round to a multiple of 8, never more
// than 10% down.
std::int64_t makeDivisible(double v, std::int64_t divisor = 8);

enum class Activation { None, ReLU, Hardswish, SiLU };

torch::Tensor activate(Activation activation, const torch::Tensor &x);

struct BatchNormParams
{
    double eps = 1e-5;
    double momentum = 0.1;
};

// The training-mode forward of a BatchNorm2d layer can be handed to another function: the
// data-parallel ranks' SyncBatchNorm does (engine/training/sync_batch_norm.h). The backbones call
// their batch norms through batchNorm(), which runs the handed-over function while the layer
// trains and the layer's own forward otherwise. The layers stay torch::nn::BatchNorm2d (their
// names, tensors, freezing and export are untouched); a destroyed layer's function is forgotten.
// (A subclass of BatchNorm2dImpl would be simpler, but Debian's LibTorch 1.13 does not export
// what its vtable needs.) Thread-safe.
using BatchNormForward = std::function<torch::Tensor(torch::nn::BatchNorm2dImpl &, const torch::Tensor &)>;
// An empty forward gives the layer back its own.
void setBatchNormForward(const std::shared_ptr<torch::nn::BatchNorm2dImpl> &layer, BatchNormForward forward);
bool hasBatchNormForward(const torch::nn::BatchNorm2dImpl &layer);
torch::Tensor batchNorm(torch::nn::BatchNorm2dImpl &layer, const torch::Tensor &x);

// Conv2dNormActivation: "0" the bias-free convolution (padding (kernel - 1) / 2), "1"
// BatchNorm2d, "2" the activation (parameterless, registered only when there is one).
class ConvBnActImpl : public torch::nn::Module
{
public:
    ConvBnActImpl(std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t groups,
                  Activation activation, BatchNormParams batchNorm = {});

    torch::Tensor forward(const torch::Tensor &x);

private:
    Activation m_activation;
    torch::nn::Conv2d m_conv{nullptr};
    torch::nn::BatchNorm2d m_bn{nullptr};
};
TORCH_MODULE(ConvBnAct);

// SqueezeExcitation: global average pool, 1x1 convolutions "fc1" and "fc2" (with bias) around
// the activation, then the gate (sigmoid or hardsigmoid) scales the input's channels.
class SqueezeExcitationImpl : public torch::nn::Module
{
public:
    enum class Gate { Sigmoid, Hardsigmoid };

    SqueezeExcitationImpl(std::int64_t channels, std::int64_t squeeze, Activation activation, Gate gate);

    torch::Tensor forward(const torch::Tensor &x);

private:
    Activation m_activation;
    Gate m_gate;
    torch::nn::Conv2d m_fc1{nullptr}, m_fc2{nullptr};
};
TORCH_MODULE(SqueezeExcitation);

// torchvision.ops.stochastic_depth in "row" mode: while training, whole samples of a residual
// branch are dropped with probability p and the survivors rescaled.
torch::Tensor stochasticDepth(const torch::Tensor &x, double p, bool training);

// MobileNetV3's and EfficientNet's initialisation: every Conv2d kaiming-normal (fan out) with a
// zero bias, every BatchNorm2d weight 1 and bias 0, every Linear by initLinear; in the order of
// model.modules(), so the random numbers drawn are torchvision's.
void initConvBnLinear(torch::nn::Module &model, const std::function<void(torch::nn::LinearImpl &)> &initLinear);

// nn.init.trunc_normal_ (its bounds are absolute, so with a small std they never bite): the same
// inverse-CDF construction, hence the same numbers from the same generator state.
void truncNormal(torch::Tensor tensor, double stddev, double low = -2, double high = 2);

// LayerNorm over the last dimension with eps 1e-6 (ConvNeXt's and ViT's).
torch::nn::LayerNorm layerNorm(std::int64_t channels);

} // namespace lathe::engine::models
