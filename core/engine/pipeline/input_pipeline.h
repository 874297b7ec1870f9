#pragma once

// Engine-internal: uses LibTorch types. Not for workspace or widgets.

#include "engine/dataset/shard_dataset.h"
#include "engine/pipeline/sample_transform.h"

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lathe::engine {

struct PipelineOptions
{
    std::string datasetDir;
    std::string split = "train";
    TransformOptions transform;
    int batchSize = 64;
    int threads = 0;         // 0: every hardware thread
    int prefetchBatches = 0; // batches being filled or waiting for the consumer; 0: 2 * threads
    std::uint64_t seed = 0;
    int rank = 0;
    int worldSize = 1;
    bool shuffle = true;
    bool dropLast = true;
    std::size_t cacheBytes = 0; // in-RAM cache budget for decoded images (decodeForCache); 0: off
    bool pinMemory = false;     // page-locked batch buffers, when CUDA is available
    int numClasses = 0;         // width of the soft targets of mixup/cutmix; 0: the dataset's classes
    RecordSelection selection;  // folds and the balanced sampler (ShardDataset::epochOrder)
};

struct Batch
{
    // [N, C, H, W]: float32 normalized, or uint8 with TransformOptions::uint8Output; in the
    // channels-last memory format with TransformOptions::channelsLast. The storage belongs to
    // the pipeline's buffer pool and is reused once every tensor sharing it is gone.
    at::Tensor images;
    at::Tensor labels;      // int64 [N]; a multi-label record's first (lowest) label
    // float [N, K] when the augmentations have mixup/cutmix, or the dataset is multi-label
    // (rows multi-hot, mixed by mixup/cutmix), else undefined
    at::Tensor softTargets;
    // Position, in this rank's epoch order, of the record each sample was made from (a sample
    // standing in for a corrupt record names the record it was made from).
    std::vector<std::uint64_t> recordIndices;
    // The record itself, for each sample: its shard (index into the manifest's shards) and offset.
    std::vector<std::uint32_t> recordShards;
    std::vector<std::uint64_t> recordOffsets;
    std::int64_t epoch = 0;
    std::int64_t index = 0; // batch number within the epoch
    int errors = 0;         // records of this batch's range that failed and were replaced or dropped
};

struct PipelineStats
{
    double imagesPerSecond = 0; // images delivered per second of active epochs
    std::uint64_t images = 0;  // delivered by next()
    std::uint64_t batches = 0;
    std::uint64_t errors = 0;  // bad records of the delivered batches (Batch::errors summed)
    double consumerWaitSeconds = 0; // total time next() blocked: the trainer's "input-bound" signal
    double lastWaitSeconds = 0;     // how long the last next() blocked
    std::vector<std::string> errorSamples; // the first few distinct errors, naming shard, offset, reason
    std::size_t cacheBytesUsed = 0;
    std::uint64_t cacheHits = 0;
    int threads = 0;
    int prefetchBatches = 0;
    int buffersInFlightPeak = 0; // most batch buffers being filled or queued at once (<= prefetchBatches)
    // Batch buffers allocated: prefetchBatches + 1 while the consumer holds one batch at a time;
    // more only when it keeps batches (whose storage is then its own).
    std::uint64_t bufferAllocations = 0;
};

// The multi-threaded input pipeline: worker threads, each with its own ShardDataset, take
// batch jobs in order (batch b is records [b*N, (b+1)*N) of this rank's epoch order), decode
// and augment each sample straight into its slot of a pooled batch buffer, and hand finished
// batches to the consumer in order through a bounded queue. Memory is bounded by
// prefetchBatches + 1 batch buffers (the +1 being the batch the consumer holds) plus the cache
// budget, whatever the dataset's size.
//
// Deterministic: a sample's randomness comes from (seed, epoch, rank, position) alone, and
// mixup/cutmix's from (seed, epoch, rank, batch), so a seed gives the same batches with any
// number of threads.
//
// Corrupt records (unreadable, undecodable, label out of range) are counted, the first few
// messages kept, and the sample is made from the next record of the epoch order instead
// (wrapping around; the first readable one of up to 16 tries), so batches keep their size;
// only when every try fails does the batch shrink by that sample.
//
// One consumer thread calls startEpoch/next/stats; cancel() may be called from any thread.
class InputPipeline
{
public:
    // Throws EngineError for invalid options, an unreadable dataset or uint8 output together
    // with mixup/cutmix (which needs float pixels).
    explicit InputPipeline(PipelineOptions options);
    ~InputPipeline(); // cancels and joins every worker
    InputPipeline(const InputPipeline &) = delete;
    InputPipeline &operator=(const InputPipeline &) = delete;

    // Starts (or restarts) an epoch: its order is reshuffled from (seed, epoch); batches of
    // an unfinished previous epoch are dropped.
    void startEpoch(std::int64_t epoch);
    // As above, starting at batch firstBatch of the epoch's order (a resumed run continues
    // mid-epoch); the batches delivered are those the whole epoch would have delivered from there.
    void startEpoch(std::int64_t epoch, std::int64_t firstBatch);

    // The next batch in order; nullopt at the end of the epoch. Throws Cancelled after
    // cancel(), and EngineError if a worker failed outside a single record (e.g. it could not
    // open the dataset).
    std::optional<Batch> next();

    std::int64_t batchesPerEpoch() const;
    std::uint64_t recordsPerEpoch() const; // this rank's records
    const PipelineOptions &options() const;
    PipelineStats stats() const;

    // Thread-safe; wakes everything. Workers stop between samples; next() then throws Cancelled.
    void cancel();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine
