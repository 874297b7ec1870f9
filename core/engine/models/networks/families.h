#pragma once

// Engine-internal (LibTorch): one builder per architecture family, dispatched by createClassifier.

#include "engine/models/networks/classifier.h"

namespace lathe::engine::models {

std::shared_ptr<Classifier> createResNet(const std::string &arch, int inChannels, const HeadOptions &head);
std::shared_ptr<Classifier> createMobileNetV3(const std::string &arch, int inChannels, const HeadOptions &head);
std::shared_ptr<Classifier> createEfficientNet(const std::string &arch, int inChannels, const HeadOptions &head);
std::shared_ptr<Classifier> createConvNeXt(const std::string &arch, int inChannels, const HeadOptions &head);
std::shared_ptr<Classifier> createVisionTransformer(const std::string &arch, int inChannels, const HeadOptions &head);

} // namespace lathe::engine::models
