#include "engine/training/rank_trainer.h"

#include "engine/base/nvml_probe.h"
#include "engine/training/device_feed.h"
#include "engine/training/sync_batch_norm.h"

#include "engine/base/engine_error.h"
#include "engine/base/torch_compat.h"
#include "engine/models/weights_io.h"
#include "engine/run/checkpoint_io.h"
#include "engine/run/run_events.h"
#include "engine/run/run_folder.h"
#include "engine/training/loss_functions.h"
#include "engine/training/multilabel_metrics.h"
#include "engine/training/optimizer_factory.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <mutex>
#include <optional>
#include <sstream>
#include <tuple>

namespace lathe::engine {
namespace {

using json = nlohmann::json;

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

} // namespace

RankTrainer::RankTrainer(RunSetup &s, int localRank)
    : m_s(s)
    , m_config(s.config)
    , m_localRank(localRank)
    , m_rank(s.firstRank + localRank)
    , m_device(s.devices[std::size_t(localRank)])
    , m_model(s.replicas[std::size_t(localRank)])
    , m_earlyStopping(s.config.earlyStopping)
{
}

void RankTrainer::run()
{
    setUp();
    while (m_epoch < m_config.optimizer.epochs) {
        EpochClock clock;
        clock.start = Clock::now();
        clock.secondsBefore = m_epochSeconds;
        if (trainEpoch(clock) || endEpoch(clock))
            break;
    }
    writeCheckpoint(m_cancelled ? "cancel" : "end", m_lastMetrics);
    writeSummary();
}

// ---- set-up ---------------------------------------------------------------------------------

void RankTrainer::setUp()
{
    const RunConfig &c = m_config;
    at::set_num_threads(m_s.threadsPerRank);
    if (m_s.usesProcessGroup())
        m_group = std::make_unique<RankGroup>(m_s.rendezvous, m_rank, m_s.worldSize, m_device,
                                              m_s.launch.multiProcess() ? m_s.launch.master : std::string(),
                                              std::chrono::seconds(c.distributed.timeoutSeconds));
    if (m_group)
        emit({{event_key::kType, event_type::kLog},
              {event_key::kMessage, std::string("distributed: ") + (m_device.is_cuda() ? "NCCL" : "Gloo") +
                                        " process group of " + std::to_string(m_s.worldSize) + " rank(s)"}});
    m_cached = m_s.cache != nullptr;
    m_syncSteps = c.cuda.hostSyncSteps > 0 ? c.cuda.hostSyncSteps : m_device.is_cuda() ? kCudaSyncSteps : 1;
    m_deviceSums = torch::zeros({3}, torch::TensorOptions(torch::kFloat64).device(m_device));
    m_nonFinite = torch::zeros({}, torch::TensorOptions(torch::kFloat32).device(m_device));
    m_pciBusId = cudaPciBusId(m_device);
    if (c.cuda.graphs)
        m_graph = std::make_unique<CudaStepGraph>();
    m_autocast = c.precision == "bf16" || c.precision == "fp16";
    m_autocastType = c.precision == "fp16" ? at::kHalf : at::kBFloat16;

    // cuDNN picks the fastest convolution algorithms for the run's fixed input size.
    if (m_device.is_cuda())
        at::globalContext().setBenchmarkCuDNN(true);
    m_model->to(m_device);
    if (c.data.channelsLast && !m_cached)
        toChannelsLast(*m_model);
    if (m_group)
        broadcastFromRankZero();
    if (m_group && m_s.worldSize > 1 && c.distributed.syncBatchNorm && !m_cached) {
        const int layers = convertToSyncBatchNorm(*m_model, [group = m_group.get()](torch::Tensor &t) { group->allReduceSum(t); });
        emit({{event_key::kType, event_type::kLog},
              {event_key::kMessage, "distributed.sync_batch_norm: " + std::to_string(layers) +
                                        " BatchNorm layers normalise with the statistics of all " +
                                        std::to_string(m_s.worldSize) + " ranks' batches"}});
    }

    makeBatchSources();
    m_accumulate = std::max(1, c.optimizer.accumulateSteps);
    m_stepsPerEpoch = m_train->batchesPerEpoch() / m_accumulate;
    if (m_stepsPerEpoch < 1)
        throw EngineError("optimizer.batch_size: " + std::to_string(c.optimizer.batchSize) + " x " +
                          std::to_string(m_accumulate) + " accumulated batches on each of " +
                          std::to_string(m_s.worldSize) + " ranks needs more records than split \"" +
                          c.data.trainSplit + "\" has (" + std::to_string(m_train->batchesPerEpoch()) +
                          " full batches per rank): not one optimizer step per epoch");
    m_schedule = std::make_unique<LrSchedule>(c.schedule, c.optimizer.lr, m_stepsPerEpoch, c.optimizer.epochs);
    m_scaler = std::make_unique<GradScaler>(65536.0, 2.0, 0.5, 2000, c.precision == "fp16");
    if (c.ema.enabled)
        m_ema = std::make_unique<WeightEma>(*m_model, c.ema.decay);
    m_loss = std::make_unique<RunLoss>(c, m_s.multiLabel, m_s.trainCounts, m_s.trainImages, m_device);
    if (m_loss->multiLabel() && isLeader())
        emit({{event_key::kType, event_type::kLog}, {event_key::kMessage, "loss: " + m_loss->describe()}});
    if (!m_s.control.recordLogDir.empty()) {
        const std::string path = m_s.control.recordLogDir + "/records-rank-" + std::to_string(m_rank) + ".txt";
        m_recordLog.open(path, std::ios::app);
        if (!m_recordLog)
            throw EngineError(path + ": cannot be opened for the record log");
    }

    if (m_s.resumeFrom) {
        restore(*m_s.resumeFrom);
        emit({{event_key::kType, event_type::kResumed},
              {event_key::kStep, m_step},
              {event_key::kEpoch, m_epoch},
              {event_key::kBatchInEpoch, m_batch},
              {event_key::kCheckpoint, m_s.resumeFrom->sidecarPath}});
    }

    // The step events' figures count from here, set-up and restore excluded.
    m_stepEvents.intervalStart = Clock::now();
    m_stepEvents.intervalWait = m_train->waitSeconds();
    m_stepEvents.intervalImages = 0;
    m_stepEvents.runStart = Clock::now();
}

// Same start on every rank: rank 0's parameters and buffers.
void RankTrainer::broadcastFromRankZero()
{
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

void RankTrainer::makeBatchSources()
{
    const RunConfig &c = m_config;
    if (m_cached) {
        m_train = std::make_unique<CacheSource>(m_s, c.data.trainSplit, true, m_rank);
        if (m_s.hasVal)
            m_val = std::make_unique<CacheSource>(m_s, c.data.valSplit, false, m_rank);
    } else {
        m_train = deviceFeed(pipelineOptions(m_s, c.data.trainSplit, true, m_rank));
        if (m_s.hasVal)
            m_val = deviceFeed(pipelineOptions(m_s, c.data.valSplit, false, m_rank));
    }
}

// On a CUDA device the pipeline's batches reach it one batch ahead (DeviceFeed), normalised
// there when data.device_normalize says so (uint8 from the pipeline); on the CPU the pipeline's
// batches are used as they come, normalised by DeviceFeed only with data.device_normalize on.
std::unique_ptr<BatchSource> RankTrainer::deviceFeed(PipelineOptions options)
{
    const std::string &mode = m_config.data.deviceNormalize;
    const bool normalize =
        mode == "on" || (mode == "auto" && m_device.is_cuda() && !BatchMixer(options.transform.augmentations, 1).active());
    options.transform.uint8Output = normalize;
    const TransformOptions t = options.transform;
    auto pipeline = std::make_unique<PipelineSource>(std::move(options));
    if (!m_device.is_cuda() && !normalize)
        return pipeline;
    return std::make_unique<DeviceFeed>(std::move(pipeline), m_device, normalize, t.mean, t.std, t.channels);
}

// GPU figures of a step or epoch event: the caching allocator's memory on this rank's device
// and, where NVML loads, the GPU's utilisation. Nothing on the CPU.
void RankTrainer::addGpuFigures(json &event) const
{
    const std::optional<CudaMemory> memory = cudaMemory(m_device);
    if (!memory)
        return;
    event[event_key::kGpuMemoryAllocatedMiB] = memory->allocatedMiB;
    event[event_key::kGpuMemoryReservedMiB] = memory->reservedMiB;
    event[event_key::kGpuMemoryPeakMiB] = memory->peakAllocatedMiB;
    if (const std::optional<GpuUtilization> u = queryGpuUtilization(m_pciBusId, m_device.index())) {
        event[event_key::kGpuUtilization] = u->gpuPercent / 100.0;
        event[event_key::kGpuMemoryUsedMiB] = u->usedMiB;
        event[event_key::kGpuMemoryTotalMiB] = u->totalMiB;
    }
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
    m_earlyStopping.restore(t.at("early_stopping"));
    m_lastMetrics = t.value("last_metrics", json::object());
    m_scheduleOffset = t.value("schedule_offset", std::int64_t(0));
    const int savedWorld = t.value("world_size", m_s.worldSize);
    if (savedWorld != m_s.worldSize)
        continueInNewWorld(savedWorld);
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

// A resume with another number of ranks. Rank r's batch b holds records [b*N*W, (b+1)*N*W) of the
// epoch's shuffled order, strided over the ranks (ShardDataset::epochOrder), so the records taken
// so far are a prefix of that order whatever W was: the epoch continues at the last whole global
// batch of the new world inside that prefix, and up to N*W'-1 records are seen again. Later
// epochs have the same orders as before, cut into batches of the new global size; the schedule
// keeps its fraction of the run (m_scheduleOffset).
void RankTrainer::continueInNewWorld(int savedWorld)
{
    const std::int64_t perRank = m_config.optimizer.batchSize;
    const std::int64_t taken = m_batch * perRank * savedWorld;
    const std::int64_t globalBatch = perRank * m_s.worldSize;
    m_batch = taken / globalBatch;
    m_batch -= m_batch % m_accumulate;
    const std::int64_t place = std::int64_t(m_epoch) * m_stepsPerEpoch + m_batch / m_accumulate;
    m_scheduleOffset = place - m_step;
    emit({{event_key::kType, event_type::kLog},
          {event_key::kMessage, "resume: " + std::to_string(savedWorld) + " ranks before, " +
                                    std::to_string(m_s.worldSize) + " now: epoch " + std::to_string(m_epoch + 1) +
                                    " continues at record " + std::to_string(m_batch * globalBatch) +
                                    " of its order (" + std::to_string(taken - m_batch * globalBatch) +
                                    " records trained on again); the schedule continues at step " +
                                    std::to_string(place) + " of " + std::to_string(m_stepsPerEpoch * m_config.optimizer.epochs)}});
}

// ---- an epoch's steps -----------------------------------------------------------------------

bool RankTrainer::trainEpoch(const EpochClock &clock)
{
    updateParameterGroups(m_epoch);
    m_model->train();
    applyBatchNormFreezing(*m_model, m_s.info, m_s.spec.freeze);
    m_train->start(m_epoch, m_batch);

    const std::int64_t microPerEpoch = m_stepsPerEpoch * m_accumulate;
    PendingStep pending;
    while (m_batch < microPerEpoch) {
        m_s.control.pause.waitWhilePaused(m_s.control.cancel);
        std::optional<Batch> batch = m_train->next();
        if (!batch)
            break;
        trainMicroBatch(*batch, pending);
        if (pending.microBatches < m_accumulate)
            continue;

        const StepOutcome step = optimizerStep(pending);
        pending = PendingStep();
        if (m_step % m_syncSteps == 0)
            readDeviceSums();
        emitStepEvent(step);
        m_epochSeconds = clock.secondsBefore + secondsSince(clock.start);
        if (m_config.checkpoints.everySteps > 0 && m_step % m_config.checkpoints.everySteps == 0)
            writeCheckpoint("steps", m_lastMetrics);
        // One rank decides alone (a cancel during this step's event stops here); ranks stop
        // together at the step whose all-reduce carried the cancel.
        const bool cancelled = step.cancelRequested || (!m_group && m_s.control.cancel.isCancelled());
        if (cancelled || (m_s.control.stopAfterStep > 0 && m_step >= m_s.control.stopAfterStep)) {
            m_cancelled = true;
            return true;
        }
    }
    return false;
}

void RankTrainer::seedStep(std::int64_t micro)
{
    // Dropout, stochastic depth: the same draws at the same step after a resume. The CPU
    // generator is one per process, so several CPU ranks in one process share it.
    if (m_s.localRanks == 1)
        torch::manual_seed(mixSeed(m_config.seed, std::uint64_t(m_rank), std::uint64_t(micro)));
}

// Forward and backward of one batch under autocast; the loss scaled for accumulation and for
// fp16. Its gradients add to those of the step's earlier micro-batches. The loss and accuracy
// are summed on the device (readDeviceSums); only with host reads every step is the loss looked
// at here, so that a non-finite one stops the run before its backward.
void RankTrainer::trainMicroBatch(const Batch &batch, PendingStep &pending)
{
    seedStep(m_step * m_accumulate + pending.microBatches);
    logRecords(batch);
    torch::Tensor x = batch.images.to(m_device, /*non_blocking=*/true);
    const torch::Tensor labels = batch.labels.to(m_device);
    const torch::Tensor targets = batch.softTargets.defined() ? batch.softTargets.to(m_device) : labels;
    torch::Tensor logits, loss;
    if (m_graph && !m_graph->captured() && pending.microBatches == 0)
        captureStep(x, targets); // keeps m_graph only when the step was captured
    if (m_graph) {
        m_static.images.copy_(x);
        m_static.targets.copy_(targets);
        m_graph->replay();
        logits = m_static.logits;
        loss = m_static.loss;
    } else {
        if (pending.microBatches == 0)
            clearGradients(*m_optimizer);
        {
            compat::AutocastScope autocast(m_autocast, m_device.type(), m_autocastType);
            logits = forward(x);
        }
        loss = (*m_loss)(logits, targets);
        if (m_syncSteps == 1) {
            const double lossValue = loss.item<double>();
            if (!std::isfinite(lossValue) && !pending.badLoss) {
                pending.badLoss = true;
                std::ostringstream what;
                what << "loss is " << (std::isnan(lossValue) ? "NaN" : "infinite") << " at step " << (m_step + 1)
                     << " (epoch " << (m_epoch + 1) << ", batch " << (m_batch + 1) << ")";
                pending.badLossWhat = what.str();
            }
        }
        torch::Tensor scaled = m_accumulate > 1 ? loss / double(m_accumulate) : loss;
        if (m_scaler->enabled())
            scaled = m_scaler->scale(scaled);
        if (m_buckets && pending.microBatches + 1 == m_accumulate)
            m_buckets->arm(); // this backward completes the step's gradients
        if (!pending.badLoss)
            scaled.backward();
    }
    {
        torch::NoGradGuard noGrad;
        const double n = double(labels.size(0));
        const torch::Tensor lossSum = loss.detach().to(torch::kFloat64);
        // Multi-label: the top-scored label is one of the image's (the "top-1" of a label set).
        const torch::Tensor correct = m_loss->multiLabel() ? targets.gather(1, logits.argmax(1, true)).gt(0.5).sum()
                                                           : logits.argmax(1).eq(labels).sum();
        m_deviceSums.add_(torch::stack({lossSum, lossSum * n, correct.to(torch::kFloat64)}));
        m_nonFinite.add_(lossSum.isfinite().logical_not().to(torch::kFloat32));
        m_epochCounts.samples += n;
        m_stepEvents.intervalImages += labels.size(0);
    }
    ++m_unreadMicroBatches;
    ++pending.microBatches;
    ++m_batch;
}

// cuda.graphs: at the first step the step's forward, loss and backward are captured on static
// tensors of this batch's shape (after the warm-up passes that let cuDNN choose its algorithms;
// they also count the first batch in BatchNorm's running statistics three more times) and
// replayed from then on; runs that cannot be captured say why once and stay eager.
void RankTrainer::captureStep(const torch::Tensor &x, const torch::Tensor &targets)
{
    std::unique_ptr<CudaStepGraph> graph = std::move(m_graph);
    std::string why;
    if (m_group)
        why = "several ranks all-reduce gradients while backward runs";
    else if (m_accumulate > 1)
        why = "optimizer.accumulate_steps adds gradients over micro-batches";
    else if (m_scaler->enabled())
        why = "fp16's loss scale changes between steps";
    else if (m_s.spec.freeze.unfreezeEveryEpochs > 0)
        why = "gradual unfreezing changes the trainable parameters between epochs";
    else if (m_cached)
        why = "the feature cache trains the head alone";
    if (why.empty()) {
        m_static.images = x.clone();
        m_static.targets = targets.clone();
        why = graph->tryCapture(
            m_device,
            [this] {
                {
                    compat::AutocastScope autocast(m_autocast, m_device.type(), m_autocastType);
                    m_static.logits = forward(m_static.images);
                }
                m_static.loss = (*m_loss)(m_static.logits, m_static.targets);
                m_static.loss.backward();
            },
            [this] { clearGradients(*m_optimizer); });
    }
    if (why.empty()) {
        m_graph = std::move(graph);
        emit({{event_key::kType, event_type::kLog},
              {event_key::kMessage, "cuda.graphs: the step (forward, loss, backward) is captured as a CUDA graph"}});
    } else {
        m_static = {};
        emit({{event_key::kType, event_type::kLog},
              {event_key::kMessage, "cuda.graphs: not used, the step runs eagerly: " + why}});
    }
}

// The device's loss and accuracy sums since the last read, added to the epoch's counts: one
// synchronisation with the device. Returns the mean loss of the micro-batches read.
double RankTrainer::readDeviceSums()
{
    if (m_unreadMicroBatches == 0)
        return m_lastMeanLoss;
    const torch::Tensor host = m_deviceSums.cpu();
    const double *v = host.data_ptr<double>();
    m_epochCounts.lossSum += v[1];
    m_epochCounts.correct += v[2];
    m_lastMeanLoss = v[0] / double(m_unreadMicroBatches);
    m_deviceSums.zero_();
    m_unreadMicroBatches = 0;
    return m_lastMeanLoss;
}

void RankTrainer::logRecords(const Batch &batch)
{
    if (!m_recordLog.is_open())
        return;
    for (std::size_t i = 0; i < batch.recordShards.size(); ++i)
        m_recordLog << m_epoch << ' ' << m_s.manifest.shards[batch.recordShards[i]].file << ' ' << batch.recordOffsets[i]
                    << '\n';
    m_recordLog.flush();
}

// An optimizer step: every rank agrees on whether to go on (the flags ride with the gradients'
// all-reduce), then unscale, clip, step (or skip, on an fp16 overflow), EMA, at the schedule's
// learning rate.
RankTrainer::StepOutcome RankTrainer::optimizerStep(const PendingStep &pending)
{
    const RunConfig &c = m_config;
    // [cancelled, non-finite losses]: every rank's, summed with the gradients; the host looks at
    // them every m_syncSteps steps, the same step on every rank.
    const auto flagOptions = torch::TensorOptions(torch::kFloat32).device(m_device);
    torch::Tensor flags = torch::stack(
        {torch::full({}, m_s.control.cancel.isCancelled() ? 1.0f : 0.0f, flagOptions), m_nonFinite.clone()});
    allReduceGradients(flags);
    StepOutcome out;
    if ((m_step + 1) % m_syncSteps == 0) {
        const torch::Tensor host = flags.cpu();
        m_nonFinite.zero_();
        if (host[1].item<float>() > 0) {
            const std::string where =
                pending.badLoss ? pending.badLossWhat
                : m_syncSteps == 1
                    ? "loss is not finite on another rank at step " + std::to_string(m_step + 1)
                    : "loss is not finite in steps " + std::to_string(m_step + 2 - m_syncSteps) + "-" +
                          std::to_string(m_step + 1) + " (read every " + std::to_string(m_syncSteps) +
                          " steps, cuda.host_sync_steps)";
            throw EngineError(where + "; training stopped (lower the learning rate or check the data; the last "
                                      "checkpoint is kept)");
        }
        out.cancelRequested = host[0].item<float>() > 0;
    }
    out.lr = m_schedule->lrAt(m_step + m_scheduleOffset);
    setLearningRate(*m_optimizer, out.lr, m_groups);
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
    return out;
}

// Every rank's gradients averaged (GradientBuckets: all-reduced while backward ran; here only
// what is left is waited for), then the flags summed over the ranks.
void RankTrainer::allReduceGradients(torch::Tensor &flags)
{
    if (!m_group)
        return;
    const Clock::time_point start = Clock::now();
    m_buckets->finish();
    m_group->allReduceSum(flags);
    m_stepEvents.intervalCommSeconds += secondsSince(start);
    if (!m_bucketsLogged) {
        m_bucketsLogged = true;
        const std::vector<std::int64_t> bucketBytes = m_buckets->bucketBytes();
        std::int64_t total = 0;
        std::ostringstream sizes;
        for (std::size_t b = 0; b < bucketBytes.size(); ++b) {
            sizes << (b ? ", " : "") << std::fixed << std::setprecision(2) << double(bucketBytes[b]) / (1 << 20);
            total += bucketBytes[b];
        }
        emit({{event_key::kType, event_type::kLog},
              {event_key::kMessage, "gradient all-reduce: " + std::to_string(bucketBytes.size()) +
                                        " bucket(s) a step, overlapping backward, " + sizes.str() + " MiB (" +
                                        std::to_string(total) + " bytes) over " + std::to_string(m_s.worldSize) +
                                        " ranks"}});
    }
}

// Rank 0's step event: every stepEventEvery steps, or at most one each 0.25 s (and the first).
void RankTrainer::emitStepEvent(const StepOutcome &step)
{
    StepEventClock &e = m_stepEvents;
    const double now = secondsSince(e.runStart);
    const bool every = m_s.control.stepEventEvery > 0 ? m_step % m_s.control.stepEventEvery == 0
                                                      : (e.lastEventTime < 0 || now - e.lastEventTime >= 0.25);
    if (!isLeader() || !every)
        return;
    const double meanLoss = readDeviceSums();
    const double interval = secondsSince(e.intervalStart);
    const double wait = m_train->waitSeconds();
    json event = {{event_key::kType, event_type::kStep},
          {event_key::kStep, m_step},
          {event_key::kEpoch, m_epoch},
          {event_key::kLoss, meanLoss},
          {event_key::kLr, step.lr},
          {event_key::kTotalSteps, m_stepsPerEpoch * m_config.optimizer.epochs - m_scheduleOffset},
          {event_key::kImagesPerSecond, interval > 0 ? double(e.intervalImages) * m_s.worldSize / interval : 0.0},
          {event_key::kInputWaitFraction,
           interval > 0 ? std::clamp((wait - e.intervalWait) / interval, 0.0, 1.0) : 0.0},
          {event_key::kCommFraction, interval > 0 ? std::clamp(e.intervalCommSeconds / interval, 0.0, 1.0) : 0.0}};
    addGpuFigures(event);
    emit(std::move(event));
    m_s.folder->tensorboard().addScalar("train/loss", meanLoss, m_step);
    m_s.folder->tensorboard().addScalar("train/lr", step.lr, m_step);
    e.lastEventTime = now;
    e.intervalStart = Clock::now();
    e.intervalWait = wait;
    e.intervalImages = 0;
    e.intervalCommSeconds = 0;
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
    if (m_group) {
        std::vector<torch::Tensor> trainable;
        for (const ParameterGroup &g : m_groups)
            trainable.insert(trainable.end(), g.parameters.begin(), g.parameters.end());
        m_buckets.reset(); // its hooks go before the new ones come
        m_buckets = std::make_unique<GradientBuckets>(*m_group, trainable, kBucketElements);
    }
}

// ---- the end of an epoch --------------------------------------------------------------------

// Statistics, validation, the decisions that follow from them; then the position moves to the
// next epoch's start.
bool RankTrainer::endEpoch(const EpochClock &clock)
{
    const RunConfig &c = m_config;
    const json metrics = epochMetrics(clock);
    reportEpoch(metrics);
    if (c.schedule.name == "plateau") {
        const std::string &name = c.schedule.plateauMetric;
        if (metrics.contains(name))
            m_schedule->reportEpoch(m_epoch, metrics.at(name).get<double>());
    }
    m_earlyStopping.observe(metrics);
    json ckptMetrics = metrics;
    ckptMetrics.erase("per_class_accuracy");
    m_lastMetrics = ckptMetrics;
    ++m_epoch;
    m_batch = 0;
    m_epochCounts = {};
    m_epochSeconds = 0;
    const bool end = m_epoch >= c.optimizer.epochs || m_earlyStopping.stopped;
    if (c.checkpoints.everyEpochs > 0 && (m_epoch % c.checkpoints.everyEpochs == 0) && !end)
        writeCheckpoint("epoch", ckptMetrics);
    bool stop = false;
    if (m_earlyStopping.stopped) {
        emit({{event_key::kType, event_type::kLog},
              {event_key::kMessage, "early stopping: " + c.earlyStopping.metric + " did not improve for " +
                                        std::to_string(c.earlyStopping.patience) + " epochs"}});
        stop = true;
    }
    if (m_s.control.cancel.isCancelled() && !m_group) {
        m_cancelled = true;
        stop = true;
    }
    return stop;
}

// The epoch's metrics, reduced over the ranks: train and validation loss and accuracy, lr,
// seconds.
json RankTrainer::epochMetrics(const EpochClock &clock)
{
    readDeviceSums();
    syncBatchNorm();
    m_epochSeconds = clock.secondsBefore + secondsSince(clock.start);
    json valSums = validate();
    json metrics = reduceEpoch(m_epochCounts, valSums);
    if (m_multiLabelVal.is_object() && metrics.contains("val_loss"))
        metrics.update(m_multiLabelVal);
    metrics["lr"] = m_schedule->lrAt(std::max<std::int64_t>(0, m_step + m_scheduleOffset - 1));
    metrics[event_key::kSeconds] = m_epochSeconds;
    addGpuFigures(metrics);
    resetCudaPeak(m_device); // each epoch's peak
    if (m_cached)
        metrics[event_key::kFeatureCache] = true;
    return metrics;
}

// Rank 0's epoch event and TensorBoard scalars.
void RankTrainer::reportEpoch(const json &metrics)
{
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
                tb.addScalar("epoch/" + tag, metrics.at(key).get<double>(), m_step);
            }
    }
}

void RankTrainer::syncBatchNorm()
{
    if (!m_group || !m_config.distributed.syncBatchNorm || m_cached)
        return;
    // Running statistics averaged across ranks at the end of each epoch, so the evaluated model
    // is the same on every rank: SyncBatchNorm's layers have equal ones already; this reaches
    // those it cannot (a TorchScript backbone's).
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
    // loss, n, top1, top5, per-class correct, totals: summed on the device, read once at the end.
    torch::Tensor sums = torch::zeros({4 + 2 * k}, torch::TensorOptions(torch::kFloat64).device(m_device));
    std::vector<torch::Tensor> scores, targets; // multi-label: every batch's, for the metrics below
    if (m_val) {
        torch::NoGradGuard noGrad;
        if (m_ema)
            m_ema->swap(*m_model);
        m_model->eval();
        m_val->start(0, 0);
        while (std::optional<Batch> b = m_val->next()) {
            torch::Tensor x = b->images.to(m_device, /*non_blocking=*/true);
            const torch::Tensor y = b->labels.to(m_device);
            const std::int64_t n = y.size(0);
            if (n == 0)
                continue;
            torch::Tensor logits;
            {
                compat::AutocastScope autocast(m_autocast, m_device.type(), m_autocastType);
                logits = forward(x);
            }
            logits = logits.to(torch::kFloat32);
            const bool multi = m_loss->multiLabel();
            const torch::Tensor t = multi ? b->softTargets.to(m_device) : y;
            const torch::Tensor top = std::get<1>(logits.topk(std::min<std::int64_t>(5, k), 1));
            const torch::Tensor hit1 = multi ? t.gather(1, top.narrow(1, 0, 1)).squeeze(1).gt(0.5) : top.select(1, 0).eq(y);
            const torch::Tensor hit5 = multi ? t.gather(1, top).gt(0.5).any(1) : top.eq(y.unsqueeze(1)).any(1);
            sums.narrow(0, 0, 4).add_(torch::stack({(*m_loss)(logits, t).to(torch::kFloat64) * double(n),
                                                    torch::full({}, double(n), sums.options()),
                                                    hit1.sum().to(torch::kFloat64), hit5.sum().to(torch::kFloat64)}));
            sums.narrow(0, 4, k).index_add_(0, y, hit1.to(torch::kFloat64));
            sums.narrow(0, 4 + k, k).index_add_(0, y, torch::ones({n}, sums.options()));
            if (multi) {
                scores.push_back(torch::sigmoid(logits));
                targets.push_back(t);
            }
        }
        if (m_ema)
            m_ema->swap(*m_model);
    }
    if (m_loss->multiLabel() && m_val)
        m_multiLabelVal = scores.empty() ? json() : multiLabelMetrics(torch::cat(scores).cpu(), torch::cat(targets).cpu());
    const torch::Tensor host = sums.cpu();
    const double *v = host.data_ptr<double>();
    return json(std::vector<double>(v, v + host.numel()));
}

json RankTrainer::multiLabelMetrics(const torch::Tensor &localScores, const torch::Tensor &localTargets)
{
    torch::Tensor s = localScores.to(torch::kFloat32).contiguous();
    torch::Tensor t = localTargets.to(torch::kFloat32).contiguous();
    if (m_group) {
        // Every rank validates as many records (ShardDataset deals floor(n / world) each): each
        // puts its rows in its own block of a zero tensor, and the sum is every rank's rows.
        const std::int64_t rows = s.size(0);
        torch::Tensor all = torch::zeros({2, std::int64_t(m_s.worldSize) * rows, s.size(1)}, torch::kFloat32);
        all.select(0, 0).narrow(0, std::int64_t(m_rank) * rows, rows).copy_(s);
        all.select(0, 1).narrow(0, std::int64_t(m_rank) * rows, rows).copy_(t);
        m_group->allReduceSum(all);
        s = all.select(0, 0).contiguous();
        t = all.select(0, 1).contiguous();
    }
    const std::int64_t n = s.size(0), k = s.size(1);
    const std::size_t rowCount = std::size_t(n), labelCount = std::size_t(k);
    MultiLabelScores scoreRows(rowCount, std::vector<float>(labelCount));
    MultiLabelTargets targetRows(rowCount, std::vector<std::uint8_t>(labelCount));
    const float *sp = s.data_ptr<float>();
    const float *tp = t.data_ptr<float>();
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < k; ++j) {
            scoreRows[std::size_t(i)][std::size_t(j)] = sp[i * k + j];
            targetRows[std::size_t(i)][std::size_t(j)] = tp[i * k + j] >= 0.5f ? 1 : 0;
        }
    const MeanAveragePrecision map = meanAveragePrecision(scoreRows, targetRows);
    const TunedThresholds tuned = tuneThresholds(scoreRows, targetRows);
    const MultiLabelPrf prf = precisionRecallF1(scoreRows, targetRows, tuned.thresholds);
    const auto finiteOrNull = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
    json perLabelAp = json::array(), recall = json::array();
    for (std::size_t j = 0; j < std::size_t(k); ++j) {
        perLabelAp.push_back(finiteOrNull(map.perLabel[j]));
        recall.push_back(prf.support[j] > 0 ? json(prf.recall[j]) : json(nullptr));
    }
    return {{"val_map", finiteOrNull(map.macro)},
            {"val_map_micro", finiteOrNull(map.micro)},
            {"val_f1", prf.micro.f1},
            {"thresholds", tuned.thresholds},
            {"per_label_ap", perLabelAp},
            {"per_class_accuracy", recall}};
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

// ---- checkpoints and the summary ------------------------------------------------------------

void RankTrainer::writeCheckpoint(const std::string &reason, const json &metrics)
{
    if (!isLeader() || (m_lastCheckpointStep == m_step && m_lastCheckpointEpoch == m_epoch &&
                        m_lastCheckpointBatch == m_batch))
        return;
    readDeviceSums(); // the epoch's counts so far go into the checkpoint
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
                 {"task", m_s.manifest.task},
                 {"trainer",
                  {{"step", m_step},
                   {"epoch", m_epoch},
                   {"batch", m_batch},
                   {"epoch_loss_sum", m_epochCounts.lossSum},
                   {"epoch_samples", m_epochCounts.samples},
                   {"epoch_correct", m_epochCounts.correct},
                   {"epoch_seconds", m_epochSeconds},
                   {"world_size", m_s.worldSize},
                   {"schedule_offset", m_scheduleOffset},
                   {"early_stopping", m_earlyStopping.state()},
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

// The process's part of train()'s summary, from its first rank.
void RankTrainer::writeSummary()
{
    if (m_localRank != 0)
        return;
    std::lock_guard<std::mutex> lock(m_s.eventMutex);
    m_s.summary["status"] = m_cancelled ? event_type::kCancelled : event_type::kFinished; // the end event's type
    m_s.summary["epochs"] = m_epoch;
    m_s.summary["steps"] = m_step;
    m_s.summary["stopped_early"] = m_earlyStopping.stopped;
    m_s.summary["last_checkpoint"] = m_lastCheckpoint;
    m_s.summary["metrics"] = m_lastMetrics;
    m_s.summary["feature_cache"] = m_cached;
}

} // namespace lathe::engine
