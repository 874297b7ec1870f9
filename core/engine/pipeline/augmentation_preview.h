#pragma once

#include "engine/pipeline/augmentation.h"

#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// One augmented image for the GUI's augmentation preview: 8-bit RGB, rows top to bottom.
struct PreviewImage
{
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb; // width * height * 3
    std::string label;             // class name, or the mix ("cat 0.62 + dog 0.38")
};

// The first `count` records of a split of a converted dataset (shard order, no shuffle),
// each through the training augmentations at imageSize (mixup/cutmix applied to the group
// when the list has them). The same seed gives the same images. Throws EngineError for a
// missing dataset or split, an invalid list or an undecodable record (naming it).
std::vector<PreviewImage> previewAugmentations(const std::string &datasetDir, const std::string &split, int count,
                                               const std::vector<AugmentationSpec> &augmentations, int imageSize,
                                               std::uint64_t seed);

// The same for encoded images held in memory (labels: "image i").
std::vector<PreviewImage> previewAugmentationsOnImages(const std::vector<std::string> &encodedImages,
                                                       const std::vector<AugmentationSpec> &augmentations, int imageSize,
                                                       std::uint64_t seed);

} // namespace lathe::engine
