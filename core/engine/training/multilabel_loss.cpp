#include "engine/training/multilabel_loss.h"

#include "engine/base/engine_error.h"
#include "engine/base/error_text.h"

#include <ATen/ops/binary_cross_entropy_with_logits.h>
#include <torch/types.h>

#include <cmath>
#include <sstream>

namespace lathe::engine {
namespace {

// A setting that must be finite and within [0, upper) (upper < 0: no upper bound).
void checkSetting(const char *name, double value, double upper)
{
    if (!std::isfinite(value) || value < 0 || (upper >= 0 && value >= upper))
        throw EngineError(std::string("loss.") + name + ": must be >= 0" +
                          (upper >= 0 ? " and < " + numberText(upper) : std::string()) + " (got " + numberText(value) + ")");
}

// base^gamma for base >= 0 and gamma > 0, with a finite gradient where base is 0: pow's own
// backward there is 0 * gamma * 0^(gamma - 1), NaN for gamma < 1 (and the masks of clamp and
// where multiply it, they do not remove it), so the base is swapped for 1 where it is 0.
torch::Tensor focusingWeight(const torch::Tensor &base, double gamma)
{
    const torch::Tensor positive = base > 0;
    return torch::where(positive, torch::pow(torch::where(positive, base, torch::ones_like(base)), gamma),
                        torch::zeros_like(base));
}

} // namespace

torch::Tensor multiLabelLoss(const MultiLabelLossOptions &options, const torch::Tensor &logits,
                             const torch::Tensor &targets, const torch::Tensor &positiveWeights)
{
    const bool asymmetric = options.name == "asymmetric";
    if (options.name != "bce" && !asymmetric)
        throw EngineError("loss.name: unknown multi-label loss '" + options.name + "' (expected bce or asymmetric)");
    const double smoothing = options.labelSmoothing;
    if (!(smoothing >= 0 && smoothing <= 1))
        throw EngineError("loss.label_smoothing: must be within [0, 1] (got " + numberText(smoothing) + ")");
    if (asymmetric) {
        checkSetting("gamma_neg", options.gammaNeg, -1);
        checkSetting("gamma_pos", options.gammaPos, -1);
        checkSetting("clip", options.clip, 1);
        checkSetting("eps", options.eps, 1);
    }
    if (!logits.defined() || logits.dim() != 2 || logits.size(0) < 1 || logits.size(1) < 1 ||
        !c10::isFloatingType(logits.scalar_type()))
        throw EngineError("loss: logits must be floating [N, K] with N, K >= 1 (got " +
                          (logits.defined() ? std::string(c10::toString(logits.scalar_type())) + " " + shapeText(logits)
                                            : std::string("none")) +
                          ")");
    if (!targets.defined() || targets.sizes() != logits.sizes() || !c10::isFloatingType(targets.scalar_type()))
        throw EngineError("loss: targets must be floating " + shapeText(logits) + " like the logits (got " +
                          (targets.defined() ? std::string(c10::toString(targets.scalar_type())) + " " + shapeText(targets)
                                             : std::string("none")) +
                          ")");
    const std::int64_t n = logits.size(0);
    const std::int64_t k = logits.size(1);

    const torch::Tensor x = logits.to(torch::kFloat);
    torch::Tensor y = targets.to(x.device(), torch::kFloat);
    // NaN fails both comparisons, so the check is written as "not inside".
    if (torch::logical_not(torch::logical_and(y >= 0, y <= 1)).any().item<bool>())
        throw EngineError("loss: a target is outside [0, 1]");
    torch::Tensor w;
    if (positiveWeights.defined()) {
        if (positiveWeights.dim() != 1 || positiveWeights.size(0) != k ||
            !c10::isFloatingType(positiveWeights.scalar_type()))
            throw EngineError("loss: positive weights must be float [" + std::to_string(k) + "] (got " +
                              shapeText(positiveWeights) + ")");
        w = positiveWeights.to(x.device(), torch::kFloat);
        if (torch::logical_not(torch::logical_and(torch::isfinite(w), w >= 0)).any().item<bool>())
            throw EngineError("loss: positive weights must be finite and >= 0");
    }
    if (smoothing > 0)
        y = y * (1 - smoothing) + smoothing / 2;

    if (!asymmetric)
        return at::binary_cross_entropy_with_logits(x, y, c10::nullopt,
                                                    w.defined() ? c10::optional<at::Tensor>(w) : c10::nullopt,
                                                    at::Reduction::Mean);

    // The authors' order of operations: p, then the shifted complement 1 - p_m = min(1 - p + m, 1).
    const torch::Tensor p = torch::sigmoid(x);
    torch::Tensor complement = 1 - p;
    if (options.clip > 0)
        complement = (complement + options.clip).clamp_max(1);
    torch::Tensor positive = y * torch::log(p.clamp_min(options.eps));
    torch::Tensor negative = (1 - y) * torch::log(complement.clamp_min(options.eps));
    if (w.defined())
        positive = positive * w.unsqueeze(0);
    if (options.gammaPos > 0) {
        torch::Tensor focus = focusingWeight(1 - p, options.gammaPos);
        positive = positive * (options.detachFocusingWeights ? focus.detach() : focus);
    }
    if (options.gammaNeg > 0) {
        torch::Tensor focus = focusingWeight(1 - complement, options.gammaNeg);
        negative = negative * (options.detachFocusingWeights ? focus.detach() : focus);
    }
    return -(positive + negative).sum() / double(n * k);
}

torch::Tensor positiveWeightsFromCounts(const std::vector<std::int64_t> &positives, std::int64_t images)
{
    if (positives.empty())
        throw EngineError("positive weights: no labels");
    if (images < 1)
        throw EngineError("positive weights: no training images");
    std::vector<float> weights(positives.size(), 1.0f);
    for (std::size_t i = 0; i < positives.size(); ++i) {
        const std::int64_t pos = positives[i];
        if (pos < 0 || pos > images)
            throw EngineError("positive weights: label " + std::to_string(i) + " has " + std::to_string(pos) +
                              " positives of " + std::to_string(images) + " images");
        if (pos > 0 && pos < images)
            weights[i] = float(double(images - pos) / double(pos));
    }
    return torch::tensor(weights, torch::kFloat);
}

} // namespace lathe::engine
