#include "engine/training/batch_size_finder.h"

#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"
#include "engine/training/feature_cache.h"
#include "engine/training/memory_estimate.h"
#include "engine/training/training_rig.h"

#include <c10/util/Exception.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace lathe::engine {
namespace {

using json = nlohmann::json;

constexpr int kLargestBatch = 1 << 20;

// The peak of one CUDA device's allocated bytes while installed: the caching allocator reports
// each allocation with the device's running total to the thread's memory-reporting info (the
// hook torch.profiler's profile_memory uses; autograd's device threads inherit it). Thread-local,
// so a run training elsewhere in the process is not disturbed.
class DevicePeak final : public c10::MemoryReportingInfoBase
{
public:
    explicit DevicePeak(c10::Device device)
        : m_device(device)
    {
    }
    void reportMemoryUsage(void *, std::int64_t, compat::MemoryTotal allocated, compat::MemoryTotal,
                           c10::Device device) override
    {
        if (device.type() != m_device.type() || device.index() != m_device.index())
            return;
        std::int64_t seen = m_peak.load();
        const std::int64_t now = std::int64_t(allocated);
        while (now > seen && !m_peak.compare_exchange_weak(seen, now)) {
        }
    }
    bool memoryProfilingEnabled() const override { return true; }
    std::int64_t peak() const { return m_peak.load(); }

private:
    c10::Device m_device;
    std::atomic<std::int64_t> m_peak{0};
};

std::int64_t fromKiB(const std::string &line)
{
    std::istringstream in(line.substr(line.find(':') + 1));
    std::int64_t kib = 0;
    in >> kib;
    return kib * 1024;
}

std::int64_t readNumber(const std::string &path)
{
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text == "max")
        return -1;
    try {
        return std::stoll(text);
    } catch (const std::exception &) {
        return -1;
    }
}

// Random images of the run's input shape (the pipeline's content does not change the memory a
// step needs) with labels, or soft targets when mixup or cutmix make them.
struct SyntheticBatch
{
    torch::Tensor images;
    torch::Tensor targets;
};

SyntheticBatch syntheticBatch(const TrainingRig &rig, int batch)
{
    const RunConfig &c = rig.config();
    const auto on = torch::TensorOptions().device(rig.device);
    SyntheticBatch b;
    b.images = torch::randn({batch, rig.setup.spec.inChannels, c.data.imageSize, c.data.imageSize}, on);
    if (c.data.channelsLast)
        b.images = b.images.contiguous(at::MemoryFormat::ChannelsLast);
    const bool soft = withoutBatchSteps(c.data.augment).size() != c.data.augment.size();
    b.targets = soft ? torch::softmax(torch::randn({batch, rig.setup.numClasses}, on), 1)
                     : torch::randint(rig.setup.numClasses, {batch}, on.dtype(torch::kInt64));
    return b;
}

int datasetCap(const RunSetup &s)
{
    std::int64_t records = 0;
    for (std::int64_t n : s.trainCounts)
        records += n;
    const std::int64_t perRank = records / std::max(1, s.worldSize);
    return int(std::min<std::int64_t>(kLargestBatch, perRank / std::max(1, s.config.optimizer.accumulateSteps)));
}

void checkOptions(const BatchSizeFinderOptions &o)
{
    if (o.startBatch < 1 || o.startBatch > kLargestBatch)
        throw EngineError("batch finder: start_batch: must be in [1, " + std::to_string(kLargestBatch) + "] (got " +
                          std::to_string(o.startBatch) + ")");
    if (o.maxBatch < 0)
        throw EngineError("batch finder: max_batch: must be >= 0 (got " + std::to_string(o.maxBatch) + ")");
    if (o.maxMemory < 0)
        throw EngineError("batch finder: max_memory: must be >= 0 (got " + std::to_string(o.maxMemory) + ")");
    if (o.stepsPerTrial < 1)
        throw EngineError("batch finder: steps_per_trial: must be >= 1 (got " + std::to_string(o.stepsPerTrial) + ")");
}

