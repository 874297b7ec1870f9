#include "engine/training/trainer.h"

#include "engine/run/checkpoint_io.h"
#include "engine/training/distributed.h"
#include "engine/base/engine_error.h"
#include "engine/models/freezing.h"
#include "engine/training/grad_scaler.h"
#include "engine/pipeline/input_pipeline.h"
#include "engine/training/loss_functions.h"
#include "engine/training/lr_schedule.h"
#include "engine/models/model_builder.h"
#include "engine/models/model_zoo.h"
#include "engine/training/optimizer_factory.h"
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "engine/run/run_layout.h"
#include "engine/training/devices.h"
#include "engine/dataset/shard_dataset.h"
#include "engine/base/torch_compat.h"
#include "engine/training/weight_ema.h"
#include "engine/models/weights_io.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <unistd.h>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

double unixTime()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// SplitMix64 finaliser: well-spread seeds from (seed, rank, position).
std::uint64_t mixSeed(std::uint64_t a, std::uint64_t b, std::uint64_t c)
{
    std::uint64_t x = a ^ (b * 0x9E3779B97F4A7C15ull) ^ (c * 0xC2B2AE3D27D4EB4Full + 0x165667B19E3779F9ull);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x & 0x7FFFFFFFFFFFFFFFull; // torch seeds are taken as int64 by some callers
}

std::uint64_t recordKey(const RecordRef &ref)
{
    return (std::uint64_t(ref.shard) << 44) ^ ref.entry.offset;
}

// ---- model zoo weights ----------------------------------------------------------------------

std::vector<std::string> weightsCacheDirs()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("LATHE_WEIGHTS_CACHE"); env && *env)
        dirs.emplace_back(env);
    std::string cacheHome;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        cacheHome = xdg;
    else if (const char *home = std::getenv("HOME"); home && *home)
        cacheHome = std::string(home) + "/.cache";
    if (!cacheHome.empty()) {
        dirs.push_back(cacheHome + "/Lathe/lathe/weights"); // the GUI's (QStandardPaths::CacheLocation + /weights)
        dirs.push_back(cacheHome + "/Lathe/weights");
        dirs.push_back(cacheHome + "/torch/hub/checkpoints"); // torchvision's own downloads share names
    }
    return dirs;
}

std::string resolveZooWeights(const std::string &arch)
{
    const std::vector<ZooWeights> zoo = loadModelZoo(findModelZooFile());
    const ZooWeights *w = defaultWeights(zoo, arch);
    if (!w)
        throw EngineError("model.weights: the model zoo has no pretrained weights for " + arch);
    const std::string name = cacheFileName(*w);
    std::string looked;
    for (const std::string &dir : weightsCacheDirs()) {
        const fs::path p = fs::path(dir) / name;
        std::error_code ec;
        if (fs::is_regular_file(p, ec))
            return p.string();
        looked += (looked.empty() ? "" : ", ") + dir;
    }
    throw EngineError("model.weights: the zoo weights of " + arch + " (" + name +
                      ") are not downloaded; looked in " + looked +
                      ". Download them on the Model page (or put the file in $LATHE_WEIGHTS_CACHE)");
}

// ---- devices and autocast -------------------------------------------------------------------

// optimizer.zero_grad(set_to_none=True), PyTorch's default: backward() then writes each
// gradient instead of adding it to zeros (one pass less over every gradient each step); a
// parameter without one is skipped by the optimizer, as in PyTorch.
void clearGradients(torch::optim::Optimizer &optimizer)
{
    for (auto &group : optimizer.param_groups())
        for (auto &p : group.params())
            p.mutable_grad().reset();
}

void toChannelsLast(torch::nn::Module &model)
{
    torch::NoGradGuard noGrad;
    for (auto &p : model.parameters())
        if (p.dim() == 4)
            p.set_data(p.contiguous(at::MemoryFormat::ChannelsLast));
    for (auto &b : model.buffers())
        if (b.dim() == 4)
            b.set_data(b.contiguous(at::MemoryFormat::ChannelsLast));
}

// ---- feature cache --------------------------------------------------------------------------

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

// ---- the run --------------------------------------------------------------------------------

struct RunSetup
{
    RunConfig config;
    std::string runDir;
    TrainControl control;
    std::unique_ptr<RunFolder> folder;
    DatasetManifest manifest;
    int numClasses = 0;
    ModelSpec spec;
    BackboneInfo info;
    TransformOptions trainTransform;
    TransformOptions valTransform;
    bool hasVal = false;
    std::vector<torch::Device> devices;
    int localRanks = 1;
    int worldSize = 1;
    int nodeRank = 0;
    int threadsPerRank = 1;
    int workersPerRank = 1;
    std::vector<std::shared_ptr<models::Classifier>> replicas;
    std::shared_ptr<RankRendezvous> rendezvous;
    std::shared_ptr<const FeatureCache> cache;
    std::optional<CheckpointData> resumeFrom;
    std::vector<std::int64_t> trainCounts;

    std::mutex eventMutex;
    std::mutex errorMutex;
    std::exception_ptr error;
    int errorRank = -1;
    json summary = json::object();

    void emit(json event)
    {
        std::lock_guard<std::mutex> lock(eventMutex);
        if (!event.contains(event_key::kTime))
            event[event_key::kTime] = unixTime();
        if (folder) {
            folder->appendMetrics(event);
            const std::string type = event.value(event_key::kType, "");
            if (type == event_type::kLog)
                folder->log(event.value(event_key::kMessage, ""));
            else if (isEndEventType(type) || type == event_type::kResumed || type == event_type::kCheckpoint)
                folder->log(type + ": " + event.dump());
        }
        if (control.onEvent)
            control.onEvent(event);
    }
    void log(const std::string &message) { emit({{event_key::kType, event_type::kLog}, {event_key::kMessage, message}}); }
};

