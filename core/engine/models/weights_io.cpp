#include "engine/models/weights_io.h"

#include "engine/base/engine_error.h"
#include "engine/formats/torch_pth.h"
#include "engine/base/error_text.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace lathe::engine {
namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool startsWith(const std::string &s, const std::string &prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

void stripCommonPrefix(NamedTensors &tensors, const std::string &prefix)
{
    for (const auto &entry : tensors)
        if (!startsWith(entry.first, prefix) || entry.first.size() == prefix.size())
            return;
    for (auto &entry : tensors)
        entry.first.erase(0, prefix.size());
}

// The file's RGB stem filters [O, 3, ...] for a model with C input channels.
torch::Tensor adaptStem(const torch::Tensor &rgb, std::int64_t channels)
{
    if (channels == 1)
        return rgb.sum(1, /*keepdim=*/true);
    // Cyclic repetition keeps each filter's response to a colour image spread over C channels
    // at the scale the pretrained layers after it expect.
    const torch::Tensor index = torch::arange(channels, torch::kLong).remainder(3);
    return rgb.index_select(1, index) * (3.0 / double(channels));
}

} // namespace

NamedTensors stateDict(const torch::nn::Module &module)
{
    NamedTensors out;
    for (const auto &p : module.named_parameters(/*recurse=*/true))
        out.emplace_back(p.key(), p.value());
    for (const auto &b : module.named_buffers(/*recurse=*/true))
        out.emplace_back(b.key(), b.value());
    return out;
}

NamedTensors readWeightsFile(const std::string &path)
{
    char magic[2] = {0, 0};
    {
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw EngineError(path + ": cannot open the weights file");
        in.read(magic, 2);
    }
    NamedTensors tensors = magic[0] == 'P' && magic[1] == 'K' ? readTorchPth(path) : readSafetensors(path);
    stripCommonPrefix(tensors, "module.");
    // A training checkpoint: the model's tensors under "model.", beside its "optimizer." state.
    const auto isModel = [](const auto &t) { return startsWith(t.first, "model."); };
    if (std::any_of(tensors.begin(), tensors.end(), isModel)
        && std::all_of(tensors.begin(), tensors.end(),
                       [&](const auto &t) { return isModel(t) || startsWith(t.first, "optimizer."); }))
        tensors.erase(std::remove_if(tensors.begin(), tensors.end(), [&](const auto &t) { return !isModel(t); }),
                      tensors.end());
    stripCommonPrefix(tensors, "model.");
    return tensors;
}

LoadReport loadStateDict(torch::nn::Module &model, const NamedTensors &tensors, const BackboneInfo *info)
{
    std::map<std::string, torch::Tensor> targets;
    for (const auto &[name, tensor] : stateDict(model))
        targets.emplace(name, tensor);

    LoadReport report;
    // The head is taken whole or not at all: a differing class count (or hidden layer) in any
    // of its parameters leaves every one of them freshly initialised.
    auto isHead = [info](const std::string &name) {
        return info && std::find(info->headParameters.begin(), info->headParameters.end(), name) != info->headParameters.end();
    };
    for (const auto &[name, source] : tensors) {
        const auto target = targets.find(name);
        if (isHead(name) && target != targets.end() && source.sizes() != target->second.sizes())
            report.headReplaced = true;
    }

    std::map<std::string, bool> seen;
    torch::NoGradGuard noGrad;
    for (const auto &[name, source] : tensors) {
        if (seen.count(name))
            throw EngineError("weights: tensor '" + name + "' given twice");
        seen[name] = true;
        const auto target = targets.find(name);
        if (target == targets.end()) {
            report.unexpected.push_back(name);
            continue;
        }
        torch::Tensor &t = target->second;
        if (report.headReplaced && isHead(name))
            continue;
        if (source.sizes() == t.sizes()) {
            t.copy_(source);
            ++report.loadedTensors;
            continue;
        }
        if (info && name == info->stemParameter && source.dim() == t.dim() && source.dim() >= 2 && source.size(1) == 3
            && source.size(0) == t.size(0) && source.sizes().slice(2) == t.sizes().slice(2)) {
            const std::int64_t c = t.size(1);
            t.copy_(adaptStem(source.to(torch::kDouble), c));
            ++report.loadedTensors;
            report.stemAdapted = c == 1 ? name + ": the pretrained RGB filters were summed into 1 input channel."
                                        : name + ": the pretrained RGB filters were repeated over " + std::to_string(c)
                                              + " input channels and scaled by 3/" + std::to_string(c) + ".";
            continue;
        }
        report.mismatched.push_back(name + ": file " + shapeText(source) + " vs model " + shapeText(t));
    }
    for (const auto &[name, tensor] : targets) {
        if (seen.count(name) || endsWith(name, ".num_batches_tracked"))
            continue;
        // The optional hidden layer is part of a new head: no file has it unless Lathe wrote it.
        if (info && startsWith(name, "head_hidden.") && report.headReplaced)
            continue;
        report.missing.push_back(name);
    }
    return report;
}

} // namespace lathe::engine
