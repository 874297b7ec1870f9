#include "engine/training/grad_scaler.h"

#include "engine/base/engine_error.h"
#include "engine/base/error_text.h"

#include <ATen/ops/_amp_foreach_non_finite_check_and_unscale.h>
#include <ATen/ops/_amp_update_scale.h>
#include <torch/types.h>

#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

namespace lathe::engine {
namespace {

const std::string kPrefix = "grad_scaler.";

} // namespace

GradScaler::GradScaler(double initScale, double growthFactor, double backoffFactor, int growthInterval, bool enabled)
    : m_initScale(initScale)
    , m_growthFactor(growthFactor)
    , m_backoffFactor(backoffFactor)
    , m_growthInterval(growthInterval)
    , m_enabled(enabled)
{
    if (!(initScale > 0) || !std::isfinite(initScale))
        throw EngineError("grad scaler: initial scale must be > 0 (got " + numberText(initScale) + ")");
    if (!(growthFactor > 1) || !std::isfinite(growthFactor))
        throw EngineError("grad scaler: growth factor must be > 1 (got " + numberText(growthFactor) + ")");
    if (!(backoffFactor > 0 && backoffFactor < 1))
        throw EngineError("grad scaler: backoff factor must be within (0, 1) (got " + numberText(backoffFactor) + ")");
    if (growthInterval < 1)
        throw EngineError("grad scaler: growth interval must be >= 1 (got " + std::to_string(growthInterval) + ")");
}

void GradScaler::ensureScale(const torch::Device &device)
{
    if (!m_scale.defined()) {
        m_scale = torch::full({1}, m_initScale, torch::TensorOptions().dtype(torch::kFloat).device(device));
        m_growthTracker = torch::zeros({1}, torch::TensorOptions().dtype(torch::kInt).device(device));
    } else if (m_scale.device() != device) {
        m_scale = m_scale.to(device);
        m_growthTracker = m_growthTracker.to(device);
    }
}

torch::Tensor GradScaler::scale(const torch::Tensor &loss)
{
    if (!m_enabled)
        return loss;
    ensureScale(loss.device());
    torch::Tensor scaled = loss * m_scale;
    // A 0-d loss stays 0-d, so that backward() and item() work as on the loss itself.
    return loss.dim() == 0 ? scaled.reshape({}) : scaled;
}

bool GradScaler::unscale(torch::optim::Optimizer &optimizer)
{
    if (!m_enabled)
        return true;
    if (m_unscaled)
        throw EngineError("grad scaler: unscale() was already called this step (call update() after each step)");
    if (!m_scale.defined())
        throw EngineError("grad scaler: unscale() before scale(): the gradients were not scaled");

    torch::NoGradGuard noGrad;
    // PyTorch's reciprocal: in double, then rounded to float32.
    const torch::Tensor inverse = m_scale.to(torch::kDouble).reciprocal().to(torch::kFloat);
    torch::Tensor found = torch::zeros({1}, m_scale.options().dtype(torch::kFloat));

    std::map<std::pair<std::string, int>, std::vector<torch::Tensor>> cudaGrads; // by (device, dtype)
    for (auto &group : optimizer.param_groups()) {
        for (auto &parameter : group.params()) {
            const torch::Tensor &grad = parameter.grad();
            if (!grad.defined())
                continue;
            if (grad.is_sparse())
                throw EngineError("grad scaler: sparse gradients are not supported");
            if (grad.is_cuda()) {
                cudaGrads[{grad.device().str(), int(grad.scalar_type())}].push_back(grad);
                continue;
            }
            // The CPU has no fused kernel in LibTorch 1.13: the same check and multiplication.
            const torch::Tensor nonFinite = torch::logical_not(torch::isfinite(grad)).any();
            found = torch::maximum(found, nonFinite.to(found.device(), torch::kFloat).reshape({1}));
            grad.mul_(inverse.to(grad.device()));
        }
    }
    for (auto &[key, grads] : cudaGrads) {
        const torch::Device device(key.first);
        torch::Tensor foundHere = torch::zeros({1}, torch::TensorOptions().dtype(torch::kFloat).device(device));
        at::_amp_foreach_non_finite_check_and_unscale_(grads, foundHere, inverse.to(device));
        found = torch::maximum(found, foundHere.to(found.device()));
    }
    m_foundInf = found;
    m_foundInfValue = found.item<float>() > 0;
    m_unscaled = true;
    return !m_foundInfValue;
}

bool GradScaler::step(torch::optim::Optimizer &optimizer)
{
    if (!m_enabled) {
        optimizer.step();
        return true;
    }
    if (m_stepped)
        throw EngineError("grad scaler: step() was already called this step (call update() after each step)");
    if (!m_unscaled)
        unscale(optimizer);
    m_stepped = true;
    if (m_foundInfValue) {
        ++m_skipped;
        return false;
    }
    optimizer.step();
    return true;
}

void GradScaler::update()
{
    if (!m_enabled)
        return;
    if (!m_unscaled)
        throw EngineError("grad scaler: update() without unscale() or step() in this step");
    if (m_scale.is_cuda()) {
        at::_amp_update_scale_(m_scale, m_growthTracker, m_foundInf, m_growthFactor, m_backoffFactor,
                               m_growthInterval);
    } else {
        // _amp_update_scale_'s arithmetic: the float scale times the double factor, stored as float.
        float &scale = *m_scale.data_ptr<float>();
        std::int32_t &tracker = *m_growthTracker.data_ptr<std::int32_t>();
        if (m_foundInfValue) {
            scale = static_cast<float>(scale * m_backoffFactor);
            tracker = 0;
        } else if (tracker + 1 == m_growthInterval) {
            const float grown = static_cast<float>(scale * m_growthFactor);
            if (std::isfinite(grown))
                scale = grown;
            tracker = 0;
        } else {
            ++tracker;
        }
    }
    m_unscaled = false;
    m_stepped = false;
    m_foundInfValue = false;
    m_foundInf = torch::Tensor();
}

double GradScaler::scaleValue() const
{
    if (!m_enabled)
        return 1;
    return m_scale.defined() ? double(m_scale.item<float>()) : m_initScale;
}

NamedTensors GradScaler::state() const
{
    if (!m_enabled || !m_scale.defined())
        return {};
    return {{kPrefix + "scale", m_scale.detach().cpu().clone()},
            {kPrefix + "growth_tracker", m_growthTracker.detach().cpu().clone()},
            {kPrefix + "skipped_steps", torch::scalar_tensor(m_skipped, torch::kLong)}};
}

void GradScaler::loadState(const NamedTensors &state)
{
    std::map<std::string, torch::Tensor> found;
    for (const auto &[name, tensor] : state) {
        if (name.compare(0, kPrefix.size(), kPrefix) != 0)
            continue;
        const std::string key = name.substr(kPrefix.size());
        if (key != "scale" && key != "growth_tracker" && key != "skipped_steps")
            throw EngineError("grad scaler state: " + name + ": unknown entry");
        if (!tensor.defined() || tensor.numel() != 1)
            throw EngineError("grad scaler state: " + name + ": must hold one value");
        found[key] = tensor;
    }
    if (found.empty())
        return;
    for (const char *key : {"scale", "growth_tracker", "skipped_steps"})
        if (!found.count(key))
            throw EngineError("grad scaler state: " + kPrefix + key + ": missing");
    const torch::Tensor &scale = found["scale"];
    if (!c10::isFloatingType(scale.scalar_type()))
        throw EngineError("grad scaler state: " + kPrefix + "scale: must be a float");
    const double scaleValue = scale.to(torch::kDouble).item<double>();
    if (!(scaleValue > 0) || !std::isfinite(scaleValue))
        throw EngineError("grad scaler state: " + kPrefix + "scale: must be finite and > 0 (got " + numberText(scaleValue) + ")");
    std::int64_t counts[2];
    const char *countKeys[2] = {"growth_tracker", "skipped_steps"};
    for (int i = 0; i < 2; ++i) {
        const torch::Tensor &t = found[countKeys[i]];
        if (!c10::isIntegralType(t.scalar_type(), false))
            throw EngineError("grad scaler state: " + kPrefix + countKeys[i] + ": must be an integer");
        counts[i] = t.reshape({}).to(torch::kLong).item<std::int64_t>();
        if (counts[i] < 0 || (i == 0 && counts[i] > std::numeric_limits<std::int32_t>::max()))
            throw EngineError("grad scaler state: " + kPrefix + countKeys[i] + ": out of range (got " +
                              std::to_string(counts[i]) + ")");
    }
    const torch::Device device = m_scale.defined() ? m_scale.device() : torch::Device(torch::kCPU);
    m_scale = scale.reshape({1}).to(torch::kFloat).to(device).clone();
    m_growthTracker = torch::full({1}, counts[0], torch::TensorOptions().dtype(torch::kInt).device(device));
    m_skipped = counts[1];
    m_unscaled = false;
    m_stepped = false;
    m_foundInfValue = false;
}

} // namespace lathe::engine
