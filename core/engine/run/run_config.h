#pragma once

#include "engine/models/model_spec.h"
#include "engine/pipeline/augmentation.h"

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
    // Where pixels are normalised: "on" the rank's device (the pipeline hands over uint8 batches,
    // a quarter of the bytes to copy), "off" in the pipeline (float32), or "auto": on for CUDA
    // ranks unless mixup/cutmix (which mix float pixels) are on.
    std::string deviceNormalize = "auto";
    // Imbalanced data: "none", "class_weights" (loss weights from class frequencies), or a
    // seeded sampler drawing each epoch with class-balanced weights: "balanced_sampler"
    // (inverse frequency) or "sqrt_sampler" (inverse square root).
    std::string balance = "none";
    // K-fold cross-validation (lathe-cli train --folds K runs every fold): with folds >= 2 the run
    // trains on train_split less fold `fold` (1..folds) and validates on that fold; val_split
    // is then unused. Folds are hash-stable (ShardDataset's RecordSelection).
    int folds = 0;
    int fold = 0;
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
    // Single-label: "cross_entropy" or "focal". Multi-label datasets: "bce" (binary cross-entropy
    // per label; cross_entropy, the default, means bce there) or "asymmetric" (Ridnik et al. 2021).
    std::string name = "cross_entropy";
    double labelSmoothing = 0;
    double focalGamma = 2;
    double aslGammaNeg = 4;  // asymmetric: focusing exponent of the negatives
    double aslGammaPos = 0;  // asymmetric: focusing exponent of the positives
    double aslClip = 0.05;   // asymmetric: probability shifting margin of the negatives
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

// The CUDA step. Both are ignored on the CPU (the log says so for graphs).
struct CudaConfig
{
    // Capture forward, loss and backward as one CUDA graph after a warm-up and replay it every
    // step; runs that cannot be captured (accumulation, fp16 loss scaling, gradual unfreezing, a
    // failed capture) train eagerly and the log names the reason.
    bool graphs = false;
    // The loss and accuracy sums stay on the device and the host reads them every this many
    // steps (and for each step event, checkpoint and epoch end): no synchronisation per step. A
    // non-finite loss (and a cancel of several ranks) is then acted on at the next multiple.
    // 0: every step on the CPU (where reading is free), every 25 steps on CUDA.
    int hostSyncSteps = 0;
};

struct DistributedConfig
{
    int nnodes = 1;
    int nodeRank = 0;
    std::string master;              // "HOST:PORT" for several machines
    bool syncBatchNorm = false;      // BatchNorm normalises with the statistics of every rank's batch
    // How long a rank waits for the others (joining, a collective, the store) before the run
    // fails naming the ranks it lost.
    int timeoutSeconds = 300;
};

// The model part of a run's defaults: as ModelSpec's, except that the class count comes from
// the dataset (model.head.num_classes 0), so a config need not repeat it.
inline ModelSpec defaultRunModel()
{
    ModelSpec model;
    model.head.numClasses = 0;
    return model;
}

struct RunConfig
{
    static constexpr int kVersion = 1;
    int version = kVersion;          // after parsing always kVersion (older files are upgraded)
    DataConfig data;
    ModelSpec model = defaultRunModel(); // head.numClasses 0: the dataset's class count
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
    CudaConfig cuda;
    DistributedConfig distributed;
};

// Parses and checks every field on its own; missing fields take their defaults, unknown fields
// and wrong types or ranges are errors naming the field ("optimizer.lr: must be > 0 (got -1)",
// "optimizer.learnig_rate: unknown field (did you mean lr?)"). A missing "version" means 1; a
// version above kVersion is an error (the file is from a newer Lathe). Rules between fields
// are validateRunConfig's, so a config being edited (data.shards still empty) parses.
RunConfig parseRunConfig(const nlohmann::json &json);
RunConfig readRunConfig(const std::string &path); // parseRunConfig; errors also name the file
nlohmann::json runConfigToJson(const RunConfig &config); // every field, defaults included
// Checks every field as parseRunConfig does (so a config built in code is checked too), then
// the rules across fields (data.shards set, fp16 needs a CUDA device, a fixed-views feature
// cache needs a frozen backbone, schedule milestones within epochs, known architecture and
// stage names, ...); throws EngineError naming the field. Touches no file.
void validateRunConfig(const RunConfig &config);
// The documented schema from which the run-config reference (docs/run-config.md) and the GUI's
// tooltips are generated: an array of {"field": "optimizer.lr", "section": "optimizer",
// "type": "number", "default": 0.01, "allowed": [...] (enums), "min"/"max" (with
// "exclusive_min"/"exclusive_max" when the bound itself is not allowed), "description"}.
// Defaults are read from a default RunConfig, so the structs above stay their one source.
nlohmann::json runConfigSchema();
// The Markdown reference (docs/run-config.md): a table per section, the rules across fields
// and an example config.
std::string runConfigReference();
// The example config of the reference (valid once its data.shards folder exists).
nlohmann::json runConfigExample();

// Applies overrides on top of a config, as `lathe-cli train --config FILE --set ...` does
// (flags override the file): a flat object of dotted paths, e.g. {"optimizer.lr": 0.1,
// "model.arch": "resnet50", "model.freeze.lr_multipliers.layer4": 0.1}; a section path takes
// an object merged into that section. For list fields a string is split at commas
// ("devices": "cuda:0,cuda:1", "schedule.milestones": "30,60"). Checked as parseRunConfig
// checks a file; unknown paths are errors naming the path (with a suggestion).
RunConfig applyRunConfigOverrides(RunConfig config, const nlohmann::json &overrides);
// "optimizer.lr=0.1" assignments (command-line flags) to the overrides object above: the value
// is read as JSON when it is JSON (0.1, true, [1, 2], "text"), else as a plain string
// (resnet50, cuda:0,cuda:1, an empty value). Throws EngineError for an assignment without '='.
nlohmann::json runConfigOverrides(const std::vector<std::string> &assignments);

// "train_all", "head_only", "up_to_stage" (model.freeze.policy).
std::string freezePolicyName(FreezePolicy policy);
FreezePolicy freezePolicyFromName(const std::string &name); // throws EngineError listing the names

// The model to build for a dataset of datasetClasses classes: model.head.num_classes 0 takes
// that count; a non-zero count that differs is an EngineError naming model.head.num_classes.
ModelSpec modelSpecForDataset(const RunConfig &config, int datasetClasses);

} // namespace lathe::engine
