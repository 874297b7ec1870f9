#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace lathe::engine {

// One step of the augmentation list of a run config ("data.augment"), e.g.
//   {"type": "random_resized_crop", "p": 1, "scale": [0.08, 1], "ratio": [0.75, 1.3333]}
// Types and parameters follow torchvision's transforms of the same name (snake_case), so a
// known setting means the same thing here. params holds the object without "type" and "p".
struct AugmentationSpec
{
    std::string type;
    double probability = 1;
    nlohmann::json params = nlohmann::json::object();
};

// Parses and validates a list; throws EngineError naming the field, e.g.
// "data.augment[2].scale: expected two numbers 0 < min <= max <= 1".
std::vector<AugmentationSpec> parseAugmentations(const nlohmann::json &list);
nlohmann::json augmentationsToJson(const std::vector<AugmentationSpec> &list);

// torchvision's ImageNet training recipe: random_resized_crop + horizontal_flip (p 0.5).
// (Normalization with the backbone's mean/std always ends the pipeline.)
std::vector<AugmentationSpec> standardAugmentations();

// Every type name parseAugmentations accepts, in the order the UI offers them.
const std::vector<std::string> &augmentationTypes();

} // namespace lathe::engine
