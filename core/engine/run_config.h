#pragma once

#include "augmentation.h"
#include "model_spec.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lathe::engine {

// A training run, as one versioned JSON document (config.json in the run folder; the file
// `lathe-cli train --config` takes; what the Train page edits). Every field has a default, so
// {} is a valid config once data.shards is set. Field names in JSON are the snake_case of the
// members below, grouped as the structs are: {"version": 1, "data": {...}, "model": {...},
// "optimizer": {...}, "loss": {...}, "schedule": {...}, "precision": ..., "devices": [...],
// "seed": ..., "checkpoints": {...}, "early_stopping": {...}, "ema": {...},
// "feature_cache": {...}, "distributed": {...}}.

struct DataConfig
{
    std::string shards;              // folder holding dataset.json (required)
    std::string trainSplit = "train";
    std::string valSplit = "val";    // empty: no validation
    int imageSize = 0;               // 0: the backbone's default input size
    std::vector<AugmentationSpec> augment = standardAugmentations();
    int workers = 0;                 // pipeline threads per rank, 0: cores / ranks
    std::size_t cacheMb = 0;         // in-RAM cache of decoded images, 0: off
    bool channelsLast = false;
    // Imbalanced data: "none", "class_weights" (loss weights from class frequencies) or
    // "balanced_sampler" (each batch drawn with equal class probability).
    std::string balance = "none";
};

struct OptimizerConfig
{
    std::string name = "sgd";        // "sgd", "adamw", "rmsprop"
    double lr = 0.01;                // base learning rate at batchSize
    int batchSize = 32;              // per rank
    int epochs = 10;
    double momentum = 0.9;           // sgd, rmsprop
    bool nesterov = false;           // sgd
    double weightDecay = 1e-4;
    bool noDecayNormsAndBiases = true;
    std::array<double, 2> betas{0.9, 0.999}; // adamw
    double eps = 1e-8;               // adamw, rmsprop
    double alpha = 0.99;             // rmsprop smoothing
    double clipGradNorm = 0;         // > 0: clip the global L2 norm of the gradients
    int accumulateSteps = 1;         // optimizer step every this many batches
};

struct LossConfig
{
    std::string name = "cross_entropy"; // "cross_entropy" or "focal"
    double labelSmoothing = 0;
    double focalGamma = 2;
};

struct ScheduleConfig
{
    // "constant", "step", "multi_step", "exponential", "cosine", "cosine_restarts",
    // "one_cycle", "plateau"
    std::string name = "cosine";
    double warmupEpochs = 0;         // linear warm-up from warmupStartFactor * lr, in front of any schedule
    double warmupStartFactor = 0.01;
    int stepSize = 30;               // step: epochs between decays
    std::vector<int> milestones;     // multi_step: epochs
    double gamma = 0.1;              // step, multi_step, exponential (per epoch)
    double minLr = 0;                // cosine, cosine_restarts
    int restartEpochs = 10;          // cosine_restarts: first period (T_0), in epochs
    int restartMultiplier = 1;       // cosine_restarts: T_mult
    double maxLr = 0;                // one_cycle: 0 = lr
    double pctStart = 0.3;           // one_cycle
    double divFactor = 25;           // one_cycle
    double finalDivFactor = 1e4;     // one_cycle
    std::string plateauMetric = "val_loss"; // plateau
    double plateauFactor = 0.1;
    int plateauPatience = 10;
    double plateauThreshold = 1e-4;
};

struct CheckpointConfig
{
    int everySteps = 0;              // 0: not by steps
    int everyEpochs = 1;             // 0: not by epochs (the end of training is always saved)
    int keep = 3;                    // keep the last K step checkpoints (best and last are kept besides)
    std::string bestMetric = "val_top1"; // "val_top1", "val_loss", "train_loss"
};

struct EarlyStoppingConfig
{
    bool enabled = false;
    std::string metric = "val_loss";
    int patience = 5;                // epochs without improvement
    double minDelta = 0;
};

struct EmaConfig
{
    bool enabled = false;
    double decay = 0.999;            // per optimizer step; validation and best/last use the EMA weights
};

struct FeatureCacheConfig
{
    // "off", "auto" (on when the backbone is entirely frozen and the training transform is
    // deterministic) or "fixed_views" (also with random augmentation: `views` augmented views
    // of each image are computed once and reused).
    std::string mode = "auto";
    int views = 1;
};

struct DistributedConfig
{
    int nnodes = 1;
    int nodeRank = 0;
    std::string master;              // "HOST:PORT" for several machines
    bool syncBatchNorm = false;      // average BatchNorm statistics across ranks
};

struct RunConfig
{
    static constexpr int kVersion = 1;
    int version = kVersion;
    DataConfig data;
    ModelSpec model;
    OptimizerConfig optimizer;
    LossConfig loss;
    ScheduleConfig schedule;
    std::string precision = "fp32";  // "fp32", "bf16", "fp16"
    std::vector<std::string> devices{"cpu"}; // "cpu", "cuda:0", "cuda:1", ... (one rank each; "cpu" may repeat for CPU ranks)
    std::uint64_t seed = 0;
    CheckpointConfig checkpoints;
    EarlyStoppingConfig earlyStopping;
    EmaConfig ema;
    FeatureCacheConfig featureCache;
    DistributedConfig distributed;
};

// Parses and validates; missing fields take their defaults, unknown fields and wrong types or
// ranges are errors naming the field ("optimizer.lr: must be > 0 (got -1)").
RunConfig parseRunConfig(const nlohmann::json &json);
RunConfig readRunConfig(const std::string &path); // errors also name the file
nlohmann::json runConfigToJson(const RunConfig &config); // every field, defaults included
// Checks cross-field rules (e.g. fp16 needs a CUDA device, feature cache needs a frozen
// backbone, schedule milestones within epochs); throws EngineError naming the field.
void validateRunConfig(const RunConfig &config);
// The documented schema (field, type, default, allowed values, description) from which the
// run-config reference (docs/run-config.md) and the GUI's tooltips are generated.
nlohmann::json runConfigSchema();

} // namespace lathe::engine
