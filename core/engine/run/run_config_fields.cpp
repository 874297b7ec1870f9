// The field table of the run config: every field's path, type, limits and description, and how
// it is read from JSON and written back. Parsing, the schema and the reference all come from it.
#include "engine/run/run_config_fields.h"

#include "engine/base/device_name.h"
#include "engine/base/engine_error.h"

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

namespace lathe::engine {
namespace run_config_detail {

using namespace json_fields;

namespace {

using json = nlohmann::json;

// The member a field lives in; a generic lambda serves the const (writing) and the
// non-const (parsing) side alike.
#define LATHE_MEMBER(expr) [](auto &c) -> auto & { return c.expr; }

template <typename Access>
Field intField(std::string path, Access access, NumberRange range, std::string description)
{
    Field f{path, "integer", std::move(description), range, {}, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path, range](RunConfig &c, const json &v) { access(c) = readInt(path, v, range); };
    return f;
}

template <typename Access>
Field unsignedField(std::string path, Access access, NumberRange range, std::string description)
{
    Field f{path, "integer", std::move(description), range.ge(0), {}, {}, {}};
    f.get = [access](const RunConfig &c) { return json(static_cast<std::uint64_t>(access(c))); };
    f.set = [access, path, range](RunConfig &c, const json &v) {
        using T = std::remove_reference_t<decltype(access(c))>;
        const std::uint64_t u = readUnsigned(path, v, range);
        if (u > std::numeric_limits<T>::max())
            fail(path, "out of range (got " + shown(v) + ")");
        access(c) = static_cast<T>(u);
    };
    return f;
}

template <typename Access>
Field numberField(std::string path, Access access, NumberRange range, std::string description)
{
    Field f{path, "number", std::move(description), range, {}, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path, range](RunConfig &c, const json &v) { access(c) = readNumber(path, v, range); };
    return f;
}

template <typename Access>
Field boolField(std::string path, Access access, std::string description)
{
    Field f{path, "boolean", std::move(description), {}, {}, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path](RunConfig &c, const json &v) { access(c) = readBool(path, v); };
    return f;
}

// allowed, when not empty, makes it an enum; check, when given, adds a rule of the field's own
// (e.g. not empty).
template <typename Access>
Field stringField(std::string path, Access access, std::vector<std::string> allowed, std::string description,
                  std::function<void(const std::string &)> check = {})
{
    Field f{path, "string", std::move(description), {}, allowed, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path, allowed, check](RunConfig &c, const json &v) {
        std::string s = allowed.empty() ? readString(path, v) : readEnum(path, v, allowed);
        if (check)
            check(s);
        access(c) = std::move(s);
    };
    return f;
}

const std::vector<std::string> kOptimizers{"sgd", "adamw", "rmsprop"};
const std::vector<std::string> kLosses{"cross_entropy", "focal", "bce", "asymmetric"};
const std::vector<std::string> kSchedules{"constant", "step",           "multi_step", "exponential",
                                          "cosine",   "cosine_restarts", "one_cycle", "plateau"};
// val_map: multi-label datasets only (the trainer refuses it for others).
const std::vector<std::string> kMetrics{"val_loss", "val_top1", "val_map", "train_loss"};
const std::vector<std::string> kPrecisions{"fp32", "bf16", "fp16"};
const std::vector<std::string> kDeviceNormalize{"auto", "on", "off"};
const std::vector<std::string> kBalance{"none", "class_weights", "balanced_sampler", "sqrt_sampler"};
const std::vector<std::string> kFeatureCache{"off", "auto", "fixed_views"};
const std::vector<std::string> kFreezePolicies{"train_all", "head_only", "up_to_stage"};

void checkDevices(const std::vector<std::string> &devices)
{
    if (devices.empty())
        fail("devices", "needs at least one device (\"cpu\" or \"cuda:N\")");
    std::set<int> cuda;
    bool cpu = false;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::string field = itemPath("devices", i);
        const std::optional<DeviceName> d = parseDeviceName(devices[i]);
        if (!d)
            fail(field, "must be \"cpu\" or \"cuda:N\" (got " + shown(devices[i]) + ")");
        if (!d->cuda) {
            cpu = true;
            continue;
        }
        if (!cuda.insert(d->index).second)
            fail(field, devices[i] + " is listed twice (one rank per GPU)");
    }
    if (cpu && !cuda.empty())
        fail("devices", "cpu and cuda devices cannot be mixed in one run");
}

Field devicesField()
{
    Field f{"devices", "array of strings", "The devices to train on, one rank each: \"cpu\" (may repeat for several CPU ranks) or \"cuda:N\" (each GPU once); CPU and CUDA are not mixed.", {}, {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.devices); };
    f.set = [](RunConfig &c, const json &v) {
        requireArray("devices", v, "an array of device names like [\"cuda:0\", \"cuda:1\"]");
        std::vector<std::string> devices;
        for (std::size_t i = 0; i < v.size(); ++i)
            devices.push_back(readString(itemPath("devices", i), v[i]));
        checkDevices(devices);
        c.devices = std::move(devices);
    };
    return f;
}

Field milestonesField()
{
    Field f{"schedule.milestones", "array of integers", "multi_step: the epochs at which the learning rate is multiplied by gamma, increasing and below optimizer.epochs.", {}, {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.schedule.milestones); };
    f.set = [](RunConfig &c, const json &v) {
        requireArray("schedule.milestones", v, "an array of epochs like [30, 60]");
        std::vector<int> milestones;
        for (std::size_t i = 0; i < v.size(); ++i)
            milestones.push_back(readInt(itemPath("schedule.milestones", i), v[i], NumberRange().ge(1)));
        c.schedule.milestones = std::move(milestones);
    };
    return f;
}

Field betasField()
{
    Field f{"optimizer.betas", "array of 2 numbers", "adamw: the decay rates of the running averages of the gradient and of its square, each in [0, 1).", {}, {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.optimizer.betas); };
    f.set = [](RunConfig &c, const json &v) {
        if (!v.is_array() || v.size() != 2)
            fail("optimizer.betas", "expected two numbers like [0.9, 0.999] (got " + shown(v) + ")");
        for (std::size_t i = 0; i < 2; ++i)
            c.optimizer.betas[i] = readNumber(itemPath("optimizer.betas", i), v[i], NumberRange().ge(0).lt(1));
    };
    return f;
}

Field augmentField()
{
    Field f{"data.augment", "array of augmentations", "The training augmentation steps in order, each {\"type\": ..., \"p\": ..., parameters} as torchvision's transform of the same name; [] for none. Normalization always ends the pipeline.", {}, {}, {}, {}};
    f.get = [](const RunConfig &c) { return augmentationsToJson(c.data.augment); };
    f.set = [](RunConfig &c, const json &v) {
        requireArray("data.augment", v, "an array of augmentation steps, [] for none");
        c.data.augment = parseAugmentations(v);
    };
    return f;
}

Field multipliersField()
{
    Field f{"model.freeze.lr_multipliers", "object of numbers", "Discriminative fine-tuning: {stage name: factor} multiplying the learning rate of that stage (stages not named use 1).", NumberRange().ge(0), {}, {}, {}};
    f.get = [](const RunConfig &c) {
        json out = json::object();
        for (const auto &[stage, multiplier] : c.model.freeze.lrMultipliers)
            out[stage] = multiplier;
        return out;
    };
    f.set = [](RunConfig &c, const json &v) {
        requireObject("model.freeze.lr_multipliers", v, "an object like {\"layer4\": 0.1}");
        std::vector<std::pair<std::string, double>> multipliers;
        for (auto it = v.begin(); it != v.end(); ++it) {
            const std::string field = fieldPath("model.freeze.lr_multipliers", it.key());
            if (it.key().empty())
                fail(field, "a stage name is empty");
            multipliers.emplace_back(it.key(), readNumber(field, it.value(), NumberRange().ge(0)));
        }
        c.model.freeze.lrMultipliers = std::move(multipliers);
    };
    return f;
}

Field freezePolicyField()
{
    Field f{"model.freeze.policy", "string", "Which parameters train: every one (train_all), only the head (head_only), or all but the first frozen_stages stages (up_to_stage).", {}, kFreezePolicies, {}, {}};
    f.get = [](const RunConfig &c) { return json(freezePolicyName(c.model.freeze.policy)); };
    f.set = [](RunConfig &c, const json &v) {
        c.model.freeze.policy = freezePolicyFromName(readEnum("model.freeze.policy", v, kFreezePolicies));
    };
    return f;
}

Field versionField()
{
    Field f{"version", "integer", "The config format version; a file without it is read as version 1, and a file from a newer Lathe is refused.", NumberRange().ge(1), {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.version); };
    f.set = [](RunConfig &c, const json &v) {
        const int version = readInt("version", v, NumberRange().ge(1));
        if (version > RunConfig::kVersion)
            fail("version", "this config is version " + std::to_string(version) +
                                ", written by a newer Lathe; this one reads up to version " +
                                std::to_string(RunConfig::kVersion) + " (update Lathe)");
        // Version 1 is the only one so far: older formats would be upgraded here.
        c.version = RunConfig::kVersion;
    };
    return f;
}

void notEmpty(const std::string &field, const std::string &value, const std::string &what)
{
    if (value.empty())
        fail(field, "must not be empty (" + what + ")");
}

} // namespace

const std::vector<Field> &fields()
{
    static const std::vector<Field> table = [] {
        std::vector<Field> t;
        t.push_back(versionField());
        t.push_back(stringField("precision", LATHE_MEMBER(precision), kPrecisions,
                                "Numeric precision of training: fp32, bf16 autocast (CPU or GPU), or fp16 autocast with loss scaling (CUDA only)."));
        t.push_back(devicesField());
        t.push_back(unsignedField("seed", LATHE_MEMBER(seed), {},
                                  "Seed of every random choice (initialisation, shuffling, augmentation), so a run can be repeated."));

        t.push_back(stringField("data.shards", LATHE_MEMBER(data.shards), {},
                                "The folder holding the converted dataset (dataset.json and its shards); required."));
        t.push_back(stringField("data.train_split", LATHE_MEMBER(data.trainSplit), {},
                                "The split of the dataset to train on.",
                                [](const std::string &s) { notEmpty("data.train_split", s, "the split to train on"); }));
        t.push_back(stringField("data.val_split", LATHE_MEMBER(data.valSplit), {},
                                "The split evaluated after every epoch; \"\" for no validation."));
        t.push_back(intField("data.image_size", LATHE_MEMBER(data.imageSize), NumberRange().ge(0).le(4096),
                             "Side of the square training crop in pixels; 0 uses the backbone's default input size."));
        t.push_back(augmentField());
        t.push_back(intField("data.workers", LATHE_MEMBER(data.workers), NumberRange().ge(0).le(256),
                             "Decoding and augmentation threads per rank; 0 shares the CPU cores among the ranks."));
        t.push_back(unsignedField("data.cache_mb", LATHE_MEMBER(data.cacheMb), NumberRange().le(1 << 24),
                                  "Size in MiB of an in-memory cache of decoded images; 0 turns it off."));
        t.push_back(boolField("data.channels_last", LATHE_MEMBER(data.channelsLast),
                              "Feed batches in channels-last memory layout, which is faster for convolutions on some GPUs."));
        t.push_back(stringField("data.device_normalize", LATHE_MEMBER(data.deviceNormalize), kDeviceNormalize,
                                "Where pixels become normalised floats: on the rank's device from uint8 batches (on; a quarter of the bytes to copy), in the pipeline (off), or auto (on for CUDA ranks unless mixup or cutmix is on)."));
        t.push_back(stringField("data.balance", LATHE_MEMBER(data.balance), kBalance,
                                "Imbalanced classes: nothing, loss weights from the class frequencies (class_weights), or epochs drawn so that classes come equally often (balanced_sampler) or half-way there (sqrt_sampler)."));
        t.push_back(intField("data.folds", LATHE_MEMBER(data.folds), NumberRange().ge(0).le(100),
                             "K-fold cross-validation: 2 or more splits the training split into this many hash-stable folds; 0 turns it off."));
        t.push_back(intField("data.fold", LATHE_MEMBER(data.fold), NumberRange().ge(0).le(100),
                             "With data.folds: the fold (1 to data.folds) held out for validation; the others are trained on."));

        t.push_back(stringField("model.arch", LATHE_MEMBER(model.arch), {},
                                "The backbone architecture: a built-in name such as resnet50 or vit_b_16 (see lathe-cli models), or \"torchscript\" for model.torchscript.",
                                [](const std::string &s) { notEmpty("model.arch", s, "a backbone name"); }));
        t.push_back(intField("model.in_channels", LATHE_MEMBER(model.inChannels), NumberRange().ge(1).le(64),
                             "Channels of the input images; 1 (grayscale) or more than 3 (multispectral) adapts the first convolution."));
        t.push_back(stringField("model.weights", LATHE_MEMBER(model.weightsPath), {},
                                "Initial weights: a .safetensors or torch.save .pth file, \"zoo\" for the model zoo's pretrained weights of the architecture, or \"\" to train from scratch."));
        t.push_back(stringField("model.torchscript", LATHE_MEMBER(model.torchscriptPath), {},
                                "A custom backbone saved with torch.jit.save; used when model.arch is \"torchscript\"."));
        t.push_back(intField("model.head.num_classes", LATHE_MEMBER(model.head.numClasses), NumberRange().ge(0).le(1000000),
                             "Output classes of the head; 0 takes the dataset's class count."));
        t.push_back(numberField("model.head.dropout", LATHE_MEMBER(model.head.dropout), NumberRange().lt(1),
                                "Dropout before the final layer, in [0, 1); a negative value keeps the architecture's own."));
        t.push_back(intField("model.head.hidden_units", LATHE_MEMBER(model.head.hiddenUnits), NumberRange().ge(0).le(1 << 20),
                             "Units of an extra hidden layer (Linear, ReLU, Dropout) in the head; 0 for none."));
        t.push_back(freezePolicyField());
        t.push_back(intField("model.freeze.frozen_stages", LATHE_MEMBER(model.freeze.frozenStages), NumberRange().ge(0),
                             "up_to_stage: how many stages, counted from the input, are frozen; fewer than the architecture's stage count."));
        t.push_back(boolField("model.freeze.freeze_batch_norm", LATHE_MEMBER(model.freeze.freezeBatchNorm),
                              "Keep every BatchNorm layer's running statistics fixed (those of frozen stages always are)."));
        t.push_back(multipliersField());
        t.push_back(intField("model.freeze.unfreeze_every_epochs", LATHE_MEMBER(model.freeze.unfreezeEveryEpochs), NumberRange().ge(0),
                             "Gradual unfreezing: every this many epochs the last frozen stage starts training; 0 turns it off."));

        t.push_back(stringField("optimizer.name", LATHE_MEMBER(optimizer.name), kOptimizers,
                                "The optimizer: SGD with momentum, AdamW, or RMSprop."));
        t.push_back(numberField("optimizer.lr", LATHE_MEMBER(optimizer.lr), NumberRange().gt(0),
                                "The base learning rate, for batch_size images per rank."));
        t.push_back(intField("optimizer.batch_size", LATHE_MEMBER(optimizer.batchSize), NumberRange().ge(1).le(65536),
                             "Images per batch on each rank."));
        t.push_back(intField("optimizer.epochs", LATHE_MEMBER(optimizer.epochs), NumberRange().ge(1).le(100000),
                             "Passes over the training split."));
        t.push_back(numberField("optimizer.momentum", LATHE_MEMBER(optimizer.momentum), NumberRange().ge(0).lt(1),
                                "sgd and rmsprop: momentum factor."));
        t.push_back(boolField("optimizer.nesterov", LATHE_MEMBER(optimizer.nesterov),
                              "sgd: use Nesterov momentum (needs momentum > 0)."));
        t.push_back(numberField("optimizer.weight_decay", LATHE_MEMBER(optimizer.weightDecay), NumberRange().ge(0),
                                "L2 penalty (decoupled for adamw) applied at every step."));
        t.push_back(boolField("optimizer.no_decay_norms_and_biases", LATHE_MEMBER(optimizer.noDecayNormsAndBiases),
                              "Exempt biases, normalization weights and learned embeddings from weight decay."));
        t.push_back(betasField());
        t.push_back(numberField("optimizer.eps", LATHE_MEMBER(optimizer.eps), NumberRange().gt(0).le(1),
                                "adamw and rmsprop: small term added to the denominator for numerical stability."));
        t.push_back(numberField("optimizer.alpha", LATHE_MEMBER(optimizer.alpha), NumberRange().ge(0).lt(1),
                                "rmsprop: smoothing constant of the running average of squared gradients."));
        t.push_back(numberField("optimizer.clip_grad_norm", LATHE_MEMBER(optimizer.clipGradNorm), NumberRange().ge(0),
                                "When above 0, gradients are scaled so that their global L2 norm is at most this."));
        t.push_back(intField("optimizer.accumulate_steps", LATHE_MEMBER(optimizer.accumulateSteps), NumberRange().ge(1).le(65536),
                             "Take an optimizer step every this many batches, summing their gradients (a larger effective batch)."));

        t.push_back(stringField("loss.name", LATHE_MEMBER(loss.name), kLosses,
                                "The training loss: cross entropy, or focal loss, which focuses on hard examples; for multi-label datasets binary cross-entropy per label (bce, what cross_entropy means there) or the asymmetric loss."));
        t.push_back(numberField("loss.asl_gamma_neg", LATHE_MEMBER(loss.aslGammaNeg), NumberRange().ge(0).le(20),
                                "Asymmetric loss: focusing exponent of the negative labels (down-weights easy negatives)."));
        t.push_back(numberField("loss.asl_gamma_pos", LATHE_MEMBER(loss.aslGammaPos), NumberRange().ge(0).le(20),
                                "Asymmetric loss: focusing exponent of the positive labels."));
        t.push_back(numberField("loss.asl_clip", LATHE_MEMBER(loss.aslClip), NumberRange().ge(0).lt(1),
                                "Asymmetric loss: probability margin below which negatives are ignored."));
        t.push_back(numberField("loss.label_smoothing", LATHE_MEMBER(loss.labelSmoothing), NumberRange().ge(0).lt(1),
                                "Share of the target probability spread evenly over all classes."));
        t.push_back(numberField("loss.focal_gamma", LATHE_MEMBER(loss.focalGamma), NumberRange().ge(0).le(10),
                                "focal: how strongly well-classified examples are down-weighted (0 is cross entropy)."));

        t.push_back(stringField("schedule.name", LATHE_MEMBER(schedule.name), kSchedules,
                                "How the learning rate changes over training."));
        t.push_back(numberField("schedule.warmup_epochs", LATHE_MEMBER(schedule.warmupEpochs), NumberRange().ge(0),
                                "Epochs (fractions allowed) of linear warm-up from warmup_start_factor x lr before the schedule starts; not with one_cycle."));
        t.push_back(numberField("schedule.warmup_start_factor", LATHE_MEMBER(schedule.warmupStartFactor), NumberRange().gt(0).le(1),
                                "The fraction of lr that warm-up starts from."));
        t.push_back(intField("schedule.step_size", LATHE_MEMBER(schedule.stepSize), NumberRange().ge(1),
                             "step: epochs between two multiplications by gamma."));
        t.push_back(milestonesField());
        t.push_back(numberField("schedule.gamma", LATHE_MEMBER(schedule.gamma), NumberRange().gt(0).le(1),
                                "step and multi_step: factor at each decay; exponential: factor per epoch."));
        t.push_back(numberField("schedule.min_lr", LATHE_MEMBER(schedule.minLr), NumberRange().ge(0),
                                "cosine and cosine_restarts: the learning rate at the bottom of the curve."));
        t.push_back(intField("schedule.restart_epochs", LATHE_MEMBER(schedule.restartEpochs), NumberRange().ge(1),
                             "cosine_restarts: length in epochs of the first cosine period."));
        t.push_back(intField("schedule.restart_multiplier", LATHE_MEMBER(schedule.restartMultiplier), NumberRange().ge(1).le(100),
                             "cosine_restarts: each period is this many times longer than the one before."));
        t.push_back(numberField("schedule.max_lr", LATHE_MEMBER(schedule.maxLr), NumberRange().ge(0),
                                "one_cycle: the peak learning rate; 0 uses optimizer.lr."));
        t.push_back(numberField("schedule.pct_start", LATHE_MEMBER(schedule.pctStart), NumberRange().gt(0).lt(1),
                                "one_cycle: fraction of training spent rising to the peak."));
        t.push_back(numberField("schedule.div_factor", LATHE_MEMBER(schedule.divFactor), NumberRange().ge(1),
                                "one_cycle: the start learning rate is max_lr divided by this."));
        t.push_back(numberField("schedule.final_div_factor", LATHE_MEMBER(schedule.finalDivFactor), NumberRange().ge(1),
                                "one_cycle: the final learning rate is the start learning rate divided by this."));
        t.push_back(stringField("schedule.plateau_metric", LATHE_MEMBER(schedule.plateauMetric), kMetrics,
                                "plateau: the metric watched for a lack of improvement."));
        t.push_back(numberField("schedule.plateau_factor", LATHE_MEMBER(schedule.plateauFactor), NumberRange().gt(0).lt(1),
                                "plateau: factor applied to the learning rate when the metric stalls."));
        t.push_back(intField("schedule.plateau_patience", LATHE_MEMBER(schedule.plateauPatience), NumberRange().ge(0),
                             "plateau: epochs without improvement before the learning rate drops."));
        t.push_back(numberField("schedule.plateau_threshold", LATHE_MEMBER(schedule.plateauThreshold), NumberRange().ge(0),
                                "plateau: the smallest relative change that counts as an improvement."));

        t.push_back(intField("checkpoints.every_steps", LATHE_MEMBER(checkpoints.everySteps), NumberRange().ge(0),
                             "Save a checkpoint every this many optimizer steps; 0 for none by steps."));
        t.push_back(intField("checkpoints.every_epochs", LATHE_MEMBER(checkpoints.everyEpochs), NumberRange().ge(0),
                             "Save a checkpoint every this many epochs; 0 for none by epochs (the end of training is always saved)."));
        t.push_back(intField("checkpoints.keep", LATHE_MEMBER(checkpoints.keep), NumberRange().ge(0),
                             "How many of the latest periodic checkpoints to keep; the best and the last are kept besides."));
        t.push_back(stringField("checkpoints.best_metric", LATHE_MEMBER(checkpoints.bestMetric), kMetrics,
                                "The metric that decides which checkpoint is the best."));

        t.push_back(boolField("early_stopping.enabled", LATHE_MEMBER(earlyStopping.enabled),
                              "Stop training when the metric has not improved for patience epochs."));
        t.push_back(stringField("early_stopping.metric", LATHE_MEMBER(earlyStopping.metric), kMetrics,
                                "The metric watched by early stopping."));
        t.push_back(intField("early_stopping.patience", LATHE_MEMBER(earlyStopping.patience), NumberRange().ge(1),
                             "Epochs without improvement before training stops."));
        t.push_back(numberField("early_stopping.min_delta", LATHE_MEMBER(earlyStopping.minDelta), NumberRange().ge(0),
                                "The smallest change of the metric that counts as an improvement."));

        t.push_back(boolField("ema.enabled", LATHE_MEMBER(ema.enabled),
                              "Keep an exponential moving average of the weights; validation and the saved best and last models use it."));
        t.push_back(numberField("ema.decay", LATHE_MEMBER(ema.decay), NumberRange().gt(0).lt(1),
                                "Weight of the old average at each optimizer step (closer to 1 averages longer)."));

        t.push_back(stringField("feature_cache.mode", LATHE_MEMBER(featureCache.mode), kFeatureCache,
                                "Compute the frozen backbone's features once and train only the head on them: off, auto (when the backbone is frozen and the training transform is deterministic), or fixed_views (views augmented copies of each image)."));
        t.push_back(intField("feature_cache.views", LATHE_MEMBER(featureCache.views), NumberRange().ge(1).le(1000),
                             "fixed_views: augmented views computed per image."));

        t.push_back(boolField("cuda.graphs", LATHE_MEMBER(cuda.graphs),
                              "Capture forward, loss and backward as one CUDA graph and replay it each step (static shapes; the log names the reason when a run cannot be captured and trains eagerly)."));
        t.push_back(intField("cuda.host_sync_steps", LATHE_MEMBER(cuda.hostSyncSteps), NumberRange().ge(0).le(1000000),
                             "Steps between the host's reads of the loss and accuracy sums kept on the device (also read for each step event, checkpoint and epoch end; cancels and non-finite losses are acted on at these multiples); 0: every step on the CPU, every 25 on CUDA."));

        t.push_back(intField("distributed.nnodes", LATHE_MEMBER(distributed.nnodes), NumberRange().ge(1).le(4096),
                             "Machines taking part in the run."));
        t.push_back(intField("distributed.node_rank", LATHE_MEMBER(distributed.nodeRank), NumberRange().ge(0),
                             "This machine's index among the nnodes machines, from 0."));
        t.push_back(stringField("distributed.master", LATHE_MEMBER(distributed.master), {},
                                "\"HOST:PORT\" where the machines of a multi-machine run meet (node 0 listens there)."));
        t.push_back(boolField("distributed.sync_batch_norm", LATHE_MEMBER(distributed.syncBatchNorm),
                              "BatchNorm layers normalise with the statistics of all ranks' batches together (PyTorch's SyncBatchNorm) instead of each rank's own."));
        t.push_back(intField("distributed.timeout_seconds", LATHE_MEMBER(distributed.timeoutSeconds),
                             NumberRange().ge(5).le(86400),
                             "Seconds a rank waits for the others (to join, in a gradient exchange) before the run fails naming the rank it lost."));
        return t;
    }();
    return table;
}

#undef LATHE_MEMBER

const Field *findField(const std::string &path)
{
    static const std::map<std::string, const Field *> index = [] {
        std::map<std::string, const Field *> m;
        for (const Field &f : fields())
            m[f.path] = &f;
        return m;
    }();
    const auto it = index.find(path);
    return it == index.end() ? nullptr : it->second;
}

std::string sectionOf(const std::string &path)
{
    const auto dot = path.find('.');
    return dot == std::string::npos ? std::string() : path.substr(0, dot);
}

std::set<std::string> childrenOf(const std::string &section)
{
    std::set<std::string> names;
    const std::string prefix = section.empty() ? "" : section + ".";
    for (const Field &f : fields()) {
        if (f.path.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string rest = f.path.substr(prefix.size());
        names.insert(rest.substr(0, rest.find('.')));
    }
    return names;
}

bool isSection(const std::string &path)
{
    const std::string prefix = path + ".";
    for (const Field &f : fields())
        if (f.path.compare(0, prefix.size(), prefix) == 0)
            return true;
    return false;
}

} // namespace run_config_detail

std::string freezePolicyName(FreezePolicy policy)
{
    switch (policy) {
    case FreezePolicy::TrainAll:
        return "train_all";
    case FreezePolicy::HeadOnly:
        return "head_only";
    case FreezePolicy::UpToStage:
        return "up_to_stage";
    }
    throw EngineError("model.freeze.policy: invalid value " + std::to_string(int(policy)));
}

FreezePolicy freezePolicyFromName(const std::string &name)
{
    if (name == "train_all")
        return FreezePolicy::TrainAll;
    if (name == "head_only")
        return FreezePolicy::HeadOnly;
    if (name == "up_to_stage")
        return FreezePolicy::UpToStage;
    throw EngineError("model.freeze.policy: must be one of " + json_fields::joined(run_config_detail::kFreezePolicies) +
                      " (got " + json_fields::shown(name) + ")");
}

} // namespace lathe::engine
