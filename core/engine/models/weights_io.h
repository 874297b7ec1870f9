#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.

#include "engine/formats/safetensors.h"
#include "engine/models/backbone_registry.h"
#include "engine/models/model_spec.h"

#include <torch/nn/module.h>

#include <string>

namespace lathe::engine {

// A module's parameters and buffers under their dotted names: the content of torchvision's
// state_dict() (BatchNorm's num_batches_tracked included). The tensors are the module's own.
NamedTensors stateDict(const torch::nn::Module &module);

// Reads a weights file, picking the reader by its first bytes: a zip ("PK") is a torch.save
// .pth, anything else safetensors. Names under a common "module." (DataParallel) or "model."
// prefix lose it; a checkpoint with "model." and "optimizer." tensors gives the model's.
// Throws EngineError naming the file and the reason.
NamedTensors readWeightsFile(const std::string &path);

// Copies the tensors whose names and shapes match into the model (converted to its dtype and
// device) and reports the rest. With info:
//  - a head parameter (info->headParameters) whose shape differs (another class count) keeps
//    its fresh initialisation and sets headReplaced instead of counting as mismatched;
//  - the stem (info->stemParameter) saved for 3 input channels is adapted to the model's C:
//    C == 1 sums the RGB filters (a grey image x gives what the RGB model gives for (x, x, x));
//    other C repeat the RGB filters cyclically, scaled by 3 / C. stemAdapted says so.
// A file without BatchNorm's num_batches_tracked (older torchvision checkpoints) is not
// reported missing: the counter only matters with momentum None.
LoadReport loadStateDict(torch::nn::Module &model, const NamedTensors &tensors, const BackboneInfo *info = nullptr);

} // namespace lathe::engine
