#pragma once

// The run folder's layout: the names of its files and what makes a folder a run. The run folder
// is the contract between the engine, the workspace, the GUI, the CLI and users' scripts
// (DESIGN.md §2, docs/formats.md "Run folder"), so every one of them spells these names from
// here. Torch-free: the workspace and the widgets include it.
//
//   <run>/config.json            the run config, written atomically once
//   <run>/metrics.jsonl          one JSON event per line (run_events.h)
//   <run>/log.txt                the same events as readable lines with local timestamps
//   <run>/events.out.tfevents.*  TensorBoard scalars
//   <run>/annotations.json       what a user wrote about the run (name, notes, tags)
//   <run>/.lock                  locked while a process writes the run
//   <run>/checkpoints/           step-<n>.{safetensors,state.safetensors,json}, last.*, best.*
//                                (checkpoint_io.h)

#include "engine/formats/tensorboard_writer.h"

#include <cstdint>
#include <string>

namespace lathe::engine::run_layout {

inline constexpr const char *kConfigFile = "config.json";
inline constexpr const char *kMetricsFile = "metrics.jsonl";
inline constexpr const char *kLogFile = "log.txt";
inline constexpr const char *kAnnotationsFile = "annotations.json";
inline constexpr const char *kLockFile = ".lock";
inline constexpr const char *kTensorBoardPrefix = kTensorBoardFilePrefix;
inline constexpr const char *kCheckpointsFolder = "checkpoints";

// In checkpoints/: a checkpoint is <stem><suffix> files, the stem "step-<n>" or an alias.
inline constexpr const char *kStepPrefix = "step-";
inline constexpr const char *kLastAlias = "last";
inline constexpr const char *kBestAlias = "best";
inline constexpr const char *kSidecarSuffix = ".json";
inline constexpr const char *kModelSuffix = ".safetensors";
inline constexpr const char *kStateSuffix = ".state.safetensors";
inline constexpr const char *kLastSidecar = "last.json";
inline constexpr const char *kBestSidecar = "best.json";

// Paths inside runDir.
std::string configPath(const std::string &runDir);
std::string metricsPath(const std::string &runDir);
std::string logPath(const std::string &runDir);
std::string annotationsPath(const std::string &runDir);
std::string lockPath(const std::string &runDir);
std::string checkpointsPath(const std::string &runDir);
std::string lastSidecarPath(const std::string &runDir);
std::string bestSidecarPath(const std::string &runDir);

// "step-<n>".
std::string stepStem(std::int64_t step);
// The n of "step-<n>" (1 to 18 decimal digits, nothing else); -1 for any other name.
std::int64_t stepOfStem(const std::string &stem);

} // namespace lathe::engine::run_layout

namespace lathe::engine {

// Whether dir is a run folder: it holds a config.json (a file, or a link to one). Touches
// nothing, so it is cheap enough to list a folder of runs with.
bool isRunFolder(const std::string &dir);

} // namespace lathe::engine
