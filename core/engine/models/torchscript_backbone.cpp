#include "engine/models/torchscript_backbone.h"

#include "engine/base/engine_error.h"

#include <torch/nn/init.h>
#include <torch/utils.h>

#include <cmath>
#include <map>

namespace lathe::engine {
namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool hasTensor(const torch::jit::Module &m, const char *name, int dim)
{
    if (!m.hasattr(name))
        return false;
    const c10::IValue v = m.attr(name);
    return v.isTensor() && v.toTensor().dim() == dim;
}

// The smallest set of prefixes covering every name outside the module at headPath.
std::vector<std::string> prefixesOutside(const std::vector<std::string> &names, const std::string &headPath)
{
    const std::string head = headPath + ".";
    std::vector<std::string> out;
    for (const std::string &name : names) {
        if (name.compare(0, head.size(), head) == 0)
            continue;
        std::string prefix = name; // a root-level parameter stands for itself
        for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
            const std::string candidate = name.substr(0, dot + 1);
            if (head.compare(0, candidate.size(), candidate) != 0) {
                prefix = candidate;
                break;
            }
        }
        if (std::find(out.begin(), out.end(), prefix) == out.end())
            out.push_back(prefix);
    }
    return out;
}

} // namespace

TorchScriptBackbone::TorchScriptBackbone(const std::string &path, const HeadOptions &head)
    : m_path(path)
    , m_numClasses(head.numClasses)
{
    if (head.numClasses < 1)
        throw EngineError("model.head.num_classes must be at least 1 (got " + std::to_string(head.numClasses) + ")");
    if (head.hiddenUnits > 0)
        throw EngineError(path + ": a hidden head layer cannot be added to a TorchScript backbone");
    try {
        m_module = torch::jit::load(path, torch::kCPU);
    } catch (const std::exception &e) {
        std::string what = e.what();
        throw EngineError(path + ": cannot load the TorchScript module (" + what.substr(0, what.find('\n')) + ")");
    }

    // The head: the last Linear (by its class name), else the last layer shaped like one.
    std::string headPath;
    torch::jit::Module linear;
    bool found = false;
    for (int pass = 0; pass < 2 && !found; ++pass)
        for (const auto &m : m_module.named_modules()) {
            const bool linearType = m.value.type()->name() && endsWith(m.value.type()->name()->qualifiedName(), "Linear");
            const bool linearShape = hasTensor(m.value, "weight", 2)
                                     && (hasTensor(m.value, "bias", 1) || (m.value.hasattr("bias") && m.value.attr("bias").isNone()));
            if (linearShape && (pass == 1 || linearType)) {
                headPath = m.name;
                linear = m.value;
                found = true;
            }
        }
    if (!found)
        throw EngineError(path + ": no Linear layer (2-D weight, 1-D bias) to replace with a " + std::to_string(head.numClasses)
                          + "-class head (a frozen module?)");

    const torch::Tensor old = linear.attr("weight").toTensor();
    const std::int64_t inFeatures = old.size(1);
    const double bound = 1.0 / std::sqrt(double(inFeatures)); // torch.nn.Linear's default initialisation
    {
        torch::NoGradGuard noGrad;
        linear.setattr("weight", torch::empty({head.numClasses, inFeatures}, old.options()).uniform_(-bound, bound));
        if (!linear.attr("bias").isNone())
            linear.setattr("bias", torch::empty({head.numClasses}, old.options()).uniform_(-bound, bound));
    }

    // Mirror the scripted tree with holder modules so the tensors keep their dotted names here.
    std::map<std::string, torch::nn::Module *> holders{{"", this}};
    auto holderOf = [&](const std::string &name) -> std::pair<torch::nn::Module *, std::string> {
        torch::nn::Module *parent = this;
        std::string prefix;
        std::size_t start = 0;
        for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', start)) {
            const std::string part = name.substr(start, dot - start);
            prefix += part + ".";
            auto it = holders.find(prefix);
            if (it == holders.end())
                it = holders.emplace(prefix, parent->register_module(part, std::make_shared<torch::nn::Module>()).get()).first;
            parent = it->second;
            start = dot + 1;
        }
        return {parent, name.substr(start)};
    };
    std::vector<std::string> names;
    for (const auto &p : m_module.named_parameters(true)) {
        auto [holder, leaf] = holderOf(p.name);
        holder->register_parameter(leaf, p.value, /*requires_grad=*/true);
        names.push_back(p.name);
    }
    for (const auto &b : m_module.named_buffers(true)) {
        auto [holder, leaf] = holderOf(b.name);
        holder->register_buffer(leaf, b.value);
        names.push_back(b.name);
    }

    const std::string headPrefix = headPath.empty() ? "" : headPath + ".";
    m_info.name = "torchscript";
    m_info.family = "TorchScript";
    m_info.convolutional = false;
    m_info.headParameters = {headPrefix + "weight"};
    if (!linear.attr("bias").isNone())
        m_info.headParameters.push_back(headPrefix + "bias");
    m_info.stages.push_back({"backbone", prefixesOutside(names, headPath)});
    m_info.stages.push_back({"head", headPath.empty() ? m_info.headParameters : std::vector<std::string>{headPrefix}});
    for (const auto &p : m_module.named_parameters(true))
        m_info.parameters += p.value.numel();
    train(true);
}

torch::Tensor TorchScriptBackbone::featureMap(torch::Tensor input)
{
    const c10::IValue out = m_module.forward({input});
    if (!out.isTensor())
        throw EngineError(m_path + ": the module's forward returns " + out.tagKind() + ", not one tensor");
    return out.toTensor();
}

void TorchScriptBackbone::train(bool on)
{
    models::Classifier::train(on);
    m_module.train(on);
}

} // namespace lathe::engine
