#include "engine/pipeline/input_pipeline.h"

#include "engine/base/engine_error.h"
#include "engine/dataset/shard_dataset.h"

#include <ATen/ATen.h>
#include <torch/cuda.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kReplacementTries = 16;   // records tried in place of a corrupt one
constexpr std::size_t kErrorSamples = 8; // distinct messages kept in the stats

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// A seed from the given parts alone: nothing about threads or timing enters it.
std::uint64_t seedOf(std::initializer_list<std::uint64_t> parts)
{
    std::uint64_t h = 0x6C617468652D7069ull;
    for (std::uint64_t p : parts)
        h = splitmix64(h ^ p);
    return h;
}

constexpr std::uint64_t kMixerTag = 0x6D69786572ull;

double secondsBetween(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

struct CachedImage
{
    cv::Mat image;
    std::vector<std::int64_t> labels; // one, or a multi-label record's set
};

} // namespace

struct InputPipeline::Impl
{
    // A reusable batch buffer. Free when no job owns it and no tensor outside the pool
    // shares its storage any more.
    struct Slot
    {
        at::Tensor images;
        bool inFlight = false;
        std::uint64_t lastUse = 0;
    };

    struct Job
    {
        std::int64_t batch = 0;
        std::int64_t epoch = 0;
        std::uint64_t generation = 0;
        int slot = 0;
        bool allocate = false;
        std::shared_ptr<const std::vector<RecordRef>> order;
    };

    struct Ready
    {
        Batch batch;
        int slot = 0;
    };

    PipelineOptions options;
    SampleTransform transform;
    std::optional<BatchMixer> mixer; // built once the class count is known
    ShardDataset dataset; // the consumer's: manifest and epoch orders
    std::vector<std::string> shardPaths;
    int numClasses = 0;
    bool multiLabel = false; // dataset.json task "multi_label": targets are multi-hot rows
    int threads = 0;
    int depth = 0;
    std::uint64_t perRank = 0;
    std::int64_t batches = 0;
    std::size_t sampleBytes = 0;
    std::vector<std::int64_t> bufferShape; // [N, C, H, W]
    at::TensorOptions bufferOptions;
    at::MemoryFormat bufferFormat = at::MemoryFormat::Contiguous;

    mutable std::mutex mutex;
    std::condition_variable workCv;  // workers: a job may be claimable, or stop
    std::condition_variable readyCv; // consumer: a batch, a failure or cancel
    std::condition_variable idleCv;  // startEpoch: the workers left the old epoch
    std::atomic<bool> cancelled{false};
    std::atomic<std::uint64_t> generation{0};
    bool stopping = false;

    // The current epoch (under mutex).
    std::shared_ptr<const std::vector<RecordRef>> order;
    bool started = false;
    std::int64_t epoch = 0;
    std::int64_t nextJob = 0;
    std::int64_t nextDeliver = 0;
    int busyWorkers = 0;
    int inFlight = 0;
    std::uint64_t useCounter = 0;
    std::map<std::int64_t, Ready> ready;
    std::vector<Slot> slots;
    std::exception_ptr fatal;

    // Statistics (under mutex).
    PipelineStats stats;
    double activeBefore = 0; // seconds of finished epochs
    Clock::time_point epochStart;
    Clock::time_point lastDelivery;
    bool deliveredThisEpoch = false;

    // The decoded-image cache (under cacheMutex).
    mutable std::mutex cacheMutex;
    std::unordered_map<std::uint64_t, CachedImage> cache;
    std::size_t cacheUsed = 0;
    std::atomic<std::uint64_t> cacheHits{0};

    std::vector<std::thread> workers;

    explicit Impl(PipelineOptions o)
        : options(std::move(o))
        , transform(options.transform)
        , dataset(options.datasetDir)
    {
    }

    bool canClaim() const
    {
        return started && !fatal && !cancelled && nextJob < batches && nextJob < nextDeliver + depth && inFlight < depth;
    }

    // Under mutex: a free slot, preferring one whose storage nobody outside shares (reuse)
    // and, among those, the least recently used; otherwise the oldest, reallocated.
    int pickSlot(bool &allocate)
    {
        int best = -1;
        bool bestFree = false;
        for (int i = 0; i < int(slots.size()); ++i) {
            const Slot &s = slots[std::size_t(i)];
            if (s.inFlight)
                continue;
            const bool unshared = s.images.defined() && s.images.use_count() == 1 && s.images.storage().use_count() == 1;
            if (best < 0 || (unshared && !bestFree)
                || (unshared == bestFree && s.lastUse < slots[std::size_t(best)].lastUse)) {
                best = i;
                bestFree = unshared;
            }
        }
        allocate = !bestFree;
        return best;
    }

