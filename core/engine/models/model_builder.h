#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.

#include "engine/models/backbone_registry.h"
#include "engine/models/model_spec.h"
#include "engine/models/networks/classifier.h"

#include <memory>

namespace lathe::engine {

struct BuiltModel
{
    std::shared_ptr<models::Classifier> classifier; // in training mode, on the CPU
    BackboneInfo info;                              // the registry's, or synthesized for TorchScript
    LoadReport report;                              // what loading spec.weightsPath did (empty without)
    bool weightsLoaded = false;
};

// Builds spec.arch from the registry (models::createClassifier) or, for arch "torchscript",
// the module at spec.torchscriptPath (TorchScriptBackbone), then loads spec.weightsPath when
// given (loadStateDict: head replacement and stem adaptation included). Throws EngineError
// for unknown architectures, bad options and unreadable files. Freezing is not applied here.
BuiltModel buildModel(const ModelSpec &spec);

} // namespace lathe::engine
