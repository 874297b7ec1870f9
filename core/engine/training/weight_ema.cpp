#include "engine/training/weight_ema.h"

#include "engine/base/engine_error.h"
#include "engine/base/error_text.h"

#include <torch/types.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace lathe::engine {
namespace {

const std::string kPrefix = "ema.";
const std::string kUpdates = "ema_updates";

} // namespace

WeightEma::WeightEma(const torch::nn::Module &module, double decay, bool warmup)
    : m_decay(decay)
    , m_warmup(warmup)
{
    if (!(decay >= 0 && decay <= 1))
        throw EngineError("ema.decay: must be within [0, 1] (got " + std::to_string(decay) + ")");
    torch::NoGradGuard noGrad;
    const auto parameters = module.named_parameters(true);
    for (const auto &item : parameters)
        m_entries.push_back({item.key(), true, item.value().detach().clone()});
    for (const auto &item : module.named_buffers(true))
        m_entries.push_back({item.key(), false, item.value().detach().clone()});
}

std::vector<std::pair<std::string, torch::Tensor>> WeightEma::moduleTensors(const torch::nn::Module &module) const
{
    std::vector<std::pair<std::string, torch::Tensor>> tensors;
    for (const auto &item : module.named_parameters(true))
        tensors.emplace_back(item.key(), item.value());
    for (const auto &item : module.named_buffers(true))
        tensors.emplace_back(item.key(), item.value());
    bool same = tensors.size() == m_entries.size();
    for (std::size_t i = 0; same && i < tensors.size(); ++i)
        same = tensors[i].first == m_entries[i].name && tensors[i].second.sizes() == m_entries[i].value.sizes();
    if (!same)
        throw EngineError("ema: the model's parameters and buffers no longer match the averaged ones");
    return tensors;
}

double WeightEma::decayAt(std::int64_t updates) const
{
    if (!m_warmup)
        return m_decay;
    return std::min(m_decay, (1.0 + double(updates)) / (10.0 + double(updates)));
}

void WeightEma::update(const torch::nn::Module &module)
{
    const auto tensors = moduleTensors(module);
    const double d = decayAt(m_updates);
    torch::NoGradGuard noGrad;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        torch::Tensor &ema = m_entries[i].value;
        const torch::Tensor current = tensors[i].second.detach().to(ema.device(), ema.scalar_type());
        if (m_entries[i].parameter && ema.is_floating_point())
            ema.mul_(d).add_(current, 1 - d);
        else
            ema.copy_(current);
    }
    ++m_updates;
}

void WeightEma::copyTo(torch::nn::Module &module) const
{
    const auto tensors = moduleTensors(module);
    torch::NoGradGuard noGrad;
    for (std::size_t i = 0; i < tensors.size(); ++i)
        tensors[i].second.copy_(m_entries[i].value);
}

void WeightEma::swap(torch::nn::Module &module)
{
    const auto tensors = moduleTensors(module);
    torch::NoGradGuard noGrad;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        torch::Tensor &ema = m_entries[i].value;
        const torch::Tensor model = tensors[i].second.detach().clone();
        tensors[i].second.copy_(ema);
        ema.copy_(model);
    }
}

NamedTensors WeightEma::state() const
{
    NamedTensors out;
    out.reserve(m_entries.size() + 1);
    for (const Entry &e : m_entries)
        out.emplace_back(kPrefix + e.name, e.value.detach());
    out.emplace_back(kUpdates, torch::scalar_tensor(m_updates, torch::kLong));
    return out;
}

void WeightEma::loadState(const NamedTensors &state)
{
    std::map<std::string, torch::Tensor> saved;
    torch::Tensor updates;
    for (const auto &[name, tensor] : state) {
        if (name == kUpdates)
            updates = tensor;
        else if (name.compare(0, kPrefix.size(), kPrefix) == 0)
            saved[name.substr(kPrefix.size())] = tensor;
    }
    if (!updates.defined() || updates.numel() != 1 || !c10::isIntegralType(updates.scalar_type(), false))
        throw EngineError("ema state: " + kUpdates + ": missing or not one integer");
    const std::int64_t count = updates.reshape({}).to(torch::kLong).item<std::int64_t>();
    if (count < 0)
        throw EngineError("ema state: " + kUpdates + ": must be >= 0 (got " + std::to_string(count) + ")");
    // Checked completely before anything changes.
    for (const Entry &e : m_entries) {
        auto it = saved.find(e.name);
        if (it == saved.end() || !it->second.defined())
            throw EngineError("ema state: " + kPrefix + e.name + ": missing");
        if (it->second.sizes() != e.value.sizes())
            throw EngineError("ema state: " + kPrefix + e.name + ": shape " + shapeText(it->second) +
                              " does not match the model's " + shapeText(e.value));
        if (it->second.is_floating_point() != e.value.is_floating_point())
            throw EngineError("ema state: " + kPrefix + e.name + ": dtype " + c10::toString(it->second.scalar_type()) +
                              " does not fit the model's " + c10::toString(e.value.scalar_type()));
    }
    if (saved.size() != m_entries.size()) {
        for (const auto &item : saved) {
            const bool known = std::any_of(m_entries.begin(), m_entries.end(),
                                           [&](const Entry &e) { return e.name == item.first; });
            if (!known)
                throw EngineError("ema state: " + kPrefix + item.first + ": not a parameter or buffer of the model");
        }
    }
    torch::NoGradGuard noGrad;
    for (Entry &e : m_entries)
        e.value.copy_(saved[e.name]);
    m_updates = count;
}

} // namespace lathe::engine