    std::string where(const RecordRef &ref) const
    {
        return shardPaths[ref.shard] + ": record at byte offset " + std::to_string(ref.entry.offset);
    }

    // The record's label (single-label) or label set (multi-label), each within the classes.
    std::vector<std::int64_t> checkedLabels(const ImageExample &example, const RecordRef &ref) const
    {
        std::vector<std::int64_t> labels = example.labels.empty() ? std::vector<std::int64_t>{example.label} : example.labels;
        if (!multiLabel && labels.size() != 1)
            throw EngineError(where(ref) + " (" + example.filename + "): " + std::to_string(labels.size())
                              + " labels in a single-label dataset");
        for (std::int64_t label : labels)
            if (label < 0 || label >= numClasses)
                throw EngineError(where(ref) + " (" + example.filename + "): label " + std::to_string(label)
                                  + " is outside the " + std::to_string(numClasses) + " classes");
        return labels;
    }

    // One sample into out; its labels into labels. Throws with a message naming the record.
    void makeSample(ShardDataset &ds, const RecordRef &ref, std::mt19937_64 &rng, void *out,
                    std::vector<std::int64_t> &labels)
    {
        const std::uint64_t key = (std::uint64_t(ref.shard) << 40) ^ ref.entry.offset;
        if (options.cacheBytes > 0) {
            CachedImage cached;
            bool hit = false;
            {
                std::lock_guard<std::mutex> lock(cacheMutex);
                auto it = cache.find(key);
                if (it != cache.end()) {
                    cached = it->second;
                    hit = true;
                }
            }
            if (hit) {
                cacheHits.fetch_add(1, std::memory_order_relaxed);
            } else {
                const ImageExample example = ds.read(ref);
                cached.labels = checkedLabels(example, ref);
                try {
                    cached.image = transform.decodeForCache(reinterpret_cast<const std::uint8_t *>(example.encoded.data()),
                                                            example.encoded.size());
                } catch (const std::exception &e) {
                    throw EngineError(where(ref) + " (" + example.filename + "): " + e.what());
                }
                const std::size_t bytes = cached.image.total() * cached.image.elemSize();
                std::lock_guard<std::mutex> lock(cacheMutex);
                // Beyond the budget images are simply not kept: memory stays bounded by it.
                if (cacheUsed + bytes <= options.cacheBytes && cache.emplace(key, cached).second)
                    cacheUsed += bytes;
            }
            // Hit or miss, the sample comes from the cached form, so whether a record was
            // cached (which depends on timing once the budget is reached) never changes it.
            try {
                transform.applyDecoded(cached.image, rng, out);
            } catch (const std::exception &e) {
                throw EngineError(where(ref) + ": " + e.what());
            }
            labels = std::move(cached.labels);
            return;
        }
        const ImageExample example = ds.read(ref);
        std::vector<std::int64_t> checked = checkedLabels(example, ref);
        try {
            transform.apply(reinterpret_cast<const std::uint8_t *>(example.encoded.data()), example.encoded.size(), rng, out);
        } catch (const std::exception &e) {
            throw EngineError(where(ref) + " (" + example.filename + "): " + e.what());
        }
        labels = std::move(checked);
    }

    bool stale(const Job &job) const
    {
        return cancelled.load(std::memory_order_relaxed) || generation.load(std::memory_order_relaxed) != job.generation;
    }

