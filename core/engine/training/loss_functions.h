#pragma once

// Engine-internal: includes LibTorch. The classification losses of a run.

#include "engine/run/run_config.h"

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace lathe::engine {

// The mean loss of a batch, computed in float32 whatever the logits' dtype.
//   logits   [N, K]
//   targets  int64 [N] class indices, or float [N, K] class probabilities (Mixup/CutMix)
//   classWeights  undefined, or [K] per-class weights
//
// cross_entropy: exactly F.cross_entropy(logits, targets, weight=, label_smoothing=) (ATen's own
// kernel). With hard targets and weights the mean divides by the summed weights of the targets,
// and label smoothing mixes (1 - e) * that weighted NLL with e / K * sum_i sum_k w_k * -log p_ik
// divided by the same sum. With soft targets the targets are smoothed as t * (1 - e) + e / K
// and the loss is sum_i sum_k w_k t_ik * -log p_ik / N: not normalised by the weights, so a
// one-hot soft target equals its hard target only without weights (PyTorch's rule).
//
// focal (Lin et al., multi-class): the same formulas with every -log p_ik replaced by
// -(1 - p_ik)^gamma * log p_ik, so that weights and label smoothing combine as for cross
// entropy, and gamma 0 is cross entropy.
//
// Throws EngineError ("loss: ...") for shapes that do not fit, targets outside [0, K), an
// unknown loss name or settings out of range.
torch::Tensor classificationLoss(const LossConfig &config, const torch::Tensor &logits, const torch::Tensor &targets,
                                 const torch::Tensor &classWeights = {});

// Inverse-frequency class weights (float32 [K]) from per-class example counts, normalised so
// that their mean over the classes that have examples is 1 (balanced counts give all ones).
// Classes without examples get weight 0: they cannot appear as targets, and a huge weight
// would only matter for soft targets. Throws EngineError for no classes, negative counts or
// no examples at all.
torch::Tensor classWeightsFromCounts(const std::vector<std::int64_t> &counts);

// The loss a run trains and validates with: classificationLoss for single-label datasets, and
// multiLabelLoss (training/multilabel_loss.h) for multi-label ones, whose targets are the
// batches' multi-hot rows. data.balance class_weights gives per-class weights (single-label)
// or per-label positive weights (multi-label: negatives / positives of each label).
// Throws EngineError ("loss.name: ...") for a loss that does not fit the task.
class RunLoss
{
public:
    // counts: the training split's examples per class (multi-label: images carrying each
    // label); images: its records.
    RunLoss(const RunConfig &config, bool multiLabel, const std::vector<std::int64_t> &counts, std::int64_t images,
            const torch::Device &device);
    // targets: int64 labels [N] or float [N, K] (soft or multi-hot).
    torch::Tensor operator()(const torch::Tensor &logits, const torch::Tensor &targets) const;
    bool multiLabel() const { return m_multiLabel; }
    // The description for the run's log ("binary cross-entropy per label", ...).
    std::string describe() const;

private:
    LossConfig m_config;
    bool m_multiLabel = false;
    torch::Tensor m_weights;
};

} // namespace lathe::engine