std::string mib(std::int64_t bytes)
{
    return std::to_string((bytes + (1 << 19)) >> 20) + " MiB";
}

} // namespace

std::int64_t availableMemoryBytes()
{
    std::int64_t available = 0;
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);)
        if (line.rfind("MemAvailable:", 0) == 0)
            available = fromKiB(line);
    if (available == 0) {
        const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        if (pages > 0 && size > 0)
            available = std::int64_t(pages) * size;
    }
    // A container's limit (cgroup v2) may be far below the machine's.
    const std::int64_t limit = readNumber("/sys/fs/cgroup/memory.max");
    const std::int64_t current = readNumber("/sys/fs/cgroup/memory.current");
    if (limit > 0 && current >= 0)
        available = available > 0 ? std::min(available, std::max<std::int64_t>(0, limit - current))
                                   : std::max<std::int64_t>(0, limit - current);
    return available;
}

int searchBatchSize(int start, int cap, const std::function<bool(int)> &fits, bool *reachedCap)
{
    if (reachedCap)
        *reachedCap = false;
    if (cap < 1)
        return 0;
    int low = 0;  // the largest batch known to fit
    int high = 0; // the smallest batch known not to fit; 0: none yet
    int batch = std::clamp(start, 1, cap);
    for (;;) {
        if (fits(batch)) {
            low = batch;
            if (batch == cap) {
                if (reachedCap)
                    *reachedCap = true;
                return low;
            }
        } else {
            high = batch;
        }
        if (high == 0) {
            batch = int(std::min<std::int64_t>(std::int64_t(batch) * 2, cap));
            continue;
        }
        if (high - low <= 1)
            return low;
        batch = low + (high - low) / 2;
    }
}