    // Fills one batch. Returns nothing when the job became stale (cancel or a new epoch).
    std::optional<Batch> fill(ShardDataset &ds, const Job &job, at::Tensor &buffer)
    {
        const std::vector<RecordRef> &order = *job.order;
        const std::uint64_t n = order.size();
        const std::uint64_t first = std::uint64_t(job.batch) * std::uint64_t(options.batchSize);
        const std::uint64_t last = std::min<std::uint64_t>(first + std::uint64_t(options.batchSize), n);
        auto *base = static_cast<std::uint8_t *>(buffer.data_ptr());
        at::Tensor labels = at::empty({std::int64_t(last - first)}, at::kLong);
        std::int64_t *labelData = labels.data_ptr<std::int64_t>();
        at::Tensor multiHot = multiLabel ? at::zeros({std::int64_t(last - first), numClasses}, at::kFloat) : at::Tensor();
        std::vector<std::int64_t> sampleLabels;

        Batch batch;
        batch.epoch = job.epoch;
        batch.index = job.batch;
        std::vector<std::string> messages;
        std::int64_t filled = 0;
        for (std::uint64_t p = first; p < last; ++p) {
            const std::uint64_t sampleSeed = seedOf({options.seed, std::uint64_t(job.epoch), std::uint64_t(options.rank), p});
            const int tries = int(std::min<std::uint64_t>(kReplacementTries, n));
            for (int t = 0; t < tries; ++t) {
                if (stale(job))
                    return std::nullopt;
                // A stand-in starts from the slot's own seed, so it does not depend on which
                // records failed before it.
                std::mt19937_64 rng(sampleSeed);
                const std::uint64_t q = (p + std::uint64_t(t)) % n;
                try {
                    makeSample(ds, order[q], rng, base + std::size_t(filled) * sampleBytes, sampleLabels);
                    labelData[filled] = sampleLabels.front();
                    if (multiLabel) {
                        float *row = multiHot.data_ptr<float>() + filled * numClasses;
                        for (std::int64_t label : sampleLabels)
                            row[label] = 1.0f;
                    }
                    batch.recordIndices.push_back(q);
                    batch.recordShards.push_back(order[q].shard);
                    batch.recordOffsets.push_back(order[q].entry.offset);
                    ++filled;
                    break;
                } catch (const std::exception &e) {
                    // Only the batch's own records count: a failing stand-in is counted in
                    // its own batch.
                    if (t == 0) {
                        ++batch.errors;
                        messages.push_back(e.what());
                    }
                }
            }
        }

        at::Tensor images = buffer.narrow(0, 0, filled);
        batch.labels = filled == labels.size(0) ? labels : labels.narrow(0, 0, filled).clone();
        if (multiLabel)
            batch.softTargets = multiHot.narrow(0, 0, filled);
        if (mixer->active() && filled > 0) {
            std::mt19937_64 rng(seedOf({options.seed, std::uint64_t(job.epoch), std::uint64_t(options.rank),
                                        std::uint64_t(job.batch), kMixerTag}));
            batch.softTargets = multiLabel ? mixer->mix(images, batch.softTargets, rng) : mixer->apply(images, batch.labels, rng);
        }
        batch.images = images;

        if (!messages.empty()) {
            std::lock_guard<std::mutex> lock(mutex);
            // Distinct ones: a bad record fails again in every epoch.
            for (std::string &m : messages)
                if (stats.errorSamples.size() < kErrorSamples
                    && std::find(stats.errorSamples.begin(), stats.errorSamples.end(), m) == stats.errorSamples.end())
                    stats.errorSamples.push_back(std::move(m));
        }
        return batch;
    }

    void fail(std::exception_ptr error)
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!fatal)
            fatal = error;
        readyCv.notify_all();
    }

    void workerMain()
    {
        std::unique_ptr<ShardDataset> ds;
        try {
            ds = std::make_unique<ShardDataset>(options.datasetDir);
        } catch (...) {
            fail(std::current_exception());
            return;
        }
        std::unique_lock<std::mutex> lock(mutex);
        for (;;) {
            workCv.wait(lock, [this] { return stopping || canClaim(); });
            if (stopping)
                return;
            Job job;
            job.batch = nextJob++;
            job.epoch = epoch;
            job.generation = generation.load();
            job.order = order;
            job.slot = pickSlot(job.allocate);
            Slot &slot = slots[std::size_t(job.slot)];
            slot.inFlight = true;
            ++inFlight;
            stats.buffersInFlightPeak = std::max(stats.buffersInFlightPeak, inFlight);
            if (job.allocate)
                ++stats.bufferAllocations;
            ++busyWorkers;
            lock.unlock();

            // The slot is ours until released below: nobody else touches its tensor.
            std::optional<Batch> batch;
            try {
                if (job.allocate)
                    slot.images = at::empty(bufferShape, bufferOptions.memory_format(bufferFormat));
                batch = fill(*ds, job, slot.images);
            } catch (...) {
                fail(std::current_exception());
            }

            lock.lock();
            --busyWorkers;
            if (batch && generation.load() == job.generation && !stopping) {
                ready.emplace(job.batch, Ready{std::move(*batch), job.slot});
                readyCv.notify_all();
            } else {
                batch.reset(); // drop the views of the buffer before the slot is reused
                slot.inFlight = false;
                --inFlight;
                workCv.notify_all();
            }
            if (busyWorkers == 0)
                idleCv.notify_all();
        }
    }
};

