#pragma once

// Engine-internal: includes LibTorch. Used by engine .cpp files and engine tests only.
//
// Checkpoints of a run, in <run>/checkpoints/:
//   step-<n>.safetensors        the model's state dict under torchvision's parameter names only,
//                               so it loads into torchvision with strict=True and works as --weights
//   step-<n>.state.safetensors  training state tensors: "optimizer.*", "scaler.*", "ema.*"
//                               (absent when there are none)
//   step-<n>.json               the sidecar, written LAST: {format_version, step, epoch,
//                               batch_in_epoch, scheduler, rng, metrics, config_sha256,
//                               files: {model: {name, sha256, bytes}, state: {...}}, wall_time}
//                               plus any other keys the trainer put in meta
//   last.safetensors, last.state.safetensors, last.json   the newest checkpoint
//   best.safetensors, best.json  the model with the best policy metric so far (no training
//                               state); best.json also holds best_metric and best_value
// A checkpoint exists only when its sidecar exists and the files it names have their recorded
// sizes (and SHA-256, when verify is asked): tensor files are fsynced and renamed in place
// before the sidecar is written, so a kill at any moment leaves either a complete checkpoint or
// leftovers that loading skips and the next writeCheckpoint() removes.
// last.* and best.* are hard links to the step files (copies where the file system has no hard
// links). Step files are never modified in place — only replaced by rename or unlinked — so
// deleting a step file never touches the data a link still names.

#include "engine/formats/safetensors.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lathe::engine {

constexpr int kCheckpointFormatVersion = 1;

struct CheckpointPolicy
{
    // Step checkpoints kept (the newest K; the one just written always counts). 0 keeps only
    // last.* and best.*.
    int keep = 3;
    // The meta.metrics key best.* follows, e.g. "val_top1" or "val_loss"; lower is better when
    // it ends in "loss" (metricLowerIsBetter). Empty: no best.
    std::string bestMetric;
};

struct CheckpointData
{
    nlohmann::json meta; // the sidecar
    NamedTensors model;
    NamedTensors state;  // empty when the checkpoint has no state file
    std::string sidecarPath;
};

// What resolveCheckpoint() found.
struct CheckpointRef
{
    std::string sidecar; // empty for a weights file without a sidecar (evaluate/export may still use it)
    std::string model;   // the model weights file
    std::int64_t step = -1;
};

// Writes checkpoint `step` of runDir, then updates last.*, best.* (when meta.metrics[bestMetric]
// improves on best.json's) and deletes step checkpoints beyond policy.keep together with any
// leftovers of killed writes. meta: the trainer's fields (epoch, batch_in_epoch — the next
// batch of that epoch, 0 when the epoch is complete —, scheduler, rng, metrics; opaque JSON);
// format_version, step, files and wall_time are set here, and config_sha256 (of the run's
// config.json) when meta has none. Returns the sidecar that holds the checkpoint: step-<n>.json,
// or last.json when keep is 0. Single writer per run (RunFolder's lock). Throws EngineError.
std::string writeCheckpoint(const std::string &runDir, std::int64_t step, const nlohmann::json &meta,
                            const NamedTensors &model, const NamedTensors &state, const CheckpointPolicy &policy);

// The complete checkpoint with the highest step (step-<n>.json or last.json), for resuming;
// nullopt when the run has none. Incomplete or corrupt ones (a temp file or a sidecar-less step
// file left by kill -9, a sidecar naming a missing or short file, unreadable tensors) are
// skipped with a line in notes. Throws EngineError (listing why) only when sidecars exist but
// none of them is usable: silently starting over would overwrite a run.
std::optional<CheckpointData> loadLatestCheckpoint(const std::string &runDir, std::vector<std::string> *notes = nullptr,
                                                   bool verify = false);

// One checkpoint, from its sidecar or its model file (X.safetensors -> X.json). Throws
// EngineError naming the file and the reason.
CheckpointData loadCheckpoint(const std::string &pathOfSidecarOrModelFile, bool verify = false);

// Checks a sidecar and the files it names (sizes; SHA-256 with verify) without loading any
// tensor. Returns the sidecar; throws EngineError naming the file and the reason.
nlohmann::json checkCheckpoint(const std::string &sidecarPath, bool verify = false);

// The per-class thresholds of a multi-label model, from its sidecar (meta): the F1-tuned
// "metrics.thresholds" the trainer records, or 0.5 (the sigmoid's midpoint) for each class of a
// checkpoint written before any validation. Throws EngineError naming the sidecar when they are
// not numbers or not one per class. (The sidecar's "task" says whether a model is multi-label.)
std::vector<double> checkpointThresholds(const nlohmann::json &meta, const std::string &sidecarPath,
                                         std::size_t classes);

// "best", "last" (last.json, else the newest complete step), "latest" (the newest complete
// step, last.json included), "step-<n>" / "<n>", or a file: a sidecar or model file of a
// checkpoint, or any weights file (then sidecar is empty). A relative file name is looked up
// as given, then in runDir/checkpoints. Throws EngineError when nothing usable matches.
CheckpointRef resolveCheckpoint(const std::string &runDir, const std::string &which);

} // namespace lathe::engine
