#pragma once

// Engine-internal: includes LibTorch. PyTorch's torch.nn.SyncBatchNorm for the data-parallel
// ranks: while training, every BatchNorm normalises with the mean and variance of the whole
// batch across the ranks instead of its rank's share.

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/types.h>

#include <functional>

namespace lathe::engine {

// Sums a tensor over the ranks in place; a collective, as RankGroup::allReduceSum, which is
// what the trainer passes: [group](torch::Tensor &t) { group->allReduceSum(t); }.
using AllReduceSum = std::function<void(torch::Tensor &)>;

// Batch norm in training mode over the ranks' batches together, as torch.nn.SyncBatchNorm.
// input is (N, C, ...) in any memory format (a channels-last input gives a channels-last
// output); weight and bias are (C) or undefined (affine=False); running statistics are updated
// in place when defined: mean with momentum, variance with momentum and the unbiased variance of
// the whole batch. Forward sends one float64 tensor [sum (C), sum of squares (C), count] through
// allReduceSum; backward one float32 tensor [sum dy (C), sum dy * (x - mean) (C)] (only when
// the input needs a gradient), and returns the weight and bias gradients of this rank's share
// (the trainer's gradient all-reduce adds them up). Computes in float32 whatever the input's
// dtype and autocast, and returns the input's dtype. Every rank must call it with the same C.
torch::Tensor syncBatchNorm(const torch::Tensor &input, const torch::Tensor &weight, const torch::Tensor &bias,
                            const torch::Tensor &runningMean, const torch::Tensor &runningVar, double momentum,
                            double eps, const AllReduceSum &allReduceSum);

// One forward of a BatchNorm2d module with syncBatchNorm while it trains: counts the batch in
// num_batches_tracked and takes its momentum as BatchNorm2d does (the cumulative average when
// momentum is unset). In eval mode it is the module's own forward: running statistics, no
// communication.
torch::Tensor syncBatchNorm(torch::nn::BatchNorm2dImpl &bn, const torch::Tensor &input,
                            const AllReduceSum &allReduceSum);

// torch.nn.SyncBatchNorm.convert_sync_batchnorm for Lathe's backbones: hands the training-mode
// forward of every BatchNorm2d in the model to syncBatchNorm over allReduceSum
// (models::setBatchNormForward; the backbones call their batch norms through models::batchNorm,
// engine/models/networks/blocks.h). The modules stay where they are, so the parameters, buffers,
// their names, the state_dict, checkpoints and BatchNorm freezing (eval mode: running
// statistics, no communication) are unchanged. An empty allReduceSum gives them back their own
// forward. Returns the number of layers converted. Call it once the model is on its device and
// only with more than one rank: with one, the results equal BatchNorm2d's up to rounding, at the
// cost of a slower forward.
int convertToSyncBatchNorm(torch::nn::Module &model, AllReduceSum allReduceSum);

} // namespace lathe::engine
