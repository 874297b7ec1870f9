#pragma once

// Engine-internal: includes LibTorch. The losses of multi-label classification: every label is
// its own yes/no question answered by a sigmoid over its logit (the single-label losses, over a
// softmax, are loss_functions.h's).

#include <torch/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

struct MultiLabelLossOptions
{
    std::string name = "bce"; // "bce" or "asymmetric"
    // Label smoothing e in [0, 1]: every target t becomes t * (1 - e) + e / 2 (each label is a
    // two-class problem) before either loss sees it.
    double labelSmoothing = 0;
    // asymmetric only (defaults: the paper's recommended settings, gamma_pos 0 as in its
    // training scripts). All must be finite and >= 0; clip and eps below 1.
    double gammaNeg = 4;  // focusing exponent of the negative term
    double gammaPos = 0;  // focusing exponent of the positive term
    double clip = 0.05;   // probability shifting margin m of the negative term (0: none)
    double eps = 1e-8;    // probabilities are clamped to >= eps before their log
    // The authors' AsymmetricLoss computes the focusing weights without autograd
    // (disable_torch_grad_focal_loss=True, its default and that of their training scripts): the
    // gradient treats them as constants. false: the full gradient of the loss as written.
    bool detachFocusingWeights = true;
};

// The mean loss of a batch as a float32 scalar, computed in float32 whatever the logits' dtype.
//   logits           [N, K], N, K >= 1, any floating dtype, any device
//   targets          float [N, K] in [0, 1]: 0/1 label sets, or soft ones (Mixup/CutMix mix
//                    two images' label sets)
//   positiveWeights  undefined, or float [K] finite and >= 0: w_k multiplies the positive
//                    term of label k (PyTorch's pos_weight; positiveWeightsFromCounts)
// With y = t * (1 - e) + e / 2 the smoothed target, p = sigmoid(x) and w = w_k (1 without
// weights), the element losses are averaged over all N * K elements:
//
// bce: -[w y log p + (1 - y) log(1 - p)], exactly
//   F.binary_cross_entropy_with_logits(logits, y, pos_weight=w) with mean reduction (ATen's own
//   kernel, which is stable for any logit).
//
// asymmetric (Ridnik et al., "Asymmetric Loss For Multi-Label Classification", ICCV 2021):
//   p_m = max(p - m, 0)                                     (probability shifting, negatives only)
//   L+  = (1 - p)^gamma_pos * log(max(p, eps))
//   L-  = p_m^gamma_neg * log(max(1 - p_m, eps))
//   loss = -[w y L+ + (1 - y) L-]
// computed as the authors' AsymmetricLoss computes it (sigmoid, then 1 - p + m clamped to 1,
// then the clamped logs), so for 0/1 targets it is their loss up to the reduction: theirs
// returns the sum over the batch, Lathe divides that sum by N * K so that the learning rates
// of BCE and ASL live on the same scale. For soft targets Lathe keeps the two terms apart
// (the loss is linear in the target, as BCE is, so a Mixup of two label sets gets the mix of
// their losses); the authors' code instead interpolates the focusing exponent and the focusing
// base between the two terms, which agrees with this only for targets that are 0 or 1. A zero
// exponent means no focusing weight at all (0^0 would be 1 anyway). With gamma_pos = gamma_neg
// = clip = 0 this is BCE, except for the eps clamp.
//
// Throws EngineError ("loss: ...") for an unknown name, settings out of range, shapes that do
// not fit, targets outside [0, 1] (or NaN), or positive weights that are negative or not finite.
torch::Tensor multiLabelLoss(const MultiLabelLossOptions &options, const torch::Tensor &logits,
                             const torch::Tensor &targets, const torch::Tensor &positiveWeights = {});

// Per-label positive weights (float32 [K]) from the training split: positives[k] images of
// `images` carry label k, and its weight is negatives / positives = (images - positives[k]) /
// positives[k], as PyTorch's BCEWithLogitsLoss documentation suggests for pos_weight, so that
// a label's positives weigh as much in the loss as its negatives. A label with no positives, or
// one that every image carries (no negatives), gets weight 1: there is nothing to balance, and
// neg/pos would be infinite (a label seen only through soft targets) or 0 (a label whose loss
// would vanish). Throws EngineError for no labels, images < 1, or a count outside [0, images].
torch::Tensor positiveWeightsFromCounts(const std::vector<std::int64_t> &positives, std::int64_t images);

} // namespace lathe::engine