// A batch source: the input pipeline, or the feature cache (then images are embeddings).
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
    CacheSource(const RunSetup &s, const std::string &split, bool train, int rank)
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
    void start(std::int64_t epoch, std::int64_t firstBatch) override
    {
        m_epoch = epoch;
        m_order = m_dataset.epochOrder(m_split, m_seed, std::uint64_t(m_train ? epoch : 0), m_rank, m_world, m_train);
        m_next = firstBatch;
    }
    std::optional<Batch> next() override
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

PipelineOptions pipelineOptions(const RunSetup &s, const std::string &split, bool train, int rank)
{
    PipelineOptions o;
    o.datasetDir = s.config.data.shards;
    o.split = split;
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

// Whether the model's embedding depends on no trainable parameter (so it may be cached): one
// tiny forward pass tells, whatever the architecture's stage layout.
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

// ---- one rank ------------------------------------------------------------------------------

struct EpochCounts
{
    double lossSum = 0;
    double samples = 0;
    double correct = 0;
};

NamedTensors stripPrefix(const NamedTensors &tensors, const std::string &prefix)
{
    NamedTensors out;
    for (const auto &entry : tensors)
        if (entry.first.rfind(prefix, 0) == 0)
            out.emplace_back(entry.first.substr(prefix.size()), entry.second);
    return out;
}

NamedTensors withPrefix(const NamedTensors &tensors, const std::string &prefix)
{
    NamedTensors out;
    for (const auto &entry : tensors)
        out.emplace_back(prefix + entry.first, entry.second);
    return out;
}

std::vector<std::string> groupNames(const std::vector<ParameterGroup> &groups)
{
    std::vector<std::string> names;
    for (const ParameterGroup &g : groups)
        names.insert(names.end(), g.names.begin(), g.names.end());
    return names;
}

class RankTrainer
{
public:
    RankTrainer(RunSetup &s, int localRank)
        : m_s(s)
        , m_config(s.config)
        , m_localRank(localRank)
        , m_rank(s.nodeRank * s.localRanks + localRank)
        , m_device(s.devices[std::size_t(localRank)])
        , m_model(s.replicas[std::size_t(localRank)])
    {
    }

    void run();

private:
    bool isLeader() const { return m_rank == 0; }
    void emit(json event)
    {
        if (isLeader())
            m_s.emit(std::move(event));
    }
    torch::Tensor forward(const torch::Tensor &x)
    {
        return m_cached ? m_model->head(x) : m_model->forward(x);
    }
    void updateParameterGroups(int epoch);
    void allReduceGradients(torch::Tensor &flags);
    json validate();
    json reduceEpoch(const EpochCounts &train, json &val);
    void writeCheckpoint(const std::string &reason, const json &metrics);
    void restore(const CheckpointData &ckpt);
    void syncBatchNorm();
    void seedStep(std::int64_t micro);

    RunSetup &m_s;
    const RunConfig &m_config;
    int m_localRank;
    int m_rank;
    torch::Device m_device;
    std::shared_ptr<models::Classifier> m_model;
    std::unique_ptr<RankGroup> m_group;
    bool m_cached = false;
    bool m_autocast = false;
    at::ScalarType m_autocastType = at::kBFloat16;

    std::vector<ParameterGroup> m_groups;
    std::vector<std::string> m_groupNames;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    std::unique_ptr<LrSchedule> m_schedule;
    std::unique_ptr<GradScaler> m_scaler;
    std::unique_ptr<WeightEma> m_ema;
    torch::Tensor m_classWeights;
    std::unique_ptr<BatchSource> m_train;
    std::unique_ptr<BatchSource> m_val;

    // Position: the next batch to train is batch m_batch of epoch m_epoch; m_step optimizer
    // steps are done.
    std::int64_t m_step = 0;
    int m_epoch = 0;
    std::int64_t m_batch = 0;
    std::int64_t m_stepsPerEpoch = 0;
    EpochCounts m_epochCounts; // of the current epoch so far
    double m_epochSeconds = 0;
    json m_lastMetrics = json::object();
    // Early stopping
    bool m_hasBest = false;
    double m_best = 0;
    int m_badEpochs = 0;
    bool m_stoppedEarly = false;
    std::int64_t m_lastCheckpointStep = -1;
    int m_lastCheckpointEpoch = -1;
    std::int64_t m_lastCheckpointBatch = -1;
    std::string m_lastCheckpoint;
};

void RankTrainer::seedStep(std::int64_t micro)
{
    // Dropout, stochastic depth: the same draws at the same step after a resume. The CPU
    // generator is one per process, so several CPU ranks in one process share it.
    if (m_s.localRanks == 1)
        torch::manual_seed(mixSeed(m_config.seed, std::uint64_t(m_rank), std::uint64_t(micro)));
}

void RankTrainer::updateParameterGroups(int epoch)
{
    applyFreezing(*m_model, m_s.info, m_s.spec.freeze, epoch);
    std::vector<ParameterGroup> groups =
        parameterGroups(*m_model, m_s.info, m_s.spec.freeze, m_config.optimizer.noDecayNormsAndBiases);
    std::vector<std::string> names = groupNames(groups);
    if (m_optimizer && names == m_groupNames) {
        m_groups = std::move(groups); // same tensors, same order
        return;
    }
    // Gradual unfreezing changed the trainable set: a new optimizer that keeps the state of the
    // parameters that stay.
    NamedTensors state;
    if (m_optimizer)
        for (auto &entry : optimizerState(*m_optimizer, m_groups))
            state.emplace_back(entry.first, entry.second.clone());
    m_optimizer = makeOptimizer(m_config.optimizer, groups);
    if (!state.empty())
        loadOptimizerState(*m_optimizer, groups, state);
    m_groups = std::move(groups);
    m_groupNames = std::move(names);
}

// Sums the gradients of all ranks (bucketed: few large all-reduce calls) and divides by the
// world size; flags ride along in the last bucket.
void RankTrainer::allReduceGradients(torch::Tensor &flags)
{
    if (!m_group)
        return;
    constexpr std::int64_t kBucketElements = 8 << 20;
    std::vector<torch::Tensor> grads;
    for (ParameterGroup &g : m_groups)
        for (torch::Tensor &p : g.parameters) {
            if (!p.grad().defined())
                p.mutable_grad() = torch::zeros_like(p);
            grads.push_back(p.grad());
        }
    const double world = m_s.worldSize;
    std::size_t i = 0;
    while (i < grads.size() || flags.defined()) {
        std::vector<torch::Tensor> pieces;
        std::vector<torch::Tensor> members;
        std::int64_t elements = 0;
        while (i < grads.size() && (pieces.empty() || elements + grads[i].numel() <= kBucketElements) &&
               (pieces.empty() || grads[i].scalar_type() == members.front().scalar_type())) {
            pieces.push_back(grads[i].reshape(-1));
            members.push_back(grads[i]);
            elements += grads[i].numel();
            ++i;
        }
        const bool last = i >= grads.size();
        const std::int64_t flagCount = last ? flags.numel() : 0;
        if (last)
            pieces.push_back(flags.to(pieces.empty() ? torch::kFloat32 : pieces.front().scalar_type()));
        torch::Tensor flat = torch::cat(pieces);
        m_group->allReduceSum(flat);
        std::int64_t offset = 0;
        for (torch::Tensor &g : members) {
            g.copy_(flat.narrow(0, offset, g.numel()).view(g.sizes()).div(world));
            offset += g.numel();
        }
        if (last) {
            flags = flat.narrow(0, offset, flagCount).to(torch::kFloat32);
            break;
        }
    }
}

void RankTrainer::syncBatchNorm()
{
    if (!m_group || !m_config.distributed.syncBatchNorm || m_cached)
        return;
    // Running statistics averaged across ranks at the end of each epoch (not per batch as
    // PyTorch's SyncBatchNorm does): the evaluated model is the same on every rank.
    torch::NoGradGuard noGrad;
    for (auto &entry : m_model->named_buffers()) {
        const std::string &name = entry.key();
        if (name.size() > 12 && (name.find("running_mean") != std::string::npos ||
                                 name.find("running_var") != std::string::npos)) {
            torch::Tensor t = entry.value().contiguous().clone();
            m_group->allReduceSum(t);
            entry.value().copy_(t.div(double(m_s.worldSize)));
        }
    }
}

json RankTrainer::validate()
{
    const int k = m_s.numClasses;
    std::vector<double> sums(std::size_t(4 + 2 * k), 0.0); // loss, n, top1, top5, per-class correct, totals
    if (m_val) {
        torch::NoGradGuard noGrad;
        if (m_ema)
            m_ema->swap(*m_model);
        m_model->eval();
        m_val->start(0, 0);
        while (std::optional<Batch> b = m_val->next()) {
            torch::Tensor x = b->images.to(m_device, /*non_blocking=*/true);
            const torch::Tensor y = b->labels.to(m_device);
            torch::Tensor logits;
            {
                compat::AutocastScope autocast(m_autocast, m_device.type(), m_autocastType);
                logits = forward(x);
            }
            logits = logits.to(torch::kFloat32);
            const double n = double(y.size(0));
            if (n == 0)
                continue;
            sums[0] += classificationLoss(m_config.loss, logits, y).item<double>() * n;
            sums[1] += n;
            const torch::Tensor top = std::get<1>(logits.topk(std::min<std::int64_t>(5, k), 1));
            const torch::Tensor hit1 = top.select(1, 0).eq(y);
            sums[2] += hit1.sum().item<double>();
            sums[3] += top.eq(y.unsqueeze(1)).any(1).sum().item<double>();
            const torch::Tensor yc = y.to(torch::kCPU);
            const torch::Tensor hc = hit1.to(torch::kCPU, torch::kFloat64);
            const torch::Tensor correct = torch::zeros({k}, torch::kFloat64).index_add_(0, yc, hc);
            const torch::Tensor total = torch::bincount(yc, {}, k).to(torch::kFloat64);
            for (int c = 0; c < k; ++c) {
                sums[std::size_t(4 + c)] += correct[c].item<double>();
                sums[std::size_t(4 + k + c)] += total[c].item<double>();
            }
        }
        if (m_ema)
            m_ema->swap(*m_model);
    }
    json out = json::array();
    for (double v : sums)
        out.push_back(v);
    return out;
}

json RankTrainer::reduceEpoch(const EpochCounts &train, json &valSums)
{
    std::vector<double> values{train.lossSum, train.samples, train.correct};
    for (const auto &v : valSums)
        values.push_back(v.get<double>());
    torch::Tensor t = torch::tensor(values, torch::kFloat64);
    if (m_group)
        m_group->allReduceSum(t);
    const auto v = [&t](std::size_t i) { return t[std::int64_t(i)].item<double>(); };
    json metrics = json::object();
    metrics["train_loss"] = v(1) > 0 ? v(0) / v(1) : 0.0;
    metrics["train_top1"] = v(1) > 0 ? v(2) / v(1) : 0.0;
    if (m_val && v(4) > 0) {
        const int k = m_s.numClasses;
        metrics["val_loss"] = v(3) / v(4);
        metrics["val_top1"] = v(5) / v(4);
        if (k >= 5)
            metrics["val_top5"] = v(6) / v(4);
        json perClass = json::array();
        for (int c = 0; c < k; ++c) {
            const double total = v(std::size_t(7 + k + c));
            perClass.push_back(total > 0 ? json(v(std::size_t(7 + c)) / total) : json(nullptr));
        }
        metrics["per_class_accuracy"] = perClass;
    }
    return metrics;
}

void RankTrainer::writeCheckpoint(const std::string &reason, const json &metrics)
{
    if (!isLeader() || (m_lastCheckpointStep == m_step && m_lastCheckpointEpoch == m_epoch &&
                        m_lastCheckpointBatch == m_batch))
        return;
    NamedTensors model;
    NamedTensors state;
    if (m_ema) {
        // The model file holds the averaged weights (what is evaluated and exported); the
        // training weights go with the training state, for an exact resume.
        model = stripPrefix(m_ema->state(), "ema.");
        state = withPrefix(stateDict(*m_model), "model.");
        for (auto &e : m_ema->state())
            state.push_back(e);
    } else {
        model = stateDict(*m_model);
    }
    for (auto &e : optimizerState(*m_optimizer, m_groups))
        state.push_back(e);
    for (auto &e : m_scaler->state())
        state.push_back(e);
    json meta = {{"epoch", m_epoch},
                 {"batch_in_epoch", m_batch},
                 {"scheduler", m_schedule->state()},
                 {"rng", {{"seed", m_config.seed}, {"scheme", "manual_seed(mix(seed, rank, micro_batch)) per micro-batch"}}},
                 {"metrics", metrics},
                 {"reason", reason},
                 {"arch", m_s.spec.arch},
                 {"num_classes", m_s.numClasses},
                 {"classes", m_s.manifest.classes},
                 {"trainer",
                  {{"step", m_step},
                   {"epoch", m_epoch},
                   {"batch", m_batch},
                   {"epoch_loss_sum", m_epochCounts.lossSum},
                   {"epoch_samples", m_epochCounts.samples},
                   {"epoch_correct", m_epochCounts.correct},
                   {"epoch_seconds", m_epochSeconds},
                   {"early_stopping", {{"has_best", m_hasBest}, {"best", m_best}, {"bad_epochs", m_badEpochs}}},
                   {"last_metrics", m_lastMetrics}}}};
    CheckpointPolicy policy;
    policy.keep = m_config.checkpoints.keep;
    policy.bestMetric = m_config.checkpoints.bestMetric;
    if (!metrics.contains(policy.bestMetric))
        policy.bestMetric = metrics.contains("val_loss") ? "val_loss" : "train_loss";
    const std::string path = lathe::engine::writeCheckpoint(m_s.runDir, m_step, meta, model, state, policy);
    m_lastCheckpointStep = m_step;
    m_lastCheckpointEpoch = m_epoch;
    m_lastCheckpointBatch = m_batch;
    m_lastCheckpoint = path;
    emit({{event_key::kType, event_type::kCheckpoint},
          {event_key::kPath, path},
          {event_key::kStep, m_step},
          {event_key::kEpoch, m_epoch},
          {event_key::kReason, reason}});
}

void RankTrainer::restore(const CheckpointData &ckpt)
{
    const json &t = ckpt.meta.at("trainer");
    m_step = t.at("step").get<std::int64_t>();
    m_epoch = t.at("epoch").get<int>();
    m_batch = t.at("batch").get<std::int64_t>();
    m_epochCounts.lossSum = t.value("epoch_loss_sum", 0.0);
    m_epochCounts.samples = t.value("epoch_samples", 0.0);
    m_epochCounts.correct = t.value("epoch_correct", 0.0);
    m_epochSeconds = t.value("epoch_seconds", 0.0);
    const json &es = t.at("early_stopping");
    m_hasBest = es.value("has_best", false);
    m_best = es.value("best", 0.0);
    m_badEpochs = es.value("bad_epochs", 0);
    m_lastMetrics = t.value("last_metrics", json::object());
    m_lastCheckpointStep = m_step;
    m_lastCheckpointEpoch = m_epoch;
    m_lastCheckpointBatch = m_batch;
    m_lastCheckpoint = ckpt.sidecarPath;

    const NamedTensors trainingWeights = stripPrefix(ckpt.state, "model.");
    const LoadReport report =
        loadStateDict(*m_model, trainingWeights.empty() ? ckpt.model : trainingWeights, &m_s.info);
    if (!report.clean() || report.headReplaced)
        throw EngineError(ckpt.sidecarPath + ": the checkpoint does not fit the model: " + report.text());
    if (m_ema)
        m_ema->loadState(ckpt.state);
    m_scaler->loadState(ckpt.state);
    m_schedule->loadState(ckpt.meta.at("scheduler"));
    updateParameterGroups(m_epoch);
    loadOptimizerState(*m_optimizer, m_groups, ckpt.state);
}

void RankTrainer::run()
{
    const RunConfig &c = m_config;
    at::set_num_threads(m_s.threadsPerRank);
    if (m_s.worldSize > 1)
        m_group = std::make_unique<RankGroup>(m_s.rendezvous, m_rank, m_s.worldSize, m_device,
                                              c.distributed.nnodes > 1, std::chrono::minutes(10));
    m_cached = m_s.cache != nullptr;
    m_autocast = c.precision == "bf16" || c.precision == "fp16";
    m_autocastType = c.precision == "fp16" ? at::kHalf : at::kBFloat16;

    // cuDNN picks the fastest convolution algorithms for the run's fixed input size.
    if (m_device.is_cuda())
        at::globalContext().setBenchmarkCuDNN(true);
    m_model->to(m_device);
    if (c.data.channelsLast && !m_cached)
        toChannelsLast(*m_model);
    if (m_group) {
        // Same start on every rank: rank 0's parameters and buffers.
        torch::NoGradGuard noGrad;
        for (auto &p : m_model->parameters()) {
            torch::Tensor t = p.detach().contiguous();
            m_group->broadcast(t, 0);
            if (!t.is_same(p))
                p.copy_(t);
        }
        for (auto &b : m_model->buffers()) {
            torch::Tensor t = b.contiguous();
            m_group->broadcast(t, 0);
            if (!t.is_same(b))
                b.copy_(t);
        }
    }

    if (m_cached) {
        m_train = std::make_unique<CacheSource>(m_s, c.data.trainSplit, true, m_rank);
        if (m_s.hasVal)
            m_val = std::make_unique<CacheSource>(m_s, c.data.valSplit, false, m_rank);
    } else {
        m_train = std::make_unique<PipelineSource>(pipelineOptions(m_s, c.data.trainSplit, true, m_rank));
        if (m_s.hasVal)
            m_val = std::make_unique<PipelineSource>(pipelineOptions(m_s, c.data.valSplit, false, m_rank));
    }
    const int accumulate = std::max(1, c.optimizer.accumulateSteps);
    m_stepsPerEpoch = m_train->batchesPerEpoch() / accumulate;
    if (m_stepsPerEpoch < 1)
        throw EngineError("optimizer.batch_size: " + std::to_string(c.optimizer.batchSize) + " x " +
                          std::to_string(accumulate) + " accumulated batches on each of " +
                          std::to_string(m_s.worldSize) + " ranks needs more records than split \"" +
                          c.data.trainSplit + "\" has (" + std::to_string(m_train->batchesPerEpoch()) +
                          " full batches per rank): not one optimizer step per epoch");
    m_schedule = std::make_unique<LrSchedule>(c.schedule, c.optimizer.lr, m_stepsPerEpoch, c.optimizer.epochs);
    m_scaler = std::make_unique<GradScaler>(65536.0, 2.0, 0.5, 2000, c.precision == "fp16");
    if (c.ema.enabled)
        m_ema = std::make_unique<WeightEma>(*m_model, c.ema.decay);
    if (c.data.balance == "class_weights")
        m_classWeights = classWeightsFromCounts(m_s.trainCounts).to(m_device);

    if (m_s.resumeFrom) {
        restore(*m_s.resumeFrom);
        emit({{event_key::kType, event_type::kResumed},
              {event_key::kStep, m_step},
              {event_key::kEpoch, m_epoch},
              {event_key::kBatchInEpoch, m_batch},
              {event_key::kCheckpoint, m_s.resumeFrom->sidecarPath}});
    }

    const std::int64_t microPerEpoch = m_stepsPerEpoch * accumulate;
    bool stop = false;
    bool cancelled = false;
    double lastEventTime = -1;
    Clock::time_point intervalStart = Clock::now();
    double intervalWait = m_train->waitSeconds();
    std::int64_t intervalImages = 0;
    const Clock::time_point runStart = Clock::now();

    while (m_epoch < c.optimizer.epochs && !stop) {
        const Clock::time_point epochStart = Clock::now();
        const double epochSecondsBefore = m_epochSeconds;
        updateParameterGroups(m_epoch);
        m_model->train();
        applyBatchNormFreezing(*m_model, m_s.info, m_s.spec.freeze);
        m_train->start(m_epoch, m_batch);

        double stepLoss = 0;
        int microInStep = 0;
        bool badLoss = false;
        std::string badLossWhat;
        while (m_batch < microPerEpoch) {
            m_s.control.pause.waitWhilePaused(m_s.control.cancel);
            std::optional<Batch> batch = m_train->next();
            if (!batch)
                break;
            seedStep(m_step * accumulate + microInStep);
            torch::Tensor x = batch->images.to(m_device, /*non_blocking=*/true);
            const torch::Tensor labels = batch->labels.to(m_device);
            const torch::Tensor targets = batch->softTargets.defined() ? batch->softTargets.to(m_device) : labels;
            if (microInStep == 0)
                clearGradients(*m_optimizer);
            torch::Tensor logits;
            {
                compat::AutocastScope autocast(m_autocast, m_device.type(), m_autocastType);
                logits = forward(x);
            }
            const torch::Tensor loss = classificationLoss(c.loss, logits, targets, m_classWeights);
            const double lossValue = loss.item<double>();
            if (!std::isfinite(lossValue) && !badLoss) {
                badLoss = true;
                std::ostringstream what;
                what << "loss is " << (std::isnan(lossValue) ? "NaN" : "infinite") << " at step " << (m_step + 1)
                     << " (epoch " << (m_epoch + 1) << ", batch " << (m_batch + 1) << ")";
                badLossWhat = what.str();
            }
            torch::Tensor scaled = accumulate > 1 ? loss / double(accumulate) : loss;
            if (m_scaler->enabled())
                scaled = m_scaler->scale(scaled);
            if (!badLoss)
                scaled.backward();
            {
                torch::NoGradGuard noGrad;
                const double n = double(labels.size(0));
                m_epochCounts.lossSum += lossValue * n;
                m_epochCounts.samples += n;
                m_epochCounts.correct += logits.argmax(1).eq(labels).sum().item<double>();
                intervalImages += labels.size(0);
            }
            stepLoss += lossValue;
            ++microInStep;
            ++m_batch;
            if (microInStep < accumulate)
                continue;

            // An optimizer step: every rank agrees on whether to go on.
            torch::Tensor flags = torch::tensor({m_s.control.cancel.isCancelled() ? 1.0f : 0.0f, badLoss ? 1.0f : 0.0f});
            allReduceGradients(flags);
            if (flags[1].item<float>() > 0) {
                throw EngineError((badLoss ? badLossWhat : "loss is not finite on another rank at step " +
                                                               std::to_string(m_step + 1)) +
                                  "; training stopped (lower the learning rate or check the data; the last "
                                  "checkpoint is kept)");
            }
            const double lr = m_schedule->lrAt(m_step);
            setLearningRate(*m_optimizer, lr, m_groups);
            if (c.optimizer.clipGradNorm > 0) {
                if (m_scaler->enabled())
                    m_scaler->unscale(*m_optimizer);
                clipGradNorm(m_groups, c.optimizer.clipGradNorm);
            }
            const bool stepped = m_scaler->step(*m_optimizer);
            m_scaler->update();
            if (!stepped)
                emit({{event_key::kType, event_type::kOverflowSkipped},
                      {event_key::kStep, m_step + 1},
                      {event_key::kEpoch, m_epoch},
                      {event_key::kScale, m_scaler->scaleValue()},
                      {event_key::kSkippedTotal, m_scaler->skippedSteps()}});
            else if (m_ema)
                m_ema->update(*m_model);
            ++m_step;
            const double meanLoss = stepLoss / double(accumulate);
            stepLoss = 0;
            microInStep = 0;

            const double now = secondsSince(runStart);
            const bool every = m_s.control.stepEventEvery > 0 ? m_step % m_s.control.stepEventEvery == 0
                                                              : (lastEventTime < 0 || now - lastEventTime >= 0.25);
            if (isLeader() && every) {
                const double interval = secondsSince(intervalStart);
                const double wait = m_train->waitSeconds();
                emit({{event_key::kType, event_type::kStep},
                      {event_key::kStep, m_step},
                      {event_key::kEpoch, m_epoch},
                      {event_key::kLoss, meanLoss},
                      {event_key::kLr, lr},
                      {event_key::kTotalSteps, m_stepsPerEpoch * c.optimizer.epochs},
                      {event_key::kImagesPerSecond,
                       interval > 0 ? double(intervalImages) * m_s.worldSize / interval : 0.0},
                      {event_key::kInputWaitFraction,
                       interval > 0 ? std::clamp((wait - intervalWait) / interval, 0.0, 1.0) : 0.0}});
                m_s.folder->tensorboard().addScalar("train/loss", meanLoss, m_step);
                m_s.folder->tensorboard().addScalar("train/lr", lr, m_step);
                lastEventTime = now;
                intervalStart = Clock::now();
                intervalWait = wait;
                intervalImages = 0;
            }
            m_epochSeconds = epochSecondsBefore + secondsSince(epochStart);
            if (c.checkpoints.everySteps > 0 && m_step % c.checkpoints.everySteps == 0)
                writeCheckpoint("steps", m_lastMetrics);
            // One rank decides alone (a cancel during this step's event stops here); ranks stop
            // together at the step whose all-reduce carried the cancel.
            cancelled = flags[0].item<float>() > 0 || (!m_group && m_s.control.cancel.isCancelled());
            if (cancelled || (m_s.control.stopAfterStep > 0 && m_step >= m_s.control.stopAfterStep)) {
                cancelled = true;
                stop = true;
                break;
            }
        }
        if (stop)
            break;

        // End of the epoch: statistics, validation, the decisions that follow from them.
        syncBatchNorm();
        m_epochSeconds = epochSecondsBefore + secondsSince(epochStart);
        json valSums = validate();
        json metrics = reduceEpoch(m_epochCounts, valSums);
        metrics["lr"] = m_schedule->lrAt(std::max<std::int64_t>(0, m_step - 1));
        metrics[event_key::kSeconds] = m_epochSeconds;
        if (m_cached)
            metrics[event_key::kFeatureCache] = true;
        json event = metrics;
        event[event_key::kType] = event_type::kEpoch;
        event[event_key::kEpoch] = m_epoch;
        event[event_key::kStep] = m_step;
        emit(event);
        if (isLeader()) {
            TensorBoardWriter &tb = m_s.folder->tensorboard();
            for (const char *key : {"train_loss", "train_top1", "val_loss", "val_top1", "val_top5"})
                if (metrics.contains(key)) {
                    std::string tag = key;
                    tag[tag.find('_')] = '/';
                    tb.addScalar("epoch/" + tag, metrics[key].get<double>(), m_step);
                }
        }
        if (c.schedule.name == "plateau") {
            const std::string &name = c.schedule.plateauMetric;
            if (metrics.contains(name))
                m_schedule->reportEpoch(m_epoch, metrics[name].get<double>());
        }
        if (c.earlyStopping.enabled && metrics.contains(c.earlyStopping.metric)) {
            const double value = metrics[c.earlyStopping.metric].get<double>();
            const bool lower = metricLowerIsBetter(c.earlyStopping.metric);
            const bool better = !m_hasBest || (lower ? value < m_best - c.earlyStopping.minDelta
                                                     : value > m_best + c.earlyStopping.minDelta);
            if (better) {
                m_hasBest = true;
                m_best = value;
                m_badEpochs = 0;
            } else if (++m_badEpochs >= c.earlyStopping.patience) {
                m_stoppedEarly = true;
            }
        }
        json ckptMetrics = metrics;
        ckptMetrics.erase("per_class_accuracy");
        m_lastMetrics = ckptMetrics;
        ++m_epoch;
        m_batch = 0;
        m_epochCounts = {};
        m_epochSeconds = 0;
        const bool end = m_epoch >= c.optimizer.epochs || m_stoppedEarly;
        if (c.checkpoints.everyEpochs > 0 && (m_epoch % c.checkpoints.everyEpochs == 0) && !end)
            writeCheckpoint("epoch", ckptMetrics);
        if (m_stoppedEarly) {
            emit({{event_key::kType, event_type::kLog},
                  {event_key::kMessage, "early stopping: " + c.earlyStopping.metric + " did not improve for " +
                                  std::to_string(c.earlyStopping.patience) + " epochs"}});
            stop = true;
        }
        if (m_s.control.cancel.isCancelled() && !m_group) {
            cancelled = true;
            stop = true;
        }
    }
    writeCheckpoint(cancelled ? "cancel" : "end", m_lastMetrics);

    if (isLeader()) {
        std::lock_guard<std::mutex> lock(m_s.eventMutex);
        m_s.summary["status"] = cancelled ? event_type::kCancelled : event_type::kFinished; // the end event's type
        m_s.summary["epochs"] = m_epoch;
        m_s.summary["steps"] = m_step;
        m_s.summary["stopped_early"] = m_stoppedEarly;
        m_s.summary["last_checkpoint"] = m_lastCheckpoint;
        m_s.summary["metrics"] = m_lastMetrics;
        m_s.summary["feature_cache"] = m_cached;
    }
}

// ---- setting up and running ----------------------------------------------------------------

json runTraining(RunSetup &s)
{
    const RunConfig &c = s.config;
    s.folder->log("lathe training: " + c.model.arch + " on " + c.data.shards);
    // Torch's intra-op threads as the caller configured them (configureTorchThreads), shared
    // between the CPU ranks; the pipeline's workers: data.workers, else the cores per rank.
    const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
    s.threadsPerRank = std::max(1, at::get_num_threads() / s.localRanks);
    s.workersPerRank = c.data.workers > 0 ? c.data.workers : std::max(1, cores / s.localRanks);

    // Replicas built one after another from the same seed: the same initialisation everywhere
    // (the broadcast from rank 0 makes it so across machines too).
    for (int r = 0; r < s.localRanks; ++r) {
        torch::manual_seed(c.seed);
        BuiltModel built = buildModel(s.spec);
        if (r == 0 && !s.spec.weightsPath.empty())
            s.log("weights " + s.spec.weightsPath + ": " + built.report.text());
        s.replicas.push_back(built.classifier);
    }

    // The feature cache: a frozen embedding, and the same embedding for an image every epoch.
    const FeatureCacheConfig &fc = c.featureCache;
    if (fc.mode != "off") {
        models::Classifier &m = *s.replicas.front();
        applyFreezing(m, s.info, s.spec.freeze, 0);
        const bool neverUnfreezes = s.spec.freeze.unfreezeEveryEpochs == 0;
        const bool frozen = neverUnfreezes && embeddingFrozen(m, s);
        const bool deterministic = deterministicAugmentations(c.data.augment);
        if (frozen && (fc.mode == "fixed_views" || deterministic)) {
            s.log("feature cache: computing the frozen backbone's embeddings once (" +
                  std::to_string(fc.mode == "fixed_views" ? std::max(1, fc.views) : 1) + " view(s))");
            s.cache = buildFeatureCache(s, m, s.devices.front());
            s.emit({{event_key::kType, event_type::kLog},
                    {event_key::kMessage, "feature cache: built in " + std::to_string(s.cache->buildSeconds) + " s"},
                    {event_key::kFeatureCache, {{"views", s.cache->views},
                                       {"train_records", s.cache->trainLabels.numel()},
                                       {"build_seconds", s.cache->buildSeconds},
                                       {"backbone_images_per_s", s.cache->backboneImagesPerSecond}}}});
        } else if (fc.mode == "fixed_views") {
            throw EngineError("feature_cache.mode: fixed_views needs a backbone whose embedding has no trainable "
                              "parameter (head_only freezing, no gradual unfreezing)");
        } else if (frozen) {
            s.log("feature cache: off (the training augmentations are random; use feature_cache.mode fixed_views)");
        }
    }

    if (s.worldSize > 1) {
        if (c.distributed.nnodes > 1)
            s.rendezvous = RankRendezvous::tcp(c.distributed.master, c.distributed.nodeRank == 0, s.worldSize,
                                               std::chrono::minutes(10));
        else
            s.rendezvous = RankRendezvous::inProcess();
    }

    const auto runRank = [&s](int localRank) {
        try {
            RankTrainer rank(s, localRank);
            rank.run();
        } catch (...) {
            std::lock_guard<std::mutex> lock(s.errorMutex);
            const int globalRank = s.nodeRank * s.localRanks + localRank;
            if (!s.error || globalRank < s.errorRank) {
                s.error = std::current_exception();
                s.errorRank = globalRank;
            }
        }
    };
    if (s.localRanks == 1) {
        runRank(0);
    } else {
        std::vector<std::thread> threadsOfRanks;
        for (int r = 0; r < s.localRanks; ++r)
            threadsOfRanks.emplace_back(runRank, r);
        for (std::thread &t : threadsOfRanks)
            t.join();
    }
    if (s.error)
        std::rethrow_exception(s.error);

    json summary = s.summary;
    summary["run_dir"] = s.runDir;
    if (s.cache)
        summary["feature_cache_build_seconds"] = s.cache->buildSeconds;
    const RunInfo info = readRunInfo(s.runDir);
    summary["best_metric"] = info.bestMetric;
    summary["best_value"] = info.bestValue ? json(*info.bestValue) : json(nullptr);
    const std::string best = run_layout::bestSidecarPath(s.runDir);
    summary["best_checkpoint"] = fs::exists(best) ? json(best) : json(nullptr);
    json end = {{event_key::kType, summary.value("status", event_type::kFinished)},
                {event_key::kSteps, summary.value("steps", 0)},
                {event_key::kEpochs, summary.value("epochs", 0)},
                {event_key::kStoppedEarly, summary.value("stopped_early", false)}};
    s.emit(end);
    s.folder->tensorboard().flush();
    return summary;
}

// Everything that follows from the config and the dataset, before any rank starts.
void prepare(RunSetup &s)
{
    RunConfig &c = s.config;
    validateRunConfig(c);
    s.manifest = readDatasetManifest(c.data.shards);
    s.numClasses = int(s.manifest.classes.size());
    if (s.numClasses < 2)
        throw EngineError("data.shards: " + c.data.shards + " has " + std::to_string(s.numClasses) +
                          " class(es); training needs at least 2");
    const auto trainCounts = s.manifest.counts.find(c.data.trainSplit);
    std::uint64_t trainRecords = 0;
    if (trainCounts != s.manifest.counts.end())
        for (const std::string &cls : s.manifest.classes) {
            auto it = trainCounts->second.find(cls);
            const std::uint64_t n = it == trainCounts->second.end() ? 0 : it->second;
            s.trainCounts.push_back(std::int64_t(n));
            trainRecords += n;
        }
    if (trainRecords == 0)
        throw EngineError("data.train_split: split \"" + c.data.trainSplit + "\" of " + c.data.shards +
                          " has no records");
    if (!c.data.valSplit.empty()) {
        auto it = s.manifest.counts.find(c.data.valSplit);
        std::uint64_t n = 0;
        if (it != s.manifest.counts.end())
            for (const auto &entry : it->second)
                n += entry.second;
        s.hasVal = n > 0;
    }
    s.spec = modelSpecForDataset(c, s.numClasses);
    c.model.head.numClasses = s.numClasses;
    if (s.spec.weightsPath == "zoo")
        s.spec.weightsPath = resolveZooWeights(s.spec.arch);
    s.info = s.spec.arch == "torchscript" ? buildModel(s.spec).info : backboneInfo(s.spec.arch);
    if (c.data.imageSize <= 0)
        c.data.imageSize = s.info.inputSize;
    if (s.spec.inChannels != 1 && s.spec.inChannels != 3)
        throw EngineError("model.in_channels: the input pipeline gives 1 or 3 channels (got " +
                          std::to_string(s.spec.inChannels) + ")");

    // Validation uses the evaluation transform, so evaluating a run later reproduces its numbers.
    TransformOptions t = evaluationTransform(s.info, c.data.imageSize, s.spec.inChannels);
    t.augmentations = c.data.augment;
    t.channelsLast = c.data.channelsLast;
    s.valTransform = t;
    s.trainTransform = t;
    s.trainTransform.train = true;

    for (const std::string &d : c.devices)
        s.devices.push_back(torchDevice(d, "devices"));
    s.localRanks = int(s.devices.size());
    s.nodeRank = c.distributed.nodeRank;
    s.worldSize = s.localRanks * std::max(1, c.distributed.nnodes);
    if (c.distributed.nnodes > 1 && c.distributed.master.empty())
        throw EngineError("distributed.master: a run over " + std::to_string(c.distributed.nnodes) +
                          " machines needs the HOST:PORT of node 0's rendezvous");
}

json guarded(RunSetup &s)
{
    json summary;
    try {
        summary = runTraining(s);
    } catch (const std::exception &e) {
        const bool cancelled = dynamic_cast<const Cancelled *>(&e) != nullptr;
        if (!cancelled) {
            try {
                s.emit({{event_key::kType, event_type::kFailed}, {event_key::kMessage, e.what()}});
            } catch (...) {
            }
            throw EngineError(e.what());
        }
        s.emit({{event_key::kType, event_type::kCancelled}, {event_key::kMessage, "cancelled before the first step"}});
        summary = {{"status", event_type::kCancelled}, {"run_dir", s.runDir}, {"steps", 0}};
    }
    if (s.control.throwWhenCancelled && summary.value("status", std::string()) == event_type::kCancelled)
        throw Cancelled(); // after the checkpoint and the "cancelled" event, like the other tasks
    return summary;
}

} // namespace

