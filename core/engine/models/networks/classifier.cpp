#include "engine/models/networks/classifier.h"

#include "engine/base/engine_error.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/networks/families.h"

namespace lathe::engine::models {

std::shared_ptr<Classifier> createClassifier(const std::string &arch, int inChannels, const HeadOptions &head)
{
    const BackboneInfo &info = backboneInfo(arch); // throws for unknown names
    if (inChannels < 1 || inChannels > 64)
        throw EngineError("model.in_channels must be in [1, 64] (got " + std::to_string(inChannels) + ")");
    if (info.family == "ResNet")
        return createResNet(arch, inChannels, head);
    if (info.family == "MobileNetV3")
        return createMobileNetV3(arch, inChannels, head);
    if (info.family == "EfficientNet")
        return createEfficientNet(arch, inChannels, head);
    if (info.family == "ConvNeXt")
        return createConvNeXt(arch, inChannels, head);
    return createVisionTransformer(arch, inChannels, head);
}

} // namespace lathe::engine::models
