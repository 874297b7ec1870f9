#include "engine/training/loss_functions.h"
#include "engine/training/multilabel_loss.h"

#include "engine/base/engine_error.h"
#include "engine/base/error_text.h"

#include <ATen/ops/cross_entropy_loss.h>
#include <torch/nn/functional.h>
#include <torch/types.h>

#include <cmath>
#include <sstream>

namespace lathe::engine {

torch::Tensor classificationLoss(const LossConfig &config, const torch::Tensor &logits, const torch::Tensor &targets,
                                 const torch::Tensor &classWeights)
{
    if (config.name != "cross_entropy" && config.name != "focal")
        throw EngineError("loss.name: unknown loss '" + config.name + "' (expected cross_entropy or focal)");
    const double smoothing = config.labelSmoothing;
    if (!(smoothing >= 0 && smoothing <= 1))
        throw EngineError("loss.label_smoothing: must be within [0, 1] (got " + numberText(smoothing) + ")");
    if (config.name == "focal" && (!(config.focalGamma >= 0) || !std::isfinite(config.focalGamma)))
        throw EngineError("loss.focal_gamma: must be >= 0 (got " + numberText(config.focalGamma) + ")");
    if (!logits.defined() || logits.dim() != 2 || logits.size(0) < 1 || logits.size(1) < 1)
        throw EngineError("loss: logits must be [N, K] with N, K >= 1 (got " +
                          (logits.defined() ? shapeText(logits) : std::string("none")) + ")");
    if (!targets.defined())
        throw EngineError("loss: no targets");
    const std::int64_t n = logits.size(0);
    const std::int64_t k = logits.size(1);
    const bool soft = c10::isFloatingType(targets.scalar_type());
    if (soft) {
        if (targets.sizes() != logits.sizes())
            throw EngineError("loss: soft targets must be " + shapeText(logits) + " like the logits (got " +
                              shapeText(targets) + ")");
    } else {
        if (!c10::isIntegralType(targets.scalar_type(), false) || targets.dim() != 1 || targets.size(0) != n)
            throw EngineError("loss: targets must be int64 [" + std::to_string(n) + "] class indices (got " +
                              std::string(c10::toString(targets.scalar_type())) + " " + shapeText(targets) + ")");
        // Checked here: on CUDA an index out of range is a device-side assert, not an exception.
        if (torch::logical_or(targets < 0, targets >= k).any().item<bool>())
            throw EngineError("loss: a target is outside [0, " + std::to_string(k) + ")");
    }
    torch::Tensor weight;
    if (classWeights.defined()) {
        if (classWeights.dim() != 1 || classWeights.size(0) != k || !c10::isFloatingType(classWeights.scalar_type()))
            throw EngineError("loss: class weights must be float [" + std::to_string(k) + "] (got " +
                              shapeText(classWeights) + ")");
        weight = classWeights.to(logits.device(), torch::kFloat);
    }

    const torch::Tensor x = logits.to(torch::kFloat);
    const torch::Tensor t = soft ? targets.to(x.device(), torch::kFloat) : targets.to(x.device(), torch::kLong);
    if (config.name == "cross_entropy")
        return at::cross_entropy_loss(x, t, weight.defined() ? c10::optional<at::Tensor>(weight) : c10::nullopt,
                                      at::Reduction::Mean, -100, smoothing);

    // Focal: cross entropy's reductions over -(1 - p)^gamma * log p.
    const torch::Tensor logp = torch::log_softmax(x, 1);
    const torch::Tensor modulation = torch::neg(torch::expm1(logp)).clamp_min(0).pow(config.focalGamma);
    torch::Tensor terms = -(modulation * logp); // [N, K]
    if (soft) {
        torch::Tensor q = smoothing > 0 ? t * (1 - smoothing) + smoothing / double(k) : t;
        if (weight.defined())
            q = q * weight.unsqueeze(0);
        return (q * terms).sum() / double(n);
    }
    const torch::Tensor picked = terms.gather(1, t.unsqueeze(1)).squeeze(1); // [N]
    torch::Tensor targetWeights;
    torch::Tensor denominator;
    if (weight.defined()) {
        targetWeights = weight.index_select(0, t);
        denominator = targetWeights.sum();
        terms = terms * weight.unsqueeze(0);
    }
    const torch::Tensor main = weight.defined() ? (picked * targetWeights).sum() / denominator : picked.mean();
    if (smoothing == 0)
        return main;
    const torch::Tensor smooth = weight.defined() ? terms.sum() / denominator : terms.sum(1).mean();
    return (1 - smoothing) * main + smooth * (smoothing / double(k));
}

torch::Tensor classWeightsFromCounts(const std::vector<std::int64_t> &counts)
{
    if (counts.empty())
        throw EngineError("class weights: no classes");
    double inverseSum = 0;
    int present = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        if (counts[i] < 0)
            throw EngineError("class weights: class " + std::to_string(i) + " has a negative count (" +
                              std::to_string(counts[i]) + ")");
        if (counts[i] > 0) {
            inverseSum += 1.0 / double(counts[i]);
            ++present;
        }
    }
    if (present == 0)
        throw EngineError("class weights: no class has training examples");
    std::vector<float> weights(counts.size(), 0.0f);
    for (std::size_t i = 0; i < counts.size(); ++i)
        if (counts[i] > 0)
            weights[i] = float(double(present) / (double(counts[i]) * inverseSum));
    return torch::tensor(weights, torch::kFloat);
}

RunLoss::RunLoss(const RunConfig &config, bool multiLabel, const std::vector<std::int64_t> &counts, std::int64_t images,
                 const torch::Device &device)
    : m_config(config.loss)
    , m_multiLabel(multiLabel)
{
    const std::string &name = m_config.name;
    if (multiLabel && name == "focal")
        throw EngineError("loss.name: focal loss is for single-label datasets; this dataset is multi-label "
                          "(use bce or asymmetric)");
    if (!multiLabel && (name == "bce" || name == "asymmetric"))
        throw EngineError("loss.name: " + name + " is for multi-label datasets; this dataset is single-label "
                          "(use cross_entropy or focal)");
    if (config.data.balance == "class_weights")
        m_weights = (multiLabel ? positiveWeightsFromCounts(counts, images) : classWeightsFromCounts(counts)).to(device);
}

torch::Tensor RunLoss::operator()(const torch::Tensor &logits, const torch::Tensor &targets) const
{
    if (!m_multiLabel)
        return classificationLoss(m_config, logits, targets, m_weights);
    MultiLabelLossOptions o;
    o.name = m_config.name == "asymmetric" ? "asymmetric" : "bce";
    o.labelSmoothing = m_config.labelSmoothing;
    o.gammaNeg = m_config.aslGammaNeg;
    o.gammaPos = m_config.aslGammaPos;
    o.clip = m_config.aslClip;
    // Class indices (synthetic batches of the finders): one label each.
    const torch::Tensor t = targets.scalar_type() == torch::kLong
                                ? torch::nn::functional::one_hot(targets, logits.size(-1)).to(torch::kFloat32)
                                : targets;
    return multiLabelLoss(o, logits, t, m_weights);
}

std::string RunLoss::describe() const
{
    if (!m_multiLabel)
        return m_config.name == "focal" ? "focal loss" : "cross entropy";
    return m_config.name == "asymmetric" ? "multi-label: asymmetric loss per label" : "multi-label: binary cross-entropy per label";
}

} // namespace lathe::engine
