#include "engine/training/optimizer_factory.h"

#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"
#include "engine/base/error_text.h"

#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include <map>
#include <set>
#include <sstream>

namespace lathe::engine {
namespace {

using torch::optim::AdamW;
using torch::optim::AdamWOptions;
using torch::optim::AdamWParamState;
using torch::optim::RMSprop;
using torch::optim::RMSpropOptions;
using torch::optim::RMSpropParamState;
using torch::optim::SGD;
using torch::optim::SGDOptions;
using torch::optim::SGDParamState;

const std::string kPrefix = "optimizer.";

[[noreturn]] void invalid(const std::string &field, const std::string &reason)
{
    throw EngineError("optimizer." + field + ": " + reason);
}

void checkGroups(const torch::optim::Optimizer &optimizer, const std::vector<ParameterGroup> &groups)
{
    const auto &pgs = optimizer.param_groups();
    bool same = pgs.size() == groups.size();
    for (std::size_t g = 0; same && g < groups.size(); ++g)
        same = pgs[g].params().size() == groups[g].parameters.size() &&
               groups[g].names.size() == groups[g].parameters.size();
    if (!same)
        throw EngineError("optimizer: its parameter groups do not match the model's (" + std::to_string(pgs.size()) +
                          " groups for " + std::to_string(groups.size()) + ")");
}

// torch::optim's AdamW and SGD with their step done by LibTorch's fused kernels where it has
// them (compat::fusedAdamW/fusedSgd): the same update rules, state and checkpoints, one pass
// over each parameter's memory. PyTorch itself defaults to a loop of per-tensor operations on
// the CPU (its foreach and fused kernels are opt-in there).
// The closure's loss, computed with gradients on, as torch::optim's step() does.
torch::Tensor lossOf(const torch::optim::Optimizer::LossClosure &closure)
{
    if (!closure)
        return {};
    at::AutoGradMode grad(true);
    return closure();
}

class FusedAdamW : public AdamW
{
public:
    using AdamW::AdamW;

    torch::Tensor step(LossClosure closure = nullptr) override
    {
        const torch::Tensor loss = lossOf(closure);
        torch::NoGradGuard noGrad;
        for (auto &group : param_groups_) {
            const auto &o = static_cast<const AdamWOptions &>(group.options());
            std::vector<torch::Tensor> params, grads, expAvgs, expAvgSqs, maxExpAvgSqs, steps;
            for (const torch::Tensor &p : group.params()) {
                if (!p.grad().defined())
                    continue;
                if (p.grad().is_sparse())
                    throw EngineError("optimizer: AdamW does not support sparse gradients");
                std::unique_ptr<torch::optim::OptimizerParamState> &slot = state_[compat::optimizerStateKey(p)];
                if (!slot) {
                    auto fresh = std::make_unique<AdamWParamState>();
                    fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
                    fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
                    if (o.amsgrad())
                        fresh->max_exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
                    slot = std::move(fresh);
                }
                auto &state = static_cast<AdamWParamState &>(*slot);
                state.step(state.step() + 1);
                params.push_back(p);
                grads.push_back(p.grad());
                expAvgs.push_back(state.exp_avg());
                expAvgSqs.push_back(state.exp_avg_sq());
                if (o.amsgrad())
                    maxExpAvgSqs.push_back(state.max_exp_avg_sq());
                steps.push_back(torch::full({}, double(state.step()), p.options().dtype(torch::kFloat32)));
            }
            if (!params.empty())
                compat::fusedAdamW(params, grads, expAvgs, expAvgSqs, maxExpAvgSqs, steps, o.lr(),
                                   std::get<0>(o.betas()), std::get<1>(o.betas()), o.weight_decay(), o.eps(),
                                   o.amsgrad());
        }
        return loss;
    }
};

// SGD with momentum (dampening 0, as makeOptimizer builds it).
class FusedSGD : public SGD
{
public:
    using SGD::SGD;