json benchTrain(const TrainBenchOptions &o)
{
    if (o.batchSize < 1 || o.imageSize < 8 || o.steps < 1 || o.numClasses < 2)
        throw EngineError("bench train: batch >= 1, image size >= 8, steps >= 1 and classes >= 2 needed");
    if (o.precision != "fp32" && o.precision != "bf16" && o.precision != "fp16")
        throw EngineError("bench train: precision must be fp32, bf16 or fp16 (got " + o.precision + ")");
    const torch::Device device = torchDevice(o.device, "device");
    if (o.precision == "fp16" && !device.is_cuda())
        throw EngineError("bench train: fp16 needs a CUDA device; on CPU use bf16 or fp32");
    const int threads = o.threads > 0 ? o.threads : int(std::max(1u, std::thread::hardware_concurrency()));
    at::set_num_threads(std::max(1, threads));
    torch::manual_seed(0);
    ModelSpec spec;
    spec.arch = o.arch;
    spec.head.numClasses = o.numClasses;
    std::shared_ptr<models::Classifier> model = buildModel(spec).classifier;
    model->to(device);
    model->train();
    if (o.channelsLast)
        toChannelsLast(*model);
    torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
    GradScaler scaler(65536.0, 2.0, 0.5, 2000, o.precision == "fp16");
    torch::Tensor x = torch::randn({o.batchSize, 3, o.imageSize, o.imageSize}, torch::TensorOptions().device(device));
    if (o.channelsLast)
        x = x.contiguous(at::MemoryFormat::ChannelsLast);
    const torch::Tensor y = torch::randint(o.numClasses, {o.batchSize}, torch::TensorOptions().dtype(torch::kInt64).device(device));
    const bool autocast = o.precision != "fp32";
    const at::ScalarType type = o.precision == "fp16" ? at::kHalf : at::kBFloat16;
    const auto step = [&] {
        clearGradients(optimizer);
        torch::Tensor logits;
        {
            compat::AutocastScope scope(autocast, device.type(), type);
            logits = model->forward(x);
        }
        torch::Tensor loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat32), y);
        scaler.scale(loss).backward();
        scaler.step(optimizer);
        scaler.update();
        return loss.item<double>();
    };
    for (int i = 0; i < 3; ++i)
        step();
    const Clock::time_point start = Clock::now();
    const std::clock_t cpuStart = std::clock(); // all of the process's threads
    for (int i = 0; i < o.steps; ++i)
        step();
    const double seconds = secondsSince(start);
    const double cpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    const char *waitPolicy = std::getenv("OMP_WAIT_POLICY");
    return {{"arch", o.arch},
            {"batch", o.batchSize},
            {"image_size", o.imageSize},
            {"precision", o.precision},
            {"device", o.device},
            {"channels_last", o.channelsLast},
            {"threads", at::get_num_threads()},
            {"steps", o.steps},
            {"step_ms", seconds * 1000.0 / o.steps},
            {"cpu_ms_per_step", cpuSeconds * 1000.0 / o.steps},
            {"omp_wait_policy", waitPolicy ? waitPolicy : ""},
            {"images_per_s", double(o.batchSize) * o.steps / seconds}};
}

