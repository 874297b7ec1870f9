#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.
//
// A trained model ready for inference: the run's architecture with a checkpoint's weights, its
// class names and the evaluation transform the trainer validated with. Shared by evaluation,
// prediction and Grad-CAM so the three see exactly the same model and pixels.

#include "engine/models/backbone_registry.h"
#include "engine/models/model_spec.h"
#include "engine/models/networks/classifier.h"
#include "engine/pipeline/sample_transform.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_config.h"

#include <torch/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

struct RunModel
{
    std::shared_ptr<models::Classifier> classifier; // eval mode, on device
    torch::Device device = torch::kCPU;
    BackboneInfo info;
    ModelSpec spec;           // the built model (weightsPath cleared: the weights come from checkpoint)
    RunConfig config;         // the run's config.json (default config for a bare model)
    std::string runDir;       // empty for a bare model
    CheckpointRef checkpoint; // the weights file loaded
    std::vector<std::string> classes; // label i is classes[i]; "class_<i>" when no name is known
    TransformOptions transform;       // the evaluation transform (train false)
    // "single_label" or "multi_label" (the checkpoint sidecar's "task", else the run's dataset).
    // Multi-label models score each class with a sigmoid; thresholds (per class, F1-tuned on the
    // validation split when the checkpoint was written) decide which labels an image gets.
    std::string task = "single_label";
    std::vector<double> thresholds;
    bool multiLabel() const { return task == "multi_label"; }
};

// Loads runDir's config.json and checkpoint `which` (resolveCheckpoint: "best", "last", a step,
// a file). "best" falls back to "last" when the run has no best checkpoint (no validation).
// Class names come from the checkpoint's sidecar, else the run's dataset.json. The weights must
// match the model exactly (no missing, mismatched or extra tensors). Throws EngineError naming
// the file and the reason.
RunModel loadRunModel(const std::string &runDir, const std::string &which = "best", const std::string &device = {});

// loadRunModel through a one-entry cache: the same run, checkpoint name and device give the
// same model while the checkpoint file it resolved to is unchanged (path, size, modification
// time). For repeated single-image work (Grad-CAM, "try an image"); thread-safe. The model
// must only be used for inference (eval mode, no parameter changes).
std::shared_ptr<const RunModel> cachedRunModel(const std::string &runDir, const std::string &which = "best",
                                               const std::string &device = {});

// A model outside a run folder: spec (weightsPath required), class names (may be empty: named
// "class_<i>"), the crop size (0: the backbone's).
RunModel loadBareModel(const ModelSpec &spec, const std::vector<std::string> &classes, int imageSize,
                       const std::string &device = {});

// The bytes of a user's file (an image to predict or explain): a regular file of at most 1 GiB.
// Throws EngineError naming the file and the reason (missing, a folder or device, too large,
// unreadable).
std::vector<std::uint8_t> readInputFile(const std::string &path);

// Top-k of one probability row (most probable first; lower index first on ties).
void topClasses(const float *probs, int classes, int k, std::vector<int> &indices, std::vector<float> &values);

} // namespace lathe::engine
