#pragma once

// Engine-internal (training only): includes LibTorch. One data-parallel rank of a run: its
// model replica on its device, its optimizer, schedule, loss scaler and EMA, its share of the
// batches, and the steps of the training loop. Rank 0 (the leader) also writes the events, the
// checkpoints and the run's summary.

#include "engine/models/freezing.h"
#include "engine/training/cuda_support.h"
#include "engine/training/distributed.h"
#include "engine/training/early_stopping.h"
#include "engine/training/feature_cache.h"
#include "engine/training/grad_scaler.h"
#include "engine/training/gradient_buckets.h"
#include "engine/training/loss_functions.h"
#include "engine/training/lr_schedule.h"
#include "engine/training/run_setup.h"
#include "engine/training/train_util.h"
#include "engine/training/weight_ema.h"

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace lathe::engine {

// The sums behind an epoch's train_loss and train_top1, over the micro-batches so far.
struct EpochCounts
{
    double lossSum = 0;
    double samples = 0;
    double correct = 0;
};

class RankTrainer
{
public:
    RankTrainer(RunSetup &s, int localRank);

    // Trains from the start (or from RunSetup::resumeFrom) until the last epoch, early stopping,
    // a cancel or TrainControl::stopAfterStep, then writes the last checkpoint. Throws on
    // failures (a non-finite loss on any rank included).
    void run();

private:
    // The micro-batches accumulated towards the next optimizer step.
    struct PendingStep
    {
        int microBatches = 0;
        bool badLoss = false;    // a non-finite loss: no more backward(), the step fails
        std::string badLossWhat; // where it was
    };
    // What an optimizer step hands on to the step's event and stop decision.
    struct StepOutcome
    {
        double lr = 0;
        bool cancelRequested = false; // some rank was cancelled before a checked step's all-reduce
    };
    // cuda.graphs: the captured step's inputs and outputs.
    struct StaticStep
    {
        torch::Tensor images, targets, logits, loss;
    };
    // cuda.host_sync_steps 0 on CUDA: the host reads the device's sums and flags this often.
    static constexpr int kCudaSyncSteps = 25;
    // Elements per gradient all-reduce bucket (32 MiB of float32; PyTorch's DDP uses 25 MiB).
    static constexpr std::int64_t kBucketElements = 8 << 20;
    // When the current epoch started, and its seconds before that (a resumed epoch's first part).
    struct EpochClock
    {
        Clock::time_point start;
        double secondsBefore = 0;
    };
    // The step events' throttle (TrainControl::stepEventEvery) and the figures of the interval
    // since the last one (images per second, input wait).
    struct StepEventClock
    {
        Clock::time_point runStart;
        double lastEventTime = -1; // seconds since runStart; < 0: none yet
        Clock::time_point intervalStart;
        double intervalWait = 0;
        std::int64_t intervalImages = 0;
        double intervalCommSeconds = 0; // in the gradient all-reduce
    };

    bool isLeader() const { return m_rank == 0; }
    void emit(nlohmann::json event)
    {
        if (isLeader())
            m_s.emit(std::move(event));
    }
    torch::Tensor forward(const torch::Tensor &x)
    {
        return m_cached ? m_model->head(x) : m_model->forward(x);
    }

    // Set-up: the process group, the model on its device (rank 0's weights everywhere), the
    // batch sources, optimizer, schedule, loss scaler, EMA; the checkpoint's state on resume.
    void setUp();
    void broadcastFromRankZero();
    void makeBatchSources();
    void restore(const CheckpointData &ckpt);

    // The loop. trainEpoch returns true when the run stops within the epoch (a cancel or
    // stopAfterStep); endEpoch true when it ends with the epoch (early stopping, a cancel).
    bool trainEpoch(const EpochClock &clock);
    void trainMicroBatch(const Batch &batch, PendingStep &pending);
    void captureStep(const torch::Tensor &x, const torch::Tensor &targets);
    double readDeviceSums();
    std::unique_ptr<BatchSource> deviceFeed(PipelineOptions options);
    void addGpuFigures(nlohmann::json &event) const;
    void logRecords(const Batch &batch);
    void continueInNewWorld(int savedWorld);
    StepOutcome optimizerStep(const PendingStep &pending);
    void emitStepEvent(const StepOutcome &step);
    bool endEpoch(const EpochClock &clock);
    nlohmann::json epochMetrics(const EpochClock &clock);
    void reportEpoch(const nlohmann::json &metrics);
    void writeSummary();

    void seedStep(std::int64_t micro);
    void updateParameterGroups(int epoch);
    void allReduceGradients(torch::Tensor &flags);
    void syncBatchNorm();
    nlohmann::json validate();
    // Multi-label validation's metrics from every rank's sigmoid scores and targets: val_map,
    // val_map_micro, val_f1 (micro, at the thresholds), thresholds (per label, F1-tuned),
    // per_label_ap, per_class_accuracy (per-label recall at the thresholds).
    nlohmann::json multiLabelMetrics(const torch::Tensor &scores, const torch::Tensor &targets);
    nlohmann::json reduceEpoch(const EpochCounts &train, nlohmann::json &valSums);
    void writeCheckpoint(const std::string &reason, const nlohmann::json &metrics);

    RunSetup &m_s;
    const RunConfig &m_config;
    int m_localRank;
    int m_rank;
    torch::Device m_device;
    std::shared_ptr<models::Classifier> m_model;
    std::unique_ptr<RankGroup> m_group;
    std::unique_ptr<GradientBuckets> m_buckets; // with m_group: the trainable parameters' buckets
    bool m_cached = false;
    bool m_autocast = false;
    at::ScalarType m_autocastType = at::kBFloat16;
    int m_accumulate = 1; // micro-batches per optimizer step

    std::vector<ParameterGroup> m_groups;
    std::vector<std::string> m_groupNames;
    std::unique_ptr<torch::optim::Optimizer> m_optimizer;
    std::unique_ptr<LrSchedule> m_schedule;
    std::unique_ptr<GradScaler> m_scaler;
    std::unique_ptr<WeightEma> m_ema;
    std::unique_ptr<RunLoss> m_loss;
    std::unique_ptr<BatchSource> m_train;
    std::unique_ptr<BatchSource> m_val;

    // Position: the next batch to train is batch m_batch of epoch m_epoch; m_step optimizer
    // steps are done.
    std::int64_t m_step = 0;
    int m_epoch = 0;
    std::int64_t m_batch = 0;
    std::int64_t m_stepsPerEpoch = 0;
    // The schedule's place is m_step + m_scheduleOffset: nonzero after a resume with another world
    // size, whose epochs have another number of steps (m_step keeps counting the steps taken).
    std::int64_t m_scheduleOffset = 0;
    EpochCounts m_epochCounts; // of the current epoch so far
    double m_epochSeconds = 0;
    nlohmann::json m_lastMetrics = nlohmann::json::object();
    nlohmann::json m_multiLabelVal; // the last validation's multiLabelMetrics (multi-label runs)
    EarlyStopping m_earlyStopping;
    bool m_cancelled = false; // the run stopped by a cancel or stopAfterStep
    StepEventClock m_stepEvents;
    std::int64_t m_lastCheckpointStep = -1;
    int m_lastCheckpointEpoch = -1;
    std::int64_t m_lastCheckpointBatch = -1;
    std::string m_lastCheckpoint;
    std::ofstream m_recordLog; // TrainControl::recordLogDir
    bool m_bucketsLogged = false;

    // Summed on the device since the host last read them (readDeviceSums): the micro-batches'
    // mean losses, their losses times their sizes, their correct predictions (float64 [3]).
    torch::Tensor m_deviceSums;
    std::int64_t m_unreadMicroBatches = 0;
    double m_lastMeanLoss = 0;
    torch::Tensor m_nonFinite; // non-finite micro-batch losses since the last flags check
    int m_syncSteps = 1;       // the host checks the flags at steps that are multiples of this
    std::unique_ptr<CudaStepGraph> m_graph; // cuda.graphs, until captured or refused
    StaticStep m_static;
    std::string m_pciBusId;    // this rank's GPU for NVML; empty on the CPU
};

} // namespace lathe::engine
