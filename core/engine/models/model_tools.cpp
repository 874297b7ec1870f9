#include "engine/models/model_tools.h"

#include "engine/base/engine_error.h"
#include "engine/formats/safetensors.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/networks/classifier.h"
#include "engine/models/weights_io.h"

#include <torch/types.h>
#include <torch/utils.h>

#include <algorithm>

namespace lathe::engine {

nlohmann::json modelsJson()
{
    nlohmann::json out = nlohmann::json::array();
    for (const BackboneInfo &b : backboneRegistry()) {
        nlohmann::json stages = nlohmann::json::array();
        for (const BackboneStage &s : b.stages)
            stages.push_back({{"name", s.name}, {"prefixes", s.prefixes}});
        out.push_back({{"name", b.name},
                       {"family", b.family},
                       {"input_size", b.inputSize},
                       {"resize_size", b.resizeSize},
                       {"interpolation", b.interpolation},
                       {"mean", b.mean},
                       {"std", b.std},
                       {"parameters", b.parameters},
                       {"gflops", b.gflops},
                       {"stages", stages},
                       {"head", b.headParameters},
                       {"stem", b.stemParameter},
                       {"convolutional", b.convolutional}});
    }
    return out;
}

nlohmann::json runForward(const ForwardOptions &options)
{
    const BackboneInfo &info = backboneInfo(options.arch);
    NamedTensors weights;
    int numClasses = options.numClasses;
    if (!options.weightsPath.empty()) {
        weights = readWeightsFile(options.weightsPath);
        if (numClasses == 0 && !info.headParameters.empty()) {
            const auto head = std::find_if(weights.begin(), weights.end(),
                                           [&](const auto &w) { return w.first == info.headParameters.front(); });
            if (head == weights.end() || head->second.dim() < 1)
                throw EngineError(options.weightsPath + ": no " + info.headParameters.front()
                                  + " to take the class count from (give --num-classes)");
            numClasses = int(head->second.size(0));
        }
    }
    if (numClasses == 0)
        numClasses = 1000;

    HeadOptions head;
    head.numClasses = numClasses;
    std::shared_ptr<models::Classifier> model = models::createClassifier(options.arch, options.inChannels, head);
    nlohmann::json load = nullptr;
    if (!options.weightsPath.empty()) {
        const LoadReport report = loadStateDict(*model, weights, &info);
        if (!report.clean())
            throw EngineError(options.weightsPath + ": does not fit " + options.arch + ":\n" + report.text());
        load = {{"loaded", report.loadedTensors},      {"missing", report.missing},
                {"unexpected", report.unexpected},     {"mismatched", report.mismatched},
                {"head_replaced", report.headReplaced}, {"stem_adapted", report.stemAdapted},
                {"text", report.text()}};
    }
    model->eval();

    std::map<std::string, std::string> metadata;
    const NamedTensors inputs = readSafetensors(options.inputPath, &metadata);
    const auto input = std::find_if(inputs.begin(), inputs.end(), [](const auto &t) { return t.first == "input"; });
    if (input == inputs.end())
        throw EngineError(options.inputPath + ": no tensor named 'input'");
    if (input->second.dim() != 4 || input->second.size(1) != options.inChannels)
        throw EngineError(options.inputPath + ": 'input' must be [N, " + std::to_string(options.inChannels)
                          + ", H, W], not " + c10::str(input->second.sizes()));
    torch::Tensor output;
    {
        torch::NoGradGuard noGrad;
        output = model->forward(input->second.to(torch::kFloat));
    }
    writeSafetensors(options.outputPath, {{"output", output}});
    if (!options.saveWeightsPath.empty())
        writeSafetensors(options.saveWeightsPath, stateDict(*model), {{"format", "pt"}, {"arch", options.arch}});

    return {{"arch", options.arch},
            {"num_classes", numClasses},
            {"in_channels", options.inChannels},
            {"weights", options.weightsPath.empty() ? nlohmann::json(nullptr) : nlohmann::json(options.weightsPath)},
            {"load", load},
            {"input_shape", input->second.sizes().vec()},
            {"output_shape", output.sizes().vec()},
            {"output", options.outputPath},
            {"saved_weights",
             options.saveWeightsPath.empty() ? nlohmann::json(nullptr) : nlohmann::json(options.saveWeightsPath)}};
}

} // namespace lathe::engine