InputPipeline::InputPipeline(PipelineOptions options)
{
    const auto bad = [&](const std::string &field, const std::string &reason) {
        return EngineError("input pipeline: " + field + ": " + reason);
    };
    if (options.datasetDir.empty())
        throw bad("datasetDir", "no dataset folder given");
    if (options.batchSize < 1 || options.batchSize > (1 << 20))
        throw bad("batchSize", std::to_string(options.batchSize) + " is not between 1 and 1048576");
    if (options.threads < 0 || options.threads > 1024)
        throw bad("threads", std::to_string(options.threads) + " is not between 0 (all cores) and 1024");
    if (options.prefetchBatches < 0 || options.prefetchBatches > 4096)
        throw bad("prefetchBatches", std::to_string(options.prefetchBatches) + " is not between 0 (2 per thread) and 4096");
    if (options.worldSize < 1 || options.rank < 0 || options.rank >= options.worldSize)
        throw bad("rank", std::to_string(options.rank) + " is outside a world of " + std::to_string(options.worldSize));
    if (options.numClasses < 0)
        throw bad("numClasses", "negative");

    m_impl = std::make_unique<Impl>(std::move(options));
    Impl &d = *m_impl;
    const PipelineOptions &o = d.options;
    const DatasetManifest &manifest = d.dataset.manifest();
    d.numClasses = o.numClasses > 0 ? o.numClasses : int(manifest.classes.size());
    d.multiLabel = manifest.task == kTaskMultiLabel;
    if (d.numClasses < 1)
        throw bad("numClasses", o.datasetDir + "/dataset.json lists no classes");
    d.mixer.emplace(o.transform.augmentations, d.numClasses);
    if (o.transform.uint8Output && d.mixer->active())
        throw bad("transform", "mixup/cutmix need float output; uint8 output leaves normalization to the device, "
                               "so it cannot mix images");
    for (const ShardInfo &s : manifest.shards)
        d.shardPaths.push_back((fs::path(o.datasetDir) / s.file).string());

    d.threads = o.threads > 0 ? o.threads : std::max(1, int(std::thread::hardware_concurrency()));
    d.depth = o.prefetchBatches > 0 ? o.prefetchBatches : 2 * d.threads;
    d.perRank = d.dataset.size(o.split, o.selection) / std::uint64_t(o.worldSize);
    const std::uint64_t n = std::uint64_t(o.batchSize);
    d.batches = std::int64_t(o.dropLast ? d.perRank / n : (d.perRank + n - 1) / n);

    const TransformOptions &t = o.transform;
    const std::int64_t side = t.imageSize;
    d.sampleBytes = d.transform.sampleBytes();
    const std::size_t expected = std::size_t(side * side * t.channels) * (t.uint8Output ? 1 : 4);
    if (d.sampleBytes != expected)
        throw bad("transform", "sample size " + std::to_string(d.sampleBytes) + " bytes, expected "
                                   + std::to_string(expected));
    d.bufferShape = {o.batchSize, t.channels, side, side};
    d.bufferFormat = t.channelsLast ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
    const bool pin = o.pinMemory && torch::cuda::is_available();
    d.bufferOptions = at::TensorOptions().dtype(t.uint8Output ? at::kByte : at::kFloat).pinned_memory(pin);
    // One slot more than the depth: the batch the consumer still holds while the workers
    // fill the depth's worth is not overwritten, and not reallocated either.
    d.slots.resize(std::size_t(d.depth) + 1);
    d.stats.threads = d.threads;
    d.stats.prefetchBatches = d.depth;

    d.workers.reserve(std::size_t(d.threads));
    for (int i = 0; i < d.threads; ++i)
        d.workers.emplace_back([&d] { d.workerMain(); });
}

InputPipeline::~InputPipeline()
{
    {
        std::lock_guard<std::mutex> lock(m_impl->mutex);
        m_impl->stopping = true;
        m_impl->cancelled = true;
    }
    m_impl->workCv.notify_all();
    m_impl->readyCv.notify_all();
    m_impl->idleCv.notify_all();
    for (std::thread &t : m_impl->workers)
        t.join();
}

