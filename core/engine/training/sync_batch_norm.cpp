#include "engine/training/sync_batch_norm.h"

#include "engine/models/networks/blocks.h"

#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/autograd.h>
#include <torch/custom_class.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The all-reduce, kept in the autograd context for the backward pass.
struct Exchange : torch::CustomClassHolder
{
    explicit Exchange(AllReduceSum f)
        : allReduceSum(std::move(f))
    {
    }
    AllReduceSum allReduceSum;
};

struct Statistics
{
    Tensor runningMean, runningVar;
    double momentum = 0.1;
    double eps = 1e-5;
    c10::intrusive_ptr<Exchange> exchange;
};

// The dimensions a channel's statistics run over (all but 1), and the shape that broadcasts a
// (C) tensor against the input.
std::vector<std::int64_t> reducedDims(const Tensor &x)
{
    std::vector<std::int64_t> dims{0};
    for (std::int64_t d = 2; d < x.dim(); ++d)
        dims.push_back(d);
    return dims;
}

std::vector<std::int64_t> channelShape(const Tensor &x)
{
    std::vector<std::int64_t> shape(std::size_t(x.dim()), 1);
    shape[1] = x.size(1);
    return shape;
}

// Autocast would otherwise pick the dtypes of the ops below; the function computes in float32.
struct NoAutocast
{
    c10::impl::ExcludeDispatchKeyGuard guard{c10::autocast_dispatch_keyset};
};

class SyncBatchNormFunction : public torch::autograd::Function<SyncBatchNormFunction>
{
public:
    static Tensor forward(AutogradContext *ctx, const Tensor &input, const Tensor &weight, const Tensor &bias,
                          const Statistics &s)
    {
        NoAutocast noAutocast;
        const Tensor x = input.to(torch::kFloat); // keeps the memory format
        const std::int64_t channels = x.size(1);
        const std::vector<std::int64_t> dims = reducedDims(x), shape = channelShape(x);

        // Welford's mean and variance per rank, sent as float64 sums so that the sum of squares
        // minus the squared mean keeps its digits.
        const auto f64 = x.options().dtype(torch::kDouble);
        Tensor sums = torch::zeros({2 * channels + 1}, f64);
        if (x.numel() > 0) {
            const double n = double(x.numel() / channels);
            const auto [var, mean] = torch::var_mean(x, dims, /*unbiased=*/false, /*keepdim=*/false);
            const Tensor m = mean.to(torch::kDouble);
            sums = torch::cat({m * n, (var.to(torch::kDouble) + m * m) * n, torch::full({1}, n, f64)});
        }
        s.exchange->allReduceSum(sums);
        const Tensor count = sums.narrow(0, 2 * channels, 1);
        const Tensor meanAll = sums.narrow(0, 0, channels) / count;
        const Tensor varAll = (sums.narrow(0, channels, channels) / count - meanAll * meanAll).clamp_min(0);
        const Tensor mean = meanAll.to(torch::kFloat);
        const Tensor invstd = (varAll + s.eps).rsqrt().to(torch::kFloat);

        if (s.runningMean.defined()) {
            const Tensor unbiased = varAll * count / (count - 1).clamp_min(1);
            s.runningMean.mul_(1 - s.momentum).add_(mean.to(s.runningMean.scalar_type()), s.momentum);
            s.runningVar.mul_(1 - s.momentum).add_(unbiased.to(s.runningVar.scalar_type()), s.momentum);
        }

        // y = x * scale + shift per channel, as BatchNorm2d on the CPU, written in x's layout.
        const Tensor scale = invstd * weight.to(torch::kFloat);
        const Tensor shift = bias.to(torch::kFloat) - mean * scale;
        Tensor y = torch::empty_like(x);
        torch::addcmul_out(y, shift.view(shape), x, scale.view(shape));

        ctx->save_for_backward({input, weight, mean, invstd, count.to(torch::kFloat)});
        ctx->saved_data["exchange"] = c10::IValue::make_capsule(c10::intrusive_ptr<torch::CustomClassHolder>(s.exchange));
        return y.to(input.scalar_type());
    }

