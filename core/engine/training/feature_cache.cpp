#include "engine/training/feature_cache.h"

#include "engine/base/engine_error.h"
#include "engine/training/train_util.h"

#include <algorithm>

namespace lathe::engine {
namespace {

// A record's row key in the cache: its shard and its offset in the shard.
std::uint64_t recordKey(const RecordRef &ref)
{
    return (std::uint64_t(ref.shard) << 44) ^ ref.entry.offset;
}

} // namespace

bool deterministicAugmentations(const std::vector<AugmentationSpec> &augment)
{
    for (const AugmentationSpec &a : augment)
        if (a.type != "resize" && a.type != "center_crop")
            return false;
    return true;
}

std::vector<AugmentationSpec> withoutBatchSteps(const std::vector<AugmentationSpec> &augment)
{
    std::vector<AugmentationSpec> out;
    for (const AugmentationSpec &a : augment)
        if (a.type != "mixup" && a.type != "cutmix")
            out.push_back(a);
    return out;
}

PipelineOptions pipelineOptions(const RunSetup &s, const std::string &split, bool train, int rank)
{
    PipelineOptions o;
    o.datasetDir = s.config.data.shards;
    o.split = split;
    const DataConfig &data = s.config.data;
    if (data.folds > 0) {
        // Folds split the training split: train on the other folds, validate on this one.
        o.split = data.trainSplit;
        o.selection.folds = data.folds;
        o.selection.fold = data.fold;
        o.selection.heldOut = !train;
    }
    if (train && data.balance == "balanced_sampler")
        o.selection.sampler = "inverse";
    else if (train && data.balance == "sqrt_sampler")
        o.selection.sampler = "sqrt";
    o.transform = train ? s.trainTransform : s.valTransform;
    o.batchSize = s.config.optimizer.batchSize;
    o.threads = s.workersPerRank;
    o.seed = s.config.seed;
    o.rank = rank;
    o.worldSize = s.worldSize;
    o.shuffle = train;
    o.dropLast = train;
    o.cacheBytes = s.config.data.cacheMb * 1024 * 1024;
    o.numClasses = s.numClasses;
    // Page-locked batches on CUDA, so the copy to the device (non_blocking) overlaps the step.
    o.pinMemory = std::any_of(s.devices.begin(), s.devices.end(), [](const torch::Device &d) { return d.is_cuda(); });
    return o;
}

// ---- the cache ------------------------------------------------------------------------------

bool embeddingFrozen(models::Classifier &model, const RunSetup &s)
{
    torch::AutoGradMode grad(true);
    const bool wasTraining = model.is_training();
    model.eval();
    const int c = s.spec.inChannels;
    const torch::Tensor x = torch::zeros({1, c, s.trainTransform.imageSize, s.trainTransform.imageSize});
    const bool frozen = !model.pool(model.featureMap(x)).requires_grad();
    model.train(wasTraining);
    return frozen;
}

std::shared_ptr<const FeatureCache> buildFeatureCache(RunSetup &s, models::Classifier &model, const torch::Device &device)
{
    auto cache = std::make_shared<FeatureCache>();
    cache->views = s.config.featureCache.mode == "fixed_views" ? std::max(1, s.config.featureCache.views) : 1;
    const Clock::time_point start = Clock::now();
    model.to(device);
    model.eval();
    torch::NoGradGuard noGrad;
    std::int64_t images = 0;
    const auto embed = [&](const std::string &split, bool train, int views, std::vector<torch::Tensor> &out,
                           torch::Tensor &labels, std::unordered_map<std::uint64_t, std::int64_t> &rowOf) {
        ShardDataset dataset(s.config.data.shards);
        const std::vector<RecordRef> order = dataset.epochOrder(split, s.config.seed, 0, 0, 1, false);
        for (int v = 0; v < views; ++v) {
            PipelineOptions o = pipelineOptions(s, split, train, 0);
            o.worldSize = 1;
            o.shuffle = false;
            o.dropLast = false;
            o.transform.augmentations = withoutBatchSteps(o.transform.augmentations);
            o.threads = std::max(1, s.workersPerRank * s.localRanks);
            InputPipeline pipeline(o);
            pipeline.startEpoch(v); // the view's randomness (fixed_views) comes from its epoch
            const std::size_t n = order.size();
            torch::Tensor features;
            std::vector<std::int64_t> labelOf(n, -1);
            while (std::optional<Batch> b = pipeline.next()) {
                if (s.control.cancel.isCancelled())
                    throw Cancelled();
                torch::Tensor x = b->images.to(device);
                const torch::Tensor e = model.pool(model.featureMap(x)).to(torch::kCPU, torch::kFloat32);
                if (!features.defined())
                    features = torch::zeros({std::int64_t(n), e.size(1)});
                for (std::int64_t i = 0; i < e.size(0); ++i) {
                    const std::uint64_t pos = b->recordIndices[std::size_t(i)];
                    features[std::int64_t(pos)].copy_(e[i]);
                    labelOf[pos] = b->labels[i].item<std::int64_t>();
                }
                images += e.size(0);
            }
            if (v == 0) {
                for (std::size_t i = 0; i < n; ++i)
                    rowOf[recordKey(order[i])] = std::int64_t(i);
                labels = torch::tensor(labelOf, torch::kInt64);
            }
            out.push_back(features.defined() ? features : torch::zeros({0, 0}));
        }
    };
    std::vector<torch::Tensor> trainViews;
    embed(s.config.data.trainSplit, true, cache->views, trainViews, cache->trainLabels, cache->trainRow);
    cache->train = torch::stack(trainViews);
    if (s.hasVal) {
        std::vector<torch::Tensor> valViews;
        embed(s.config.data.valSplit, false, 1, valViews, cache->valLabels, cache->valRow);
        cache->val = valViews.front();
    }
    cache->buildSeconds = secondsSince(start);
    cache->backboneImagesPerSecond = cache->buildSeconds > 0 ? double(images) / cache->buildSeconds : 0;
    model.train();
    return cache;
}

// ---- reading it -----------------------------------------------------------------------------

CacheSource::CacheSource(const RunSetup &s, const std::string &split, bool train, int rank)
    : m_dataset(s.config.data.shards)
    , m_cache(s.cache)
    , m_split(split)
    , m_train(train)
    , m_rank(rank)
    , m_world(s.worldSize)
    , m_seed(s.config.seed)
    , m_batch(s.config.optimizer.batchSize)
{
    const std::uint64_t n = m_dataset.size(split) / std::uint64_t(m_world);
    m_batches = train ? std::int64_t(n / std::uint64_t(m_batch))
                      : std::int64_t((n + std::uint64_t(m_batch) - 1) / std::uint64_t(m_batch));
}

void CacheSource::start(std::int64_t epoch, std::int64_t firstBatch)
{
    m_epoch = epoch;
    m_order = m_dataset.epochOrder(m_split, m_seed, std::uint64_t(m_train ? epoch : 0), m_rank, m_world, m_train);
    m_next = firstBatch;
}

std::optional<Batch> CacheSource::next()
{
    if (m_next >= m_batches)
        return std::nullopt;
    const std::int64_t begin = m_next * m_batch;
    const std::int64_t end = std::min<std::int64_t>(begin + m_batch, std::int64_t(m_order.size()));
    const auto &rowOf = m_train ? m_cache->trainRow : m_cache->valRow;
    std::vector<std::int64_t> rows;
    rows.reserve(std::size_t(end - begin));
    for (std::int64_t i = begin; i < end; ++i) {
        auto it = rowOf.find(recordKey(m_order[std::size_t(i)]));
        if (it != rowOf.end()) // a record that failed while caching has no row
            rows.push_back(it->second);
    }
    const torch::Tensor index = torch::tensor(rows, torch::kInt64);
    Batch b;
    if (m_train) {
        const std::int64_t view = m_epoch % m_cache->views;
        b.images = m_cache->train[view].index_select(0, index);
        b.labels = m_cache->trainLabels.index_select(0, index);
    } else {
        b.images = m_cache->val.index_select(0, index);
        b.labels = m_cache->valLabels.index_select(0, index);
    }
    b.epoch = m_epoch;
    b.index = m_next++;
    return b;
}

} // namespace lathe::engine