json train(const RunConfig &config, const std::string &runDir, const TrainControl &control)
{
    RunSetup s;
    s.config = config;
    s.runDir = runDir;
    s.control = control;
    prepare(s);
    s.folder = std::make_unique<RunFolder>(RunFolder::create(runDir, runConfigToJson(s.config)));
    return guarded(s);
}

json resume(const std::string &runDir, const TrainControl &control, const json &overrides)
{
    RunSetup s;
    s.runDir = runDir;
    s.control = control;
    s.folder = std::make_unique<RunFolder>(RunFolder::open(runDir));
    s.config = parseRunConfig(s.folder->config());
    if (!overrides.is_null() && !overrides.empty())
        s.config = applyRunConfigOverrides(s.config, overrides);
    std::vector<std::string> notes;
    s.resumeFrom = loadLatestCheckpoint(runDir, &notes);
    try {
        prepare(s);
        for (const std::string &note : notes)
            s.log("resume: " + note);
        if (s.resumeFrom && !s.resumeFrom->meta.contains("trainer"))
            throw EngineError(s.resumeFrom->sidecarPath + ": not a checkpoint of a training run (no trainer state)");
        if (!s.resumeFrom)
            s.log("resume: no complete checkpoint; starting over from the config");
    } catch (const std::exception &e) {
        s.emit({{event_key::kType, event_type::kFailed}, {event_key::kMessage, e.what()}});
        throw;
    }
    return guarded(s);
}

} // namespace lathe::engine