    static variable_list backward(AutogradContext *ctx, variable_list grads)
    {
        NoAutocast noAutocast;
        const variable_list saved = ctx->get_saved_variables();
        const Tensor &input = saved[0], &weight = saved[1], &mean = saved[2], &invstd = saved[3], &count = saved[4];
        if (!grads[0].defined())
            return {Tensor(), Tensor(), Tensor(), Tensor()};
        const Tensor dy = grads[0].to(torch::kFloat);
        const Tensor x = input.to(torch::kFloat);
        const std::int64_t channels = x.size(1);
        const std::vector<std::int64_t> dims = reducedDims(x), shape = channelShape(x);

        Tensor xmu = x - mean.view(shape);
        const Tensor sumDy = dy.sum(dims);
        const Tensor sumDyXmu = (dy * xmu).sum(dims);
        Tensor gradInput, gradWeight, gradBias;
        if (ctx->needs_input_grad(1))
            gradWeight = sumDyXmu * invstd;
        if (ctx->needs_input_grad(2))
            gradBias = sumDy;
        if (ctx->needs_input_grad(0)) {
            // The whole batch's sums, as SyncBatchNorm's batch_norm_backward_elemt:
            // dx = (dy - mean(dy) - (x - mean) * invstd^2 * mean(dy * (x - mean))) * invstd * weight.
            const c10::intrusive_ptr<torch::CustomClassHolder> exchange = ctx->saved_data["exchange"].toCapsule();
            Tensor combined = torch::cat({sumDy, sumDyXmu});
            static_cast<Exchange *>(exchange.get())->allReduceSum(combined);
            const Tensor meanDy = combined.narrow(0, 0, channels) / count;
            const Tensor meanDyXmu = combined.narrow(0, channels, channels) / count;
            const Tensor k = invstd * invstd * meanDyXmu;
            const Tensor a = invstd * weight.to(torch::kFloat);
            gradInput = xmu.mul_(-k.view(shape)).add_(dy).sub_(meanDy.view(shape)).mul_(a.view(shape));
            gradInput = gradInput.to(input.scalar_type());
        }
        return {gradInput, gradWeight, gradBias, Tensor()};
    }
};

} // namespace

Tensor syncBatchNorm(const Tensor &input, const Tensor &weight, const Tensor &bias, const Tensor &runningMean,
                     const Tensor &runningVar, double momentum, double eps, const AllReduceSum &allReduceSum)
{
    TORCH_CHECK(input.dim() >= 2, "SyncBatchNorm: expected an (N, C, ...) input (got ", input.dim(), "D input)");
    Statistics s;
    s.runningMean = runningMean;
    s.runningVar = runningVar;
    s.momentum = momentum;
    s.eps = eps;
    s.exchange = c10::make_intrusive<Exchange>(allReduceSum);
    // Without affine parameters, the identity's (autograd takes no undefined inputs here).
    const auto options = input.options().dtype(torch::kFloat);
    return SyncBatchNormFunction::apply(input, weight.defined() ? weight : torch::ones({input.size(1)}, options),
                                        bias.defined() ? bias : torch::zeros({input.size(1)}, options), s);
}

Tensor syncBatchNorm(torch::nn::BatchNorm2dImpl &bn, const Tensor &input, const AllReduceSum &allReduceSum)
{
    if (!bn.is_training())
        return bn.forward(input);
    TORCH_CHECK(input.dim() == 4, "SyncBatchNorm: expected 4D input (got ", input.dim(), "D input)");
    const auto &options = bn.options;
    double momentum = options.momentum().value_or(0.0);
    const bool track = options.track_running_stats();
    if (track && bn.num_batches_tracked.defined()) {
        torch::NoGradGuard noGrad;
        bn.num_batches_tracked += 1;
        if (!options.momentum().has_value())
            momentum = 1.0 / bn.num_batches_tracked.item<double>();
    }
    return syncBatchNorm(input, bn.weight, bn.bias, track ? bn.running_mean : Tensor(),
                         track ? bn.running_var : Tensor(), momentum, options.eps(), allReduceSum);
}

int convertToSyncBatchNorm(torch::nn::Module &model, AllReduceSum allReduceSum)
{
    int converted = 0;
    for (const auto &item : model.named_modules("", /*include_self=*/true)) {
        const auto bn = std::dynamic_pointer_cast<torch::nn::BatchNorm2dImpl>(item.value());
        if (!bn)
            continue;
        if (allReduceSum)
            models::setBatchNormForward(bn, [allReduceSum](torch::nn::BatchNorm2dImpl &module, const Tensor &x) {
                return syncBatchNorm(module, x, allReduceSum);
            });
        else
            models::setBatchNormForward(bn, nullptr);
        ++converted;
    }
    return converted;
}

} // namespace lathe::engine