    torch::Tensor step(LossClosure closure = nullptr) override
    {
        const torch::Tensor loss = lossOf(closure);
        torch::NoGradGuard noGrad;
        for (auto &group : param_groups_) {
            const auto &o = static_cast<const SGDOptions &>(group.options());
            // One call per group: the parameters whose buffer exists, and those taking their first step.
            std::vector<torch::Tensor> params[2], grads[2], buffers[2];
            for (const torch::Tensor &p : group.params()) {
                if (!p.grad().defined())
                    continue;
                if (p.grad().is_sparse())
                    throw EngineError("optimizer: SGD does not support sparse gradients");
                std::unique_ptr<torch::optim::OptimizerParamState> &slot = state_[compat::optimizerStateKey(p)];
                const bool first = !slot;
                if (first) {
                    auto fresh = std::make_unique<SGDParamState>();
                    fresh->momentum_buffer(torch::empty_like(p, torch::MemoryFormat::Preserve));
                    slot = std::move(fresh);
                }
                params[first].push_back(p);
                grads[first].push_back(p.grad());
                buffers[first].push_back(static_cast<SGDParamState &>(*slot).momentum_buffer());
            }
            for (int first = 0; first < 2; ++first)
                if (!params[first].empty())
                    compat::fusedSgd(params[first], grads[first], buffers[first], o.weight_decay(), o.momentum(),
                                     o.lr(), o.nesterov(), first == 1);
        }
        return loss;
    }
};

template<typename Options>
std::unique_ptr<torch::optim::Optimizer> build(const Options &defaults, const std::vector<ParameterGroup> &groups)
{
    std::vector<torch::optim::OptimizerParamGroup> pgs;
    for (const ParameterGroup &group : groups) {
        auto options = std::make_unique<Options>(defaults);
        options->lr(defaults.lr() * group.lrMultiplier);
        if (!group.weightDecay)
            options->weight_decay(0);
        pgs.emplace_back(group.parameters, std::move(options));
    }
    if constexpr (std::is_same_v<Options, SGDOptions>) {
        // Without momentum SGD is one operation per parameter already (and dampening is always 0 here).
        if (compat::kFusedOptimizers && defaults.momentum() > 0)
            return std::make_unique<FusedSGD>(std::move(pgs), defaults);
        return std::make_unique<SGD>(std::move(pgs), defaults);
    } else if constexpr (std::is_same_v<Options, AdamWOptions>) {
        if (compat::kFusedOptimizers)
            return std::make_unique<FusedAdamW>(std::move(pgs), defaults);
        return std::make_unique<AdamW>(std::move(pgs), defaults);
    }
    else
        return std::make_unique<RMSprop>(std::move(pgs), defaults);
}

torch::Tensor stepTensor(std::int64_t step)
{
    return torch::scalar_tensor(step, torch::kLong);
}

// The saved entries of one parameter, checked against it and consumed from the pool.
class Entries
{
public:
    Entries(const std::map<std::string, torch::Tensor> &all, const std::string &name, const torch::Tensor &parameter,
            const std::set<std::string> &keys)
        : m_prefix(kPrefix + name + ".")
        , m_parameter(parameter)
    {
        for (auto it = all.lower_bound(m_prefix); it != all.end() && it->first.compare(0, m_prefix.size(), m_prefix) == 0;
             ++it) {
            const std::string key = it->first.substr(m_prefix.size());
            if (keys.count(key))
                m_found.emplace(key, it->second);
            else if (key.find('.') == std::string::npos)
                throw EngineError("optimizer state: " + it->first + ": unknown state key '" + key + "' for this optimizer");
        }
    }

    bool empty() const { return m_found.empty(); }
    bool has(const std::string &key) const { return m_found.count(key) > 0; }

    // A tensor like the parameter (device, dtype, layout) holding the saved values.
    torch::Tensor like(const std::string &key) const
    {
        const torch::Tensor &t = require(key);
        if (t.sizes() != m_parameter.sizes())
            fail(key, "shape " + shapeText(t) + " does not match the parameter's " + shapeText(m_parameter));
        if (t.scalar_type() != m_parameter.scalar_type())
            fail(key, std::string("dtype ") + c10::toString(t.scalar_type()) + " is not the parameter's " +
                          c10::toString(m_parameter.scalar_type()));
        return torch::empty_like(m_parameter, torch::MemoryFormat::Preserve).copy_(t);
    }

    std::int64_t step(const std::string &key) const
    {
        const torch::Tensor &t = require(key);
        if (t.numel() != 1 || !c10::isIntegralType(t.scalar_type(), /*includeBool=*/false))
            fail(key, "must be one integer");
        const std::int64_t value = t.reshape({}).item<std::int64_t>();
        if (value < 0)
            fail(key, "must be >= 0 (got " + std::to_string(value) + ")");
        return value;
    }

private:
    const torch::Tensor &require(const std::string &key) const
    {
        auto it = m_found.find(key);
        if (it == m_found.end())
            fail(key, "missing (the parameter has other optimizer state)");
        if (!it->second.defined())
            fail(key, "undefined tensor");
        return it->second;
    }

    [[noreturn]] void fail(const std::string &key, const std::string &reason) const
    {
        throw EngineError("optimizer state: " + m_prefix + key + ": " + reason);
    }

