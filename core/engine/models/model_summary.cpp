#include "engine/models/model_summary.h"

#include "engine/base/engine_error.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/freezing.h"
#include "engine/models/networks/classifier.h"

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
