#include "engine/models/freezing.h"

#include "engine/base/engine_error.h"

#include <torch/nn/modules/batchnorm.h>

#include <algorithm>
#include <map>

namespace lathe::engine {
namespace {

std::string knownStages(const BackboneInfo &info)
{
    std::string known;
    for (const BackboneStage &s : info.stages)
        known += (known.empty() ? "" : ", ") + s.name;
    return known;
}

void validateMultipliers(const BackboneInfo &info, const FreezeOptions &freeze)
{
    for (const auto &[stage, multiplier] : freeze.lrMultipliers) {
        const bool known = std::any_of(info.stages.begin(), info.stages.end(),
                                       [&stage = stage](const BackboneStage &s) { return s.name == stage; });
        if (!known)
            throw EngineError("model.freeze.lr_multipliers: unknown stage '" + stage + "' for " + info.name +
                              " (known: " + knownStages(info) + ")");
        if (!(multiplier >= 0) || multiplier > 1e6)
            throw EngineError("model.freeze.lr_multipliers: the multiplier of '" + stage +
                              "' must be a number >= 0 (got " + std::to_string(multiplier) + ")");
    }
}

bool isBatchNorm(torch::nn::Module &module)
{
    return module.as<torch::nn::BatchNorm1d>() || module.as<torch::nn::BatchNorm2d>() ||
           module.as<torch::nn::BatchNorm3d>();
}

bool exemptFromDecay(const std::string &name, const torch::Tensor &parameter)
{
    if (parameter.dim() <= 1)
        return true; // biases, norm weights
    const std::size_t dot = name.rfind('.');
    const std::string leaf = dot == std::string::npos ? name : name.substr(dot + 1);
    return leaf == "bias" || leaf == "class_token" || leaf == "pos_embedding" || leaf == "layer_scale";
}

} // namespace

int stageIndexOf(const BackboneInfo &info, const std::string &parameterName)
{
    const int s = info.stageOf(parameterName);
    return s >= 0 ? s : int(info.stages.size()) - 1;
}

int frozenStageCount(const BackboneInfo &info, const FreezeOptions &freeze, int epoch)
{
    const int stages = int(info.stages.size());
    if (freeze.unfreezeEveryEpochs < 0)
        throw EngineError("model.freeze.unfreeze_every_epochs must not be negative (got " +
                          std::to_string(freeze.unfreezeEveryEpochs) + ")");
    int frozen = 0;
    switch (freeze.policy) {
    case FreezePolicy::TrainAll:
        frozen = 0;
        break;
    case FreezePolicy::HeadOnly:
        frozen = stages - 1;
        break;
    case FreezePolicy::UpToStage:
        if (freeze.frozenStages < 0 || freeze.frozenStages >= stages)
            throw EngineError("model.freeze.frozen_stages must be in [0, " + std::to_string(stages - 1) + "] for " +
                              info.name + " (stages: " + knownStages(info) + "; got " +
                              std::to_string(freeze.frozenStages) + ")");
        frozen = freeze.frozenStages;
        break;
    }
    if (freeze.unfreezeEveryEpochs > 0 && epoch > 0)
        frozen -= std::min(frozen, epoch / freeze.unfreezeEveryEpochs);
    return frozen;
}

void applyFreezing(torch::nn::Module &model, const BackboneInfo &info, const FreezeOptions &freeze, int epoch)
{
    validateMultipliers(info, freeze);
    const int frozen = frozenStageCount(info, freeze, epoch);
    for (auto &item : model.named_parameters(/*recurse=*/true))
        item.value().set_requires_grad(stageIndexOf(info, item.key()) >= frozen);
}

void applyBatchNormFreezing(torch::nn::Module &model, const BackboneInfo &, const FreezeOptions &freeze)
{
    for (const auto &module : model.modules(/*include_self=*/false)) {
        if (!isBatchNorm(*module))
            continue;
        bool frozenStage = false;
        for (const torch::Tensor &p : module->parameters(/*recurse=*/false))
            frozenStage = frozenStage || !p.requires_grad();
        if (freeze.freezeBatchNorm || frozenStage)
            module->eval();
    }
}

double lrMultiplierOf(const BackboneInfo &info, const FreezeOptions &freeze, const std::string &stage)
{
    validateMultipliers(info, freeze);
    double multiplier = 1;
    for (const auto &[name, value] : freeze.lrMultipliers)
        if (name == stage)
            multiplier = value; // the last entry wins, as in a JSON object
    return multiplier;
}

std::vector<ParameterGroup> parameterGroups(torch::nn::Module &model, const BackboneInfo &info,
                                            const FreezeOptions &freeze, bool noDecayForNormsAndBiases)
{
    validateMultipliers(info, freeze);
    std::vector<ParameterGroup> groups;
    std::map<std::pair<double, bool>, std::size_t> index;
    for (auto &item : model.named_parameters(/*recurse=*/true)) {
        if (!item.value().requires_grad())
            continue;
        const std::string &stage = info.stages[std::size_t(stageIndexOf(info, item.key()))].name;
        const double multiplier = lrMultiplierOf(info, freeze, stage);
        const bool decay = !(noDecayForNormsAndBiases && exemptFromDecay(item.key(), item.value()));
        auto [it, inserted] = index.emplace(std::make_pair(multiplier, decay), groups.size());
        if (inserted) {
            ParameterGroup g;
            g.stage = stage;
            g.lrMultiplier = multiplier;
            g.weightDecay = decay;
            groups.push_back(std::move(g));
        }
        ParameterGroup &g = groups[it->second];
        if (("+" + g.stage + "+").find("+" + stage + "+") == std::string::npos)
            g.stage += "+" + stage;
        g.parameters.push_back(item.value());
        g.names.push_back(item.key());
    }
    return groups;
}

ModelSummary summarize(torch::nn::Module &model, const BackboneInfo &info, const FreezeOptions &freeze)
{
    validateMultipliers(info, freeze);
    const int frozen = frozenStageCount(info, freeze, 0);
    ModelSummary summary;
    summary.arch = info.name;
    for (const BackboneStage &s : info.stages) {
        StageSummary stage;
        stage.name = s.name;
        stage.lrMultiplier = lrMultiplierOf(info, freeze, s.name);
        summary.stages.push_back(stage);
    }
    for (const auto &item : model.named_parameters(/*recurse=*/true)) {
        const int s = stageIndexOf(info, item.key());
        const std::int64_t n = item.value().numel();
        summary.stages[std::size_t(s)].parameters += n;
        summary.parameters += n;
        if (s >= frozen) {
            summary.stages[std::size_t(s)].trainable += n;
            summary.trainable += n;
        }
    }
    return summary;
}

} // namespace lathe::engine