    std::string m_prefix;
    torch::Tensor m_parameter;
    std::map<std::string, torch::Tensor> m_found;
};

} // namespace

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const OptimizerConfig &config,
                                                       const std::vector<ParameterGroup> &groups)
{
    if (groups.empty())
        throw EngineError("optimizer: no trainable parameters (every stage is frozen)");
    for (const ParameterGroup &group : groups) {
        if (group.parameters.empty() || group.names.size() != group.parameters.size())
            throw EngineError("optimizer: parameter group '" + group.stage + "' is empty or its names do not match");
        if (!(group.lrMultiplier >= 0))
            throw EngineError("optimizer: parameter group '" + group.stage + "' has a negative lr multiplier");
    }
    if (!(config.lr > 0) || !std::isfinite(config.lr))
        invalid("lr", "must be > 0 (got " + numberText(config.lr) + ")");
    if (!(config.weightDecay >= 0) || !std::isfinite(config.weightDecay))
        invalid("weight_decay", "must be >= 0 (got " + numberText(config.weightDecay) + ")");

    if (config.name == "sgd") {
        if (!(config.momentum >= 0 && config.momentum < 1))
            invalid("momentum", "must be within [0, 1) (got " + numberText(config.momentum) + ")");
        if (config.nesterov && config.momentum <= 0)
            invalid("nesterov", "needs momentum > 0");
        return build(SGDOptions(config.lr)
                         .momentum(config.momentum)
                         .nesterov(config.nesterov)
                         .weight_decay(config.weightDecay),
                     groups);
    }
    if (!(config.eps > 0))
        invalid("eps", "must be > 0 (got " + numberText(config.eps) + ")");
    if (config.name == "adamw") {
        for (int i = 0; i < 2; ++i)
            if (!(config.betas[i] >= 0 && config.betas[i] < 1))
                invalid("betas", "must be within [0, 1) (got " + numberText(config.betas[i]) + ")");
        return build(AdamWOptions(config.lr)
                         .betas({config.betas[0], config.betas[1]})
                         .eps(config.eps)
                         .weight_decay(config.weightDecay),
                     groups);
    }
    if (config.name == "rmsprop") {
        if (!(config.alpha >= 0 && config.alpha <= 1))
            invalid("alpha", "must be within [0, 1] (got " + numberText(config.alpha) + ")");
        if (!(config.momentum >= 0 && config.momentum < 1))
            invalid("momentum", "must be within [0, 1) (got " + numberText(config.momentum) + ")");
        return build(RMSpropOptions(config.lr)
                         .alpha(config.alpha)
                         .eps(config.eps)
                         .momentum(config.momentum)
                         .weight_decay(config.weightDecay),
                     groups);
    }
    invalid("name", "unknown optimizer '" + config.name + "' (expected sgd, adamw or rmsprop)");
}

void setLearningRate(torch::optim::Optimizer &optimizer, double baseLr, const std::vector<ParameterGroup> &groups)
{
    checkGroups(optimizer, groups);
    auto &pgs = optimizer.param_groups();
    for (std::size_t g = 0; g < groups.size(); ++g)
        pgs[g].options().set_lr(baseLr * groups[g].lrMultiplier);
}

NamedTensors optimizerState(const torch::optim::Optimizer &optimizer, const std::vector<ParameterGroup> &groups)
{
    checkGroups(optimizer, groups);
    NamedTensors out;
    const auto &state = optimizer.state();
    const auto &pgs = optimizer.param_groups();
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (std::size_t j = 0; j < groups[g].parameters.size(); ++j) {
            auto it = state.find(compat::optimizerStateKey(pgs[g].params()[j]));
            if (it == state.end())
                continue;
            const std::string prefix = kPrefix + groups[g].names[j] + ".";
            auto add = [&](const char *key, const torch::Tensor &t) {
                if (t.defined())
                    out.emplace_back(prefix + key, t.detach());
            };
            const torch::optim::OptimizerParamState *s = it->second.get();
            if (auto *sgd = dynamic_cast<const SGDParamState *>(s)) {
                add("momentum_buffer", sgd->momentum_buffer());
            } else if (auto *adamw = dynamic_cast<const AdamWParamState *>(s)) {
                add("step", stepTensor(adamw->step()));
                add("exp_avg", adamw->exp_avg());
                add("exp_avg_sq", adamw->exp_avg_sq());
                add("max_exp_avg_sq", adamw->max_exp_avg_sq());
            } else if (auto *rms = dynamic_cast<const RMSpropParamState *>(s)) {
                add("step", stepTensor(rms->step()));
                add("square_avg", rms->square_avg());
                add("momentum_buffer", rms->momentum_buffer());
                add("grad_avg", rms->grad_avg());
            } else {
                throw EngineError("optimizer state: not an SGD, AdamW or RMSprop optimizer");
            }
        }
    }
    return out;
}

