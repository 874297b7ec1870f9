#pragma once

// Engine-internal: includes LibTorch. Optimizers over the trainable parameter groups, and their
// per-parameter state as named tensors for checkpoints.

#include "engine/formats/safetensors.h"
#include "engine/models/freezing.h"
#include "engine/run/run_config.h"

#include <torch/optim/optimizer.h>

#include <memory>
#include <vector>

namespace lathe::engine {

// SGD (momentum, nesterov, dampening 0), AdamW (decoupled weight decay as PyTorch's AdamW) or
// RMSprop (not centered), with PyTorch's update rules. One optimizer param group per
// ParameterGroup, in order, with lr = config.lr * lrMultiplier and weight decay 0 for groups
// without decay. Throws EngineError naming the optimizer.* field for settings the optimizer
// cannot take, and for no parameters or an empty group. With LibTorch 2.4 or later, AdamW and
// SGD with momentum take their step with LibTorch's fused kernels (torch::optim's classes, state
// and rules; one pass over each parameter instead of a few tensor operations).
std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const OptimizerConfig &config,
                                                       const std::vector<ParameterGroup> &groups);

// Group lr = baseLr * that group's multiplier (call before every step with the schedule's lr).
void setLearningRate(torch::optim::Optimizer &optimizer, double baseLr, const std::vector<ParameterGroup> &groups);

// The per-parameter state as "optimizer.<parameter name>.<key>": SGD momentum_buffer; AdamW
// step, exp_avg, exp_avg_sq (and max_exp_avg_sq with amsgrad); RMSprop step, square_avg,
// momentum_buffer, grad_avg (those in use). step is an int64 scalar tensor. Parameters that have
// not been stepped yet have no entries. The tensors share memory with the optimizer: write them
// out (or clone them) before the next step.
NamedTensors optimizerState(const torch::optim::Optimizer &optimizer, const std::vector<ParameterGroup> &groups);

// Restores what optimizerState() returned (entries without the "optimizer." prefix are ignored,
// so a whole checkpoint may be passed), copying onto each parameter's device and dtype, so that
// the next step is bit-identical to the one the saved optimizer would have taken. Entries for
// parameters not in the groups (frozen now) are ignored; a parameter without entries starts
// afresh. Throws EngineError naming the tensor for an unknown key, a wrong shape or dtype, or a
// missing partner (exp_avg without exp_avg_sq).
void loadOptimizerState(torch::optim::Optimizer &optimizer, const std::vector<ParameterGroup> &groups,
                        const NamedTensors &state);

// Scales the gradients of every group so that their global L2 norm is at most maxNorm (as
// torch.nn.utils.clip_grad_norm_); returns the norm before clipping as a 0-d float32 tensor on
// the gradients' device. Nothing waits for the device (the scale factor is clamped there, as
// PyTorch does). With fp16 loss scaling, unscale the gradients first (GradScaler::unscale).
torch::Tensor clipGradNorm(const std::vector<ParameterGroup> &groups, double maxNorm);

} // namespace lathe::engine
