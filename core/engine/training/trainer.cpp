#include "engine/training/trainer.h"

#include "engine/base/cpu_block_cache.h"
#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"
#include "engine/dataset/shard_converter.h"
#include "engine/models/freezing.h"
#include "engine/models/model_builder.h"
#include "engine/models/model_zoo.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_config.h"
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "engine/run/run_layout.h"
#include "engine/training/cuda_support.h"
#include "engine/training/devices.h"
#include "engine/training/distributed.h"
#include "engine/training/feature_cache.h"
#include "engine/training/grad_scaler.h"
#include "engine/training/launch.h"
#include "engine/training/optimizer_factory.h"
#include "engine/training/process_meeting.h"
#include "engine/training/rank_trainer.h"
#include "engine/training/run_setup.h"
#include "engine/training/train_util.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// The set-up of a run and its entry points: prepare() works out everything that follows from
// the config and the dataset, runTraining() builds the replicas and the feature cache and runs
// the ranks (rank_trainer.cpp), guarded() turns their failure or cancel into the run's last
// event. train() starts a run folder, resume() continues one.

namespace fs = std::filesystem;

namespace lathe::engine {
namespace {

using json = nlohmann::json;

// ---- setting up and running ----------------------------------------------------------------

json runTraining(RunSetup &s)
{
    const RunConfig &c = s.config;
    if (s.folder)
        s.folder->log("lathe training: " + c.model.arch + " on " + c.data.shards);
    if (s.launch.multiProcess())
        s.log("distributed: " + s.launch.describe() + ", ranks " + std::to_string(s.firstRank) + "-" +
              std::to_string(s.firstRank + s.localRanks - 1) + " of " + std::to_string(s.worldSize) + ", master " +
              s.launch.master);
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
    const bool selectsRecords = c.data.folds > 0 || c.data.balance == "balanced_sampler" || c.data.balance == "sqrt_sampler";
    if (fc.mode == "auto" && selectsRecords) {
        s.log("feature cache: off (it embeds whole splits; folds and balanced samplers select records)");
    } else if (fc.mode != "off") {
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

    if (s.launch.multiProcess()) {
        connectProcesses(s);
        std::vector<int> ranks;
        for (int r = 0; r < s.localRanks; ++r)
            ranks.push_back(s.firstRank + r);
        s.rendezvous->startHeartbeat(ranks);
    } else if (s.usesProcessGroup()) {
        s.rendezvous = RankRendezvous::inProcess();
    }

    const auto runRank = [&s](int localRank) {
        try {
            RankTrainer rank(s, localRank);
            rank.run();
        } catch (...) {
            std::lock_guard<std::mutex> lock(s.errorMutex);
            const int globalRank = s.firstRank + localRank;
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
    if (!s.folder) {
        // Another process owns the run folder; this one trained its ranks and is done.
        summary["run_dir"] = nullptr;
        summary["rank_0_process"] = false;
        return summary;
    }
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
    // First, so that a failure below can still be told to the run's other processes.
    s.launch = resolveLaunch(c.distributed, s.control.launchEnvironment);
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
    for (const ShardInfo &shard : s.manifest.shards)
        if (shard.split == c.data.trainSplit)
            s.trainImages += std::int64_t(shard.records);
    s.multiLabel = s.manifest.task == kTaskMultiLabel;
    if (!s.multiLabel)
        for (const auto &[field, metric] : {std::pair<const char *, const std::string &>{"checkpoints.best_metric", c.checkpoints.bestMetric},
                                            {"early_stopping.metric", c.earlyStopping.metric},
                                            {"schedule.plateau_metric", c.schedule.plateauMetric}})
            if (metric == "val_map")
                throw EngineError(std::string(field) + ": val_map (mean average precision over labels) is for "
                                  "multi-label datasets; " + c.data.shards + " is single-label (use val_top1)");
    if (c.data.folds > 0) {
        s.hasVal = true; // the held-out fold of the training split
    } else if (!c.data.valSplit.empty()) {
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

    for (const std::string &d : launchDevices(s.launch, c.devices))
        s.devices.push_back(torchDevice(d, "devices"));
    s.localRanks = int(s.devices.size());
    s.firstRank = s.launch.processIndex * s.localRanks;
    s.worldSize = s.localRanks * s.launch.processes;
    if (s.launch.multiProcess() && s.launch.master.empty())
        throw EngineError("distributed.master: a run over " + std::to_string(s.launch.processes) +
                          " processes needs the HOST:PORT of rank 0's rendezvous");
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
    releaseCpuBlockCache(); // the run's blocks go back to the system (a no-op without the cache)
    s.rendezvous.reset();   // stops the heartbeat (and, in rank 0's process, the store) before returning
    if (s.control.throwWhenCancelled && summary.value("status", std::string()) == event_type::kCancelled)
        throw Cancelled(); // after the checkpoint and the "cancelled" event, like the other tasks
    return summary;
}

} // namespace

void prepareRunSetup(RunSetup &s)
{
    prepare(s);
}

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
    if (device.is_cuda())
        at::globalContext().setBenchmarkCuDNN(true); // as training does
    model->to(device);
    model->train();
    if (o.channelsLast)
        toChannelsLast(*model);
    OptimizerConfig oc;
    oc.name = o.optimizer;
    if (o.optimizer == "sgd") {
        oc.lr = 0.01;
        oc.momentum = 0.9;
        oc.weightDecay = 0;
    } else if (o.optimizer == "adamw") {
        oc.lr = 1e-3;
        oc.weightDecay = 0.01;
    } else {
        throw EngineError("bench train: optimizer must be sgd or adamw (got " + o.optimizer + ")");
    }
    const std::vector<ParameterGroup> groups = parameterGroups(*model, backboneInfo(o.arch), spec.freeze, false);
    std::unique_ptr<torch::optim::Optimizer> optimizer = makeOptimizer(oc, groups);
    GradScaler scaler(65536.0, 2.0, 0.5, 2000, o.precision == "fp16");
    torch::Tensor x = torch::randn({o.batchSize, 3, o.imageSize, o.imageSize}, torch::TensorOptions().device(device));
    if (o.channelsLast)
        x = x.contiguous(at::MemoryFormat::ChannelsLast);
    const torch::Tensor y = torch::randint(o.numClasses, {o.batchSize}, torch::TensorOptions().dtype(torch::kInt64).device(device));
    const bool autocast = o.precision != "fp32";
    const at::ScalarType type = o.precision == "fp16" ? at::kHalf : at::kBFloat16;
    // Where a step's time goes (CPU: the operations run synchronously; on CUDA the phases only
    // time the kernels' launches): forward with the loss, backward, optimizer step; summed over
    // the timed steps. The losses are summed on the device and read once, as training does.
    double phase[3] = {0, 0, 0};
    torch::Tensor lossSum = torch::zeros({}, torch::TensorOptions(torch::kFloat64).device(device));
    const auto step = [&] {
        Clock::time_point t0 = Clock::now();
        clearGradients(*optimizer);
        torch::Tensor logits;
        {
            compat::AutocastScope scope(autocast, device.type(), type);
            logits = model->forward(x);
        }
        torch::Tensor loss = torch::nn::functional::cross_entropy(logits.to(torch::kFloat32), y);
        phase[0] += secondsSince(t0);
        t0 = Clock::now();
        scaler.scale(loss).backward();
        phase[1] += secondsSince(t0);
        t0 = Clock::now();
        scaler.step(*optimizer);
        scaler.update();
        lossSum.add_(loss.detach());
        phase[2] += secondsSince(t0);
    };
    for (int i = 0; i < 3; ++i)
        step();
    synchronizeDevice(device);
    resetCudaPeak(device);
    std::fill(std::begin(phase), std::end(phase), 0.0);
    const Clock::time_point start = Clock::now();
    const std::clock_t cpuStart = std::clock(); // all of the process's threads
    for (int i = 0; i < o.steps; ++i)
        step();
    const bool finite = std::isfinite(lossSum.item<double>()); // waits for the last step
    const double seconds = secondsSince(start);
    const std::optional<CudaMemory> memory = cudaMemory(device);
    const double cpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    const char *waitPolicy = std::getenv("OMP_WAIT_POLICY");
    const char *spinCount = std::getenv("GOMP_SPINCOUNT");
    const CpuBlockCacheStats cache = cpuBlockCacheStats();
    return {{"arch", o.arch},
            {"optimizer", o.optimizer},
            {"batch", o.batchSize},
            {"image_size", o.imageSize},
            {"precision", o.precision},
            {"device", o.device},
            {"channels_last", o.channelsLast},
            {"threads", at::get_num_threads()},
            {"steps", o.steps},
            {"step_ms", seconds * 1000.0 / o.steps},
            {"cpu_ms_per_step", cpuSeconds * 1000.0 / o.steps},
            {"forward_ms", phase[0] * 1000.0 / o.steps},
            {"backward_ms", phase[1] * 1000.0 / o.steps},
            {"optimizer_ms", phase[2] * 1000.0 / o.steps},
            {"omp_wait_policy", waitPolicy ? waitPolicy : ""},
            {"omp_spin_count", spinCount ? spinCount : ""},
            {"cpu_block_cache_mb", cache.installed ? double(cache.capBytes) / (1 << 20) : 0.0},
            {"cpu_block_cache_hits", cache.hits},
            {"cpu_block_cache_misses", cache.misses},
            {"loss_finite", finite},
            {"gpu_memory_peak_mib", memory ? json(memory->peakAllocatedMiB) : json(nullptr)},
            {"images_per_s", double(o.batchSize) * o.steps / seconds}};
}

json train(const RunConfig &config, const std::string &runDir, const TrainControl &control)
{
    RunSetup s;
    s.config = config;
    s.runDir = runDir;
    s.control = control;
    try {
        prepare(s);
        meetProcesses(s, false);
        if (s.ownsRunFolder())
            s.folder = std::make_unique<RunFolder>(RunFolder::create(runDir, runConfigToJson(s.config)));
    } catch (const std::exception &e) {
        reportStartFailure(s, e.what());
        throw;
    }
    announceStart(s);
    awaitStart(s);
    return guarded(s);
}

json resume(const std::string &runDir, const TrainControl &control, const json &overrides)
{
    RunSetup s;
    s.runDir = runDir;
    s.control = control;
    // How the processes were launched is not part of the run: when this resume's flags or launcher
    // say how, that replaces the run config's launch fields (another launcher, or another world
    // size, may continue the run); otherwise the run config's stand.
    json launchOverrides = json::object();
    for (auto it = overrides.begin(); overrides.is_object() && it != overrides.end(); ++it)
        if (it.key().rfind("distributed.", 0) == 0)
            launchOverrides[it.key()] = it.value();
    s.launch = resolveLaunch(applyRunConfigOverrides(RunConfig(), launchOverrides).distributed, control.launchEnvironment);
    const bool launchGiven = !launchOverrides.empty() || s.launch.source != "config";
    const auto withoutLaunch = [&overrides, launchGiven](RunConfig c) {
        if (launchGiven) {
            c.distributed.nnodes = 1;
            c.distributed.nodeRank = 0;
            c.distributed.master.clear();
        }
        return overrides.is_null() || overrides.empty() ? c : applyRunConfigOverrides(c, overrides);
    };

    if (s.launch.processIndex != 0) {
        // Not rank 0's process: the run folder is rank 0's, and so are the config and the checkpoint.
        try {
            s.config = withoutLaunch(parseRunConfig(leaderConfig(s)));
            prepare(s);
            meetProcesses(s, true);
        } catch (const std::exception &e) {
            reportStartFailure(s, e.what());
            throw;
        }
        awaitStart(s);
        return guarded(s);
    }

    std::vector<std::string> notes;
    try {
        s.folder = std::make_unique<RunFolder>(RunFolder::open(runDir));
        s.config = withoutLaunch(parseRunConfig(s.folder->config()));
        s.resumeFrom = loadLatestCheckpoint(runDir, &notes);
    } catch (const std::exception &e) {
        reportStartFailure(s, e.what());
        throw;
    }
    try {
        prepare(s);
        for (const std::string &note : notes)
            s.log("resume: " + note);
        if (s.resumeFrom && !s.resumeFrom->meta.contains("trainer"))
            throw EngineError(s.resumeFrom->sidecarPath + ": not a checkpoint of a training run (no trainer state)");
        if (!s.resumeFrom)
            s.log("resume: no complete checkpoint; starting over from the config");
        meetProcesses(s, true);
    } catch (const std::exception &e) {
        reportStartFailure(s, e.what());
        s.emit({{event_key::kType, event_type::kFailed}, {event_key::kMessage, e.what()}});
        throw;
    }
    announceStart(s);
    return guarded(s);
}

} // namespace lathe::engine
