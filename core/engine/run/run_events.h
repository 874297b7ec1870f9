#pragma once

// The events of a run's metrics.jsonl: their type names and the keys that readers rely on.
// Writers (the trainer) and readers (run_folder, the CLI, the workspace, the Runs and Train
// pages) spell them from here; docs/formats.md documents exactly kAllEventTypes (a unit test
// compares them). Torch-free: the workspace and the widgets include it.

#include <array>
#include <string>

namespace lathe::engine {

namespace event_type {

inline constexpr const char *kStep = "step";         // an optimizer step (rate-limited, see docs)
inline constexpr const char *kEpoch = "epoch";       // the end of an epoch: its metrics
inline constexpr const char *kCheckpoint = "checkpoint";
inline constexpr const char *kLog = "log";
inline constexpr const char *kResumed = "resumed";
inline constexpr const char *kOverflowSkipped = "overflow_skipped"; // fp16: a step the loss scaler skipped
// The ends of a run.
inline constexpr const char *kFinished = "finished";
inline constexpr const char *kFailed = "failed";
inline constexpr const char *kCancelled = "cancelled";

} // namespace event_type

// A run's state as readers of its folder tell it (RunInfo::state, the trainer summary's
// "status"; docs/formats.md "Run states"): running while a process holds the run's lock, else
// the type of its last end event, or interrupted when none follows its last start. Every reader
// spells them from here; the workbench shows them with workspace::runStateText.
namespace run_state {

inline constexpr const char *kRunning = "running";
inline constexpr const char *kFinished = event_type::kFinished;
inline constexpr const char *kFailed = event_type::kFailed;
inline constexpr const char *kCancelled = event_type::kCancelled; // Stop or Ctrl+C: shown as "Stopped"
inline constexpr const char *kInterrupted = "interrupted";        // killed, crashed: resume it

} // namespace run_state

// Every type a metrics.jsonl event may have; RunFolder::appendMetrics refuses others.
inline constexpr std::array<const char *, 9> kAllEventTypes = {
    event_type::kStep,     event_type::kEpoch,  event_type::kCheckpoint, event_type::kLog,
    event_type::kFinished, event_type::kFailed, event_type::kCancelled,  event_type::kResumed,
    event_type::kOverflowSkipped};

namespace event_key {

// Every event.
inline constexpr const char *kType = "type";
inline constexpr const char *kTime = "time"; // seconds since the Unix epoch
// Most events: the optimizer steps done and the epoch (0-based) when it was written.
inline constexpr const char *kStep = "step";
inline constexpr const char *kEpoch = "epoch";
// log, failed, cancelled.
inline constexpr const char *kMessage = "message";
// log of a cross-validation (inference/cross_validation.h) as a fold starts: its number, 1-based.
inline constexpr const char *kFold = "fold";
// step.
inline constexpr const char *kLoss = "loss";
inline constexpr const char *kLr = "lr";
inline constexpr const char *kTotalSteps = "total_steps";
inline constexpr const char *kImagesPerSecond = "images_per_s";
inline constexpr const char *kInputWaitFraction = "input_wait_fraction";
inline constexpr const char *kCommFraction = "comm_fraction"; // in the gradient all-reduce; 0 with one rank
// step and epoch on a CUDA device: the caching allocator's memory in MiB (tensors alive, held
// from the driver, the peak since the epoch began) and, where NVML loads, the GPU's utilisation
// (0-1 of the last sample period) and its memory used by every process.
inline constexpr const char *kGpuMemoryAllocatedMiB = "gpu_memory_allocated_mib";
inline constexpr const char *kGpuMemoryReservedMiB = "gpu_memory_reserved_mib";
inline constexpr const char *kGpuMemoryPeakMiB = "gpu_memory_peak_mib";
inline constexpr const char *kGpuUtilization = "gpu_utilization";
inline constexpr const char *kGpuMemoryUsedMiB = "gpu_memory_used_mib";
inline constexpr const char *kGpuMemoryTotalMiB = "gpu_memory_total_mib";
// epoch: the metrics under the run config's names ("train_loss", "val_top1", ...) and these.
inline constexpr const char *kSeconds = "seconds";
inline constexpr const char *kFeatureCache = "feature_cache";
// checkpoint.
inline constexpr const char *kPath = "path";
inline constexpr const char *kReason = "reason";
// resumed.
inline constexpr const char *kBatchInEpoch = "batch_in_epoch";
inline constexpr const char *kCheckpoint = "checkpoint";
// overflow_skipped.
inline constexpr const char *kScale = "scale";
inline constexpr const char *kSkippedTotal = "skipped_total";
// finished, cancelled.
inline constexpr const char *kSteps = "steps";
inline constexpr const char *kEpochs = "epochs";
inline constexpr const char *kStoppedEarly = "stopped_early";
// Readers also look for an epoch's metrics under this object.
inline constexpr const char *kMetrics = "metrics";

} // namespace event_key

// Whether type is one of kAllEventTypes.
bool isEventType(const std::string &type);
// Whether type ends a run: finished, failed or cancelled. A run whose last such event is older
// than its last "resumed" (or that has none) was interrupted.
bool isEndEventType(const std::string &type);

} // namespace lathe::engine