void InputPipeline::startEpoch(std::int64_t epoch)
{
    startEpoch(epoch, 0);
}

void InputPipeline::startEpoch(std::int64_t epoch, std::int64_t firstBatch)
{
    Impl &d = *m_impl;
    if (firstBatch < 0)
        throw EngineError("input pipeline: negative first batch " + std::to_string(firstBatch));
    if (d.cancelled)
        throw Cancelled();
    auto order = std::make_shared<const std::vector<RecordRef>>(d.dataset.epochOrder(
        d.options.split, d.options.seed, std::uint64_t(epoch), d.options.rank, d.options.worldSize, d.options.shuffle,
        d.options.selection));

    std::unique_lock<std::mutex> lock(d.mutex);
    // Abandon the previous epoch: workers notice between samples and give their slots back.
    ++d.generation;
    d.idleCv.wait(lock, [&d] { return d.busyWorkers == 0 || d.stopping; });
    if (d.cancelled)
        throw Cancelled();
    for (auto &entry : d.ready)
        d.slots[std::size_t(entry.second.slot)].inFlight = false;
    d.ready.clear();
    d.inFlight = 0;
    if (d.deliveredThisEpoch)
        d.activeBefore += secondsBetween(d.epochStart, d.lastDelivery);
    d.deliveredThisEpoch = false;
    d.epochStart = Clock::now();
    d.order = std::move(order);
    d.epoch = epoch;
    d.nextJob = std::min(firstBatch, d.batches);
    d.nextDeliver = d.nextJob;
    d.started = true;
    d.workCv.notify_all();
}

std::optional<Batch> InputPipeline::next()
{
    Impl &d = *m_impl;
    std::unique_lock<std::mutex> lock(d.mutex);
    if (d.cancelled)
        throw Cancelled();
    if (d.fatal)
        std::rethrow_exception(d.fatal);
    if (!d.started)
        throw EngineError("input pipeline: next() before startEpoch()");
    if (d.nextDeliver >= d.batches) {
        d.stats.lastWaitSeconds = 0;
        return std::nullopt;
    }
    const Clock::time_point waitStart = Clock::now();
    d.readyCv.wait(lock, [&d] { return d.cancelled || d.fatal || d.ready.count(d.nextDeliver) > 0; });
    const Clock::time_point now = Clock::now();
    d.stats.lastWaitSeconds = secondsBetween(waitStart, now);
    d.stats.consumerWaitSeconds += d.stats.lastWaitSeconds;
    if (d.cancelled)
        throw Cancelled();
    if (d.fatal)
        std::rethrow_exception(d.fatal);

    auto it = d.ready.find(d.nextDeliver);
    Batch batch = std::move(it->second.batch);
    Impl::Slot &slot = d.slots[std::size_t(it->second.slot)];
    slot.inFlight = false;
    slot.lastUse = ++d.useCounter;
    d.ready.erase(it);
    --d.inFlight;
    ++d.nextDeliver;
    d.stats.images += std::uint64_t(batch.images.size(0));
    d.stats.errors += std::uint64_t(batch.errors);
    ++d.stats.batches;
    d.lastDelivery = now;
    d.deliveredThisEpoch = true;
    d.workCv.notify_all();
    return batch;
}

std::int64_t InputPipeline::batchesPerEpoch() const
{
    return m_impl->batches;
}

std::uint64_t InputPipeline::recordsPerEpoch() const
{
    return m_impl->perRank;
}

const PipelineOptions &InputPipeline::options() const
{
    return m_impl->options;
}

PipelineStats InputPipeline::stats() const
{
    const Impl &d = *m_impl;
    PipelineStats s;
    {
        std::lock_guard<std::mutex> lock(d.mutex);
        s = d.stats;
        const double active = d.activeBefore + (d.deliveredThisEpoch ? secondsBetween(d.epochStart, d.lastDelivery) : 0);
        s.imagesPerSecond = active > 0 ? double(s.images) / active : 0;
    }
    {
        std::lock_guard<std::mutex> lock(d.cacheMutex);
        s.cacheBytesUsed = d.cacheUsed;
    }
    s.cacheHits = d.cacheHits.load();
    return s;
}

void InputPipeline::cancel()
{
    Impl &d = *m_impl;
    d.cancelled = true;
    std::lock_guard<std::mutex> lock(d.mutex);
    d.workCv.notify_all();
    d.readyCv.notify_all();
    d.idleCv.notify_all();
}

} // namespace lathe::engine