BatchSizeResult findBatchSize(const RunConfig &config, const BatchSizeFinderOptions &o, const TaskControl &control)
{
    checkOptions(o);
    BatchSizeResult r;
    RunSetup prepared;
    prepared.config = config;
    prepareRunSetup(prepared);
    r.datasetCap = datasetCap(prepared);
    r.device = prepared.config.devices.front();
    if (r.datasetCap < 1)
        throw EngineError("data.train_split: split \"" + prepared.config.data.trainSplit + "\" has too few records for " +
                          std::to_string(prepared.worldSize) + " rank(s) x " +
                          std::to_string(prepared.config.optimizer.accumulateSteps) + " accumulated batch(es) of 1");
    const int cap = o.maxBatch > 0 ? std::min(o.maxBatch, r.datasetCap) : r.datasetCap;

    std::function<bool(int)> fits;
    std::unique_ptr<TrainingRig> rig;
    MemoryEstimate estimate;
    if (prepared.devices.front().is_cuda()) {
        r.measured = true;
        r.memoryLimit = o.maxMemory;
        rig = std::make_unique<TrainingRig>(config);
        r.note = "peak bytes allocated by tensors on " + r.device +
                 "; the CUDA context and the allocator's cache come on top";
        fits = [&](int batch) {
            control.checkCancel();
            control.report(std::min(0.95, double(r.trials.size()) / 20.0), "trying batch " + std::to_string(batch));
            BatchSizeTrial t;
            t.batch = batch;
            auto peak = std::make_shared<DevicePeak>(rig->device);
            try {
                c10::DebugInfoGuard guard(c10::DebugInfoKind::PROFILER_STATE, peak);
                for (int i = 0; i < o.stepsPerTrial; ++i) {
                    rig->clearGradients();
                    const SyntheticBatch b = syntheticBatch(*rig, batch);
                    rig->forwardBackward(b.images, b.targets);
                    rig->step(rig->config().optimizer.lr);
                }
            } catch (const c10::OutOfMemoryError &) {
                t.outOfMemory = true;
            }
            rig->clearGradients();
            t.bytes = peak->peak();
            t.fits = !t.outOfMemory && (o.maxMemory == 0 || t.bytes <= o.maxMemory);
            r.trials.push_back(t);
            return t.fits;
        };
    } else {
        // CPU ranks of this machine, each with its model, optimizer, batches and pipeline.
        r.ranks = prepared.localRanks;
        r.memoryLimit = o.maxMemory > 0 ? o.maxMemory : availableMemoryBytes();
        if (r.memoryLimit <= 0)
            throw EngineError("batch finder: the available memory is unknown here; give max_memory");
        estimate = estimateTrainingMemory(prepared.config, prepared.numClasses);
        RunConfig one = prepared.config;
        one.optimizer.batchSize = 1;
        completeMemoryEstimate(estimate, one);
        // The pipeline keeps 2 x workers batches in flight and one with the trainer (its default
        // prefetch), each image float32 at the training size, plus its image cache.
        const RunConfig &c = prepared.config;
        const int cores = int(std::max(1u, std::thread::hardware_concurrency()));
        const int workers = c.data.workers > 0 ? c.data.workers : std::max(1, cores / r.ranks);
        const std::int64_t sampleBytes =
            std::int64_t(c.data.imageSize) * c.data.imageSize * prepared.spec.inChannels * 4 + 8 +
            (withoutBatchSteps(c.data.augment).size() != c.data.augment.size() ? 4 * prepared.numClasses : 0);
        const std::int64_t pipelinePerImage = std::int64_t(2 * workers + 1) * sampleBytes;
        r.bytesPerImage = r.ranks * (estimate.activationsPerImage + pipelinePerImage);
        r.bytesFixed = r.ranks * (estimate.total - estimate.activationsPerImage + std::int64_t(c.data.cacheMb) * 1024 * 1024);
        r.note = "estimate: tensors of the model, gradients, optimizer state" + std::string(c.ema.enabled ? ", EMA" : "") +
                 " and activations measured at batch 2 and 4, the input pipeline's batch buffers and image cache; "
                 "not the process itself";
        fits = [&](int batch) {
            control.checkCancel();
            BatchSizeTrial t;
            t.batch = batch;
            t.bytes = r.bytesFixed + std::int64_t(batch) * r.bytesPerImage;
            t.fits = t.bytes <= r.memoryLimit;
            r.trials.push_back(t);
            return t.fits;
        };
    }

    bool reachedCap = false;
    r.batchSize = searchBatchSize(o.startBatch, cap, fits, &reachedCap);
    if (r.batchSize < 1) {
        const BatchSizeTrial &t = r.trials.back();
        throw EngineError("optimizer.batch_size: not even a batch of 1 fits on " + r.device + " (" +
                          (t.outOfMemory ? std::string("out of memory") : "needs " + mib(t.bytes)) +
                          (r.memoryLimit > 0 ? " of " + mib(r.memoryLimit) : std::string()) + ")");
    }
    r.stoppedBy = !reachedCap ? "memory" : (o.maxBatch > 0 && o.maxBatch < r.datasetCap) ? "max_batch" : "dataset";
    control.report(1.0, "batch " + std::to_string(r.batchSize));
    return r;
}

json batchSizeResultToJson(const BatchSizeResult &r)
{
    json trials = json::array();
    for (const BatchSizeTrial &t : r.trials)
        trials.push_back({{"batch", t.batch}, {"bytes", t.bytes}, {"fits", t.fits}, {"out_of_memory", t.outOfMemory}});
    return {{"batch_size", r.batchSize},
            {"stopped_by", r.stoppedBy},
            {"trials", trials},
            {"measured", r.measured},
            {"memory_limit", r.memoryLimit},
            {"dataset_cap", r.datasetCap},
            {"device", r.device},
            {"ranks", r.ranks},
            {"bytes_fixed", r.bytesFixed},
            {"bytes_per_image", r.bytesPerImage},
            {"note", r.note}};
}

} // namespace lathe::engine
