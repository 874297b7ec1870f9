#pragma once

// Engine-internal (training only): includes LibTorch. Where a rank's batches come from: the
// input pipeline, or the feature cache — a frozen backbone's embeddings, computed once before
// the ranks start, so each epoch trains only the head (feature_cache.mode in the run config).

#include "engine/dataset/shard_dataset.h"
#include "engine/models/networks/classifier.h"
#include "engine/pipeline/augmentation.h"
#include "engine/pipeline/input_pipeline.h"
#include "engine/training/run_setup.h"

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace lathe::engine {

// pool() embeddings of a frozen backbone: views x records of the train split (the records in
// their unshuffled order, found by their (shard, offset)), and the val split.
struct FeatureCache
{
    int views = 1;
    torch::Tensor train;       // float [views, R, D]
    torch::Tensor trainLabels; // int64 [R]
    std::unordered_map<std::uint64_t, std::int64_t> trainRow;
    torch::Tensor val;       // float [Rv, D] (undefined without validation)
    torch::Tensor valLabels; // int64 [Rv]
    std::unordered_map<std::uint64_t, std::int64_t> valRow;
    double buildSeconds = 0;
    double backboneImagesPerSecond = 0;
};

// Whether the augmentations give an image the same tensor every epoch (only resize and
// center_crop), so mode "auto" may cache its embedding.
bool deterministicAugmentations(const std::vector<AugmentationSpec> &augment);

// The augmentations without mixup and cutmix, which mix a batch's images: the cache holds
// each image's own embedding.
std::vector<AugmentationSpec> withoutBatchSteps(const std::vector<AugmentationSpec> &augment);

// Whether the model's embedding depends on no trainable parameter (so it may be cached): one
// tiny forward pass tells, whatever the architecture's stage layout.
bool embeddingFrozen(models::Classifier &model, const RunSetup &s);

// The embeddings of the train split (feature_cache.views views, each from its own epoch's
// augmentation) and of the val split, computed with model on device. Throws Cancelled when
// the run's cancel token fires.
std::shared_ptr<const FeatureCache> buildFeatureCache(RunSetup &s, models::Classifier &model, const torch::Device &device);

// The input pipeline of a split as rank `rank` reads it: shuffled and without the last short
// batch for training, in order and whole for validation.
PipelineOptions pipelineOptions(const RunSetup &s, const std::string &split, bool train, int rank);

// A rank's batches of one split: the input pipeline, or the feature cache (then the images are
// embeddings).
class BatchSource
{
public:
    virtual ~BatchSource() = default;
    virtual void start(std::int64_t epoch, std::int64_t firstBatch) = 0;
    virtual std::optional<Batch> next() = 0;
    virtual std::int64_t batchesPerEpoch() const = 0;
    virtual double waitSeconds() const = 0;
};

class PipelineSource : public BatchSource
{
public:
    explicit PipelineSource(PipelineOptions options)
        : m_pipeline(std::move(options))
    {
    }
    void start(std::int64_t epoch, std::int64_t firstBatch) override { m_pipeline.startEpoch(epoch, firstBatch); }
    std::optional<Batch> next() override { return m_pipeline.next(); }
    std::int64_t batchesPerEpoch() const override { return m_pipeline.batchesPerEpoch(); }
    double waitSeconds() const override { return m_pipeline.stats().consumerWaitSeconds; }

private:
    InputPipeline m_pipeline;
};

// The epoch orders the pipeline would use (ShardDataset::epochOrder), over cached rows: the same
// batches as the uncached path, with the embeddings instead of the images.
class CacheSource : public BatchSource
{
public:
    CacheSource(const RunSetup &s, const std::string &split, bool train, int rank);
    void start(std::int64_t epoch, std::int64_t firstBatch) override;
    std::optional<Batch> next() override;
    std::int64_t batchesPerEpoch() const override { return m_batches; }
    double waitSeconds() const override { return 0; }

private:
    ShardDataset m_dataset;
    std::shared_ptr<const FeatureCache> m_cache;
    std::string m_split;
    bool m_train;
    int m_rank;
    int m_world;
    std::uint64_t m_seed;
    int m_batch;
    std::int64_t m_batches = 0;
    std::int64_t m_epoch = 0;
    std::int64_t m_next = 0;
    std::vector<RecordRef> m_order;
};

} // namespace lathe::engine
