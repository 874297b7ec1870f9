#pragma once

#include "engine/run/run_config.h"

#include <string>

// The short real run the Evaluate and Export page tests train on the demo images: ResNet-18
// from scratch on one channel at 32 pixels, one epoch, no augmentation, a fixed seed.
inline lathe::engine::RunConfig smallRunConfig(const std::string &shards, const std::string &valSplit)
{
    lathe::engine::RunConfig config;
    config.data.shards = shards;
    config.data.valSplit = valSplit;
    config.data.imageSize = 32;
    config.data.augment = {};
    config.data.workers = 1;
    config.model.arch = "resnet18";
    config.model.inChannels = 1;
    config.optimizer.batchSize = 16;
    config.optimizer.epochs = 1;
    config.optimizer.lr = 0.05;
    config.featureCache.mode = "off";
    config.seed = 7;
    return config;
}
