#include "engine/models/model_builder.h"

#include "engine/base/engine_error.h"
#include "engine/models/torchscript_backbone.h"
#include "engine/models/weights_io.h"

namespace lathe::engine {

BuiltModel buildModel(const ModelSpec &spec)
{
    BuiltModel built;
    if (spec.arch == "torchscript") {
        if (spec.torchscriptPath.empty())
            throw EngineError("model.torchscript_path is required when model.arch is \"torchscript\"");
        auto backbone = std::make_shared<TorchScriptBackbone>(spec.torchscriptPath, spec.head);
        built.info = backbone->info();
        built.classifier = backbone;
    } else {
        built.info = backboneInfo(spec.arch); // throws listing the known names
        built.classifier = models::createClassifier(spec.arch, spec.inChannels, spec.head);
    }
    if (!spec.weightsPath.empty()) {
        built.report = loadStateDict(*built.classifier, readWeightsFile(spec.weightsPath), &built.info);
        built.weightsLoaded = true;
    }
    built.classifier->train(true);
    return built;
}

} // namespace lathe::engine
