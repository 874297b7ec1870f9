#include "model_summary.h"

#include "backbone_registry.h"
#include "engine_error.h"
#include "freezing.h"
#include "models/classifier.h"

namespace lathe::engine {

ModelSummary summarizeModel(const ModelSpec &spec)
{
    if (spec.arch == "torchscript")
        throw EngineError("model.arch: summaries of custom TorchScript backbones are not supported here");
    const BackboneInfo &info = backboneInfo(spec.arch);
    std::shared_ptr<models::Classifier> model = models::createClassifier(spec.arch, spec.inChannels, spec.head);
    return summarize(*model, info, spec.freeze);
}

} // namespace lathe::engine