void loadOptimizerState(torch::optim::Optimizer &optimizer, const std::vector<ParameterGroup> &groups,
                        const NamedTensors &saved)
{
    checkGroups(optimizer, groups);
    std::map<std::string, torch::Tensor> all;
    for (const auto &[name, tensor] : saved)
        if (name.compare(0, kPrefix.size(), kPrefix) == 0)
            all.emplace(name, tensor);

    const bool isSgd = dynamic_cast<SGD *>(&optimizer) != nullptr;
    const bool isAdamW = dynamic_cast<AdamW *>(&optimizer) != nullptr;
    const bool isRmsprop = dynamic_cast<RMSprop *>(&optimizer) != nullptr;
    if (!isSgd && !isAdamW && !isRmsprop)
        throw EngineError("optimizer state: not an SGD, AdamW or RMSprop optimizer");
    const std::set<std::string> keys = isSgd     ? std::set<std::string>{"momentum_buffer"}
                                       : isAdamW ? std::set<std::string>{"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
                                                 : std::set<std::string>{"step", "square_avg", "momentum_buffer", "grad_avg"};

    // Everything is checked before the optimizer is changed.
    std::vector<std::pair<compat::OptimizerStateKey, std::unique_ptr<torch::optim::OptimizerParamState>>> loaded;
    auto &pgs = optimizer.param_groups();
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (std::size_t j = 0; j < groups[g].parameters.size(); ++j) {
            const torch::Tensor &parameter = pgs[g].params()[j];
            const Entries e(all, groups[g].names[j], parameter, keys);
            if (e.empty())
                continue;
            torch::NoGradGuard noGrad;
            if (isSgd) {
                auto s = std::make_unique<SGDParamState>();
                s->momentum_buffer(e.like("momentum_buffer"));
                loaded.emplace_back(compat::optimizerStateKey(parameter), std::move(s));
            } else if (isAdamW) {
                const auto &options = static_cast<const AdamWOptions &>(pgs[g].options());
                auto s = std::make_unique<AdamWParamState>();
                s->step(e.step("step"));
                s->exp_avg(e.like("exp_avg"));
                s->exp_avg_sq(e.like("exp_avg_sq"));
                if (options.amsgrad() || e.has("max_exp_avg_sq"))
                    s->max_exp_avg_sq(e.like("max_exp_avg_sq"));
                loaded.emplace_back(compat::optimizerStateKey(parameter), std::move(s));
            } else {
                const auto &options = static_cast<const RMSpropOptions &>(pgs[g].options());
                auto s = std::make_unique<RMSpropParamState>();
                s->step(e.step("step"));
                s->square_avg(e.like("square_avg"));
                if (options.momentum() > 0 || e.has("momentum_buffer"))
                    s->momentum_buffer(e.like("momentum_buffer"));
                if (options.centered() || e.has("grad_avg"))
                    s->grad_avg(e.like("grad_avg"));
                loaded.emplace_back(compat::optimizerStateKey(parameter), std::move(s));
            }
        }
    }
    auto &state = optimizer.state();
    // Parameters without saved state start afresh, as they would have in the saved run.
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (const torch::Tensor &parameter : pgs[g].params())
            state.erase(compat::optimizerStateKey(parameter));
    for (auto &[key, s] : loaded)
        state[key] = std::move(s);
}

torch::Tensor clipGradNorm(const std::vector<ParameterGroup> &groups, double maxNorm)
{
    if (!(maxNorm > 0))
        invalid("clip_grad_norm", "must be > 0 (got " + numberText(maxNorm) + ")");
    std::vector<torch::Tensor> grads;
    for (const ParameterGroup &group : groups)
        for (const torch::Tensor &p : group.parameters)
            if (p.grad().defined())
                grads.push_back(p.grad());
    if (grads.empty())
        return torch::zeros({});
    std::vector<torch::Tensor> norms;
    norms.reserve(grads.size());
    for (const torch::Tensor &g : grads)
        norms.push_back(g.norm().to(torch::kFloat32));
    const torch::Tensor total = torch::stack(norms).norm();
    const torch::Tensor factor = (maxNorm / (total + 1e-6)).clamp_max(1.0);
    for (torch::Tensor &g : grads)
        g.mul_(factor.to(g.scalar_type()));
    return total;
}

} // namespace lathe::engine
