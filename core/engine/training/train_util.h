#pragma once

// Engine-internal (training only): includes LibTorch. The few helpers that the trainer, the
// rank trainer and the feature cache all use (an event's Unix time: base/clock.h).

#include "engine/base/clock.h"
#include <torch/torch.h>

#include <chrono>

namespace lathe::engine {

using Clock = std::chrono::steady_clock;

// optimizer.zero_grad(set_to_none=True), PyTorch's default: backward() then writes each
// gradient instead of adding it to zeros (one pass less over every gradient each step); a
// parameter without one is skipped by the optimizer, as in PyTorch.
inline void clearGradients(torch::optim::Optimizer &optimizer)
{
    for (auto &group : optimizer.param_groups())
        for (auto &p : group.params())
            p.mutable_grad().reset();
}

// data.channels_last: the 4-d parameters and buffers in NHWC, to match the input batches.
inline void toChannelsLast(torch::nn::Module &model)
{
    torch::NoGradGuard noGrad;
    for (auto &p : model.parameters())
        if (p.dim() == 4)
            p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
    for (auto &b : model.buffers())
        if (b.dim() == 4)
            b.set_data(b.contiguous(at::MemoryFormat::ChannelsLast));
}

} // namespace lathe::engine
