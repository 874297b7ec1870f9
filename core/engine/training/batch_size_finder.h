#pragma once

// Torch-free: the workspace, the Train page and lathe-cli call it. The largest per-rank batch
// of a run config that fits the device's memory (Lightning's BatchSizeFinder, mode "binsearch"):
// doubling from a start batch until a batch does not fit, then a binary search between the last
// batch that fitted and the first that did not, capped by the training split.

#include "engine/base/task_control.h"
#include "engine/run/run_config.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lathe::engine {

struct BatchSizeFinderOptions
{
    int startBatch = 2;
    int maxBatch = 0;           // 0: no cap but the training split's
    // Bytes the run may use; 0: on the CPU the memory available now (MemAvailable, within the
    // cgroup's limit), on CUDA the device's own (an out-of-memory error decides).
    std::int64_t maxMemory = 0;
    int stepsPerTrial = 2;      // CUDA: real steps per tried batch (the first allocates the optimizer state)
};

struct BatchSizeTrial
{
    int batch = 0;
    std::int64_t bytes = 0; // CUDA: the peak allocated on the device, measured; CPU: the estimate
    bool fits = false;
    bool outOfMemory = false; // CUDA: the trial ran out of device memory (bytes: what it had allocated)
};

struct BatchSizeResult
{
    int batchSize = 0;       // per rank: optimizer.batch_size
    std::string stoppedBy;   // "memory", "dataset" (the split's cap) or "max_batch"
    std::vector<BatchSizeTrial> trials; // in the order tried
    bool measured = false;   // true: real steps on a CUDA device; false: the CPU estimate
    std::int64_t memoryLimit = 0; // the bytes trials were held to (0: CUDA's own limit, an OOM)
    int datasetCap = 0;      // the largest batch the training split gives one optimizer step per epoch
    std::string device;      // the run's first device
    int ranks = 1;           // CPU: ranks of this machine, each holding its own model and batches
    // CPU: bytes(batch) = bytesFixed + batch * bytesPerImage over all ranks: estimateTrainingMemory
    // (measured activations, parameters, gradients, optimizer state, EMA) plus the input
    // pipeline's batch buffers and data.cache_mb, per rank.
    std::int64_t bytesFixed = 0;
    std::int64_t bytesPerImage = 0;
    std::string note;        // what the figures leave out
};

// Finds the batch for config (its optimizer.batch_size is ignored). On CUDA each tried batch runs
// stepsPerTrial real training steps (forward, backward, optimizer step) of the run's model,
// optimizer and precision on the first device, on random images of the run's input shape, and
// an out-of-memory error (c10::OutOfMemoryError) means it does not fit. On the CPU, where a
// failed allocation does not fail cleanly, a batch fits when its estimate is within maxMemory.
// Capped by the training split: batch x ranks x optimizer.accumulate_steps <= its records.
// control.cancel stops it between trials (Cancelled). Throws EngineError for invalid options
// or configs, and when not even batch 1 fits.
BatchSizeResult findBatchSize(const RunConfig &config, const BatchSizeFinderOptions &options = {},
                              const TaskControl &control = {});

// The search alone: doubling from start (within [1, cap]) while fits(batch), then binary search
// between the last batch that fitted and the first that did not. Returns the largest batch
// found to fit (0 when not even 1 does); reachedCap tells whether it is cap itself.
int searchBatchSize(int start, int cap, const std::function<bool(int batch)> &fits, bool *reachedCap = nullptr);

// {"batch_size", "stopped_by", "trials": [{"batch", "bytes", "fits", "out_of_memory"}], "measured",
//  "memory_limit", "dataset_cap", "device", "ranks", "bytes_fixed", "bytes_per_image", "note"}
nlohmann::json batchSizeResultToJson(const BatchSizeResult &result);

// Bytes of memory available to this process now: /proc/meminfo's MemAvailable, lowered to what
// the cgroup (v2 memory.max minus memory.current) still allows. 0 when unknown.
std::int64_t availableMemoryBytes();

} // namespace lathe::engine
