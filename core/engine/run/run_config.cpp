#include "engine/run/run_config.h"

#include "engine/models/backbone_registry.h"
#include "engine/base/device_name.h"
#include "engine/base/engine_error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace lathe::engine {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string &field, const std::string &reason)
{
    throw EngineError(field + ": " + reason);
}

// A value as the user wrote it, short enough for a message (and safe for invalid UTF-8). Only
// the first levels of a nested value are written: dump() recurses, and hostile input nests deep.
void appendShown(std::string &out, const json &value, int depth)
{
    if (out.size() > 80)
        return;
    if (!value.is_structured()) {
        out += value.dump(-1, ' ', false, json::error_handler_t::replace);
        return;
    }
    const bool array = value.is_array();
    out += array ? '[' : '{';
    if (depth >= 3 && !value.empty()) {
        out += "...";
    } else {
        bool first = true;
        for (auto it = value.begin(); it != value.end() && out.size() <= 80; ++it) {
            out += first ? "" : ", ";
            first = false;
            if (!array)
                out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
            appendShown(out, it.value(), depth + 1);
        }
    }
    out += array ? ']' : '}';
}

std::string shown(const json &value)
{
    std::string text;
    appendShown(text, value, 0);
    if (text.size() > 60)
        text = text.substr(0, 57) + "...";
    return text;
}

// How deeply a JSON text nests (brackets outside strings); the parser itself copes with any
// depth, but what is done with the value afterwards (comparing, printing) recurses.
int nestingDepth(const std::string &text)
{
    int depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (inString) {
            if (ch == '\\')
                ++i;
            else if (ch == '"')
                inString = false;
        } else if (ch == '"') {
            inString = true;
        } else if (ch == '[' || ch == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (ch == ']' || ch == '}') {
            --depth;
        }
    }
    return deepest;
}

std::string formatNumber(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.10g", v);
    return buffer;
}

std::string joined(const std::vector<std::string> &items, const std::string &separator = ", ")
{
    std::string out;
    for (const std::string &item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

// Bounds and enum values of a field: what parsing enforces and what the schema documents.
struct Limits
{
    std::optional<double> min, max;
    bool minExclusive = false, maxExclusive = false;
    std::vector<std::string> allowed;

    Limits ge(double v) const { Limits l = *this; l.min = v; l.minExclusive = false; return l; }
    Limits gt(double v) const { Limits l = *this; l.min = v; l.minExclusive = true; return l; }
    Limits le(double v) const { Limits l = *this; l.max = v; l.maxExclusive = false; return l; }
    Limits lt(double v) const { Limits l = *this; l.max = v; l.maxExclusive = true; return l; }
    static Limits oneOf(std::vector<std::string> names) { Limits l; l.allowed = std::move(names); return l; }

    bool contains(double v) const
    {
        if (std::isnan(v))
            return false;
        if (min && (minExclusive ? !(v > *min) : !(v >= *min)))
            return false;
        if (max && (maxExclusive ? !(v < *max) : !(v <= *max)))
            return false;
        return true;
    }

    std::string rangeText() const
    {
        if (min && max)
            return std::string(minExclusive ? "(" : "[") + formatNumber(*min) + ", " + formatNumber(*max) +
                   (maxExclusive ? ")" : "]");
        if (min)
            return (minExclusive ? "> " : ">= ") + formatNumber(*min);
        if (max)
            return (maxExclusive ? "< " : "<= ") + formatNumber(*max);
        return {};
    }
};

void checkRange(const std::string &field, double v, const Limits &limits)
{
    if (limits.contains(v))
        return;
    const std::string range = limits.rangeText();
    fail(field, (limits.min && limits.max ? "must be in " : "must be ") + range + " (got " + formatNumber(v) + ")");
}

std::string readString(const std::string &field, const json &v, const Limits &limits = {})
{
    if (!v.is_string())
        fail(field, "expected a string (got " + shown(v) + ")");
    const std::string s = v.get<std::string>();
    if (!limits.allowed.empty() && std::find(limits.allowed.begin(), limits.allowed.end(), s) == limits.allowed.end())
        fail(field, "must be one of " + joined(limits.allowed) + " (got " + shown(v) + ")");
    return s;
}

bool readBool(const std::string &field, const json &v)
{
    if (!v.is_boolean())
        fail(field, "expected true or false (got " + shown(v) + ")");
    return v.get<bool>();
}

double readNumber(const std::string &field, const json &v, const Limits &limits)
{
    if (!v.is_number())
        fail(field, "expected a number (got " + shown(v) + ")");
    const double d = v.get<double>();
    checkRange(field, d, limits);
    return d;
}

// Integers may be written 3 or 3.0; 2.5 or "3" are errors. The value is range-checked as a
// double first, so absurd values give a message instead of wrapping around.
double readIntegral(const std::string &field, const json &v, const Limits &limits)
{
    if (!v.is_number())
        fail(field, "expected an integer (got " + shown(v) + ")");
    const double d = v.get<double>();
    if (v.is_number_float() && (!std::isfinite(d) || d != std::floor(d)))
        fail(field, "expected an integer (got " + shown(v) + ")");
    checkRange(field, d, limits);
    return d;
}

int readInt(const std::string &field, const json &v, const Limits &limits)
{
    const double d = readIntegral(field, v, limits);
    if (d > std::numeric_limits<int>::max() || d < std::numeric_limits<int>::min())
        fail(field, "out of range (got " + shown(v) + ")");
    return static_cast<int>(d);
}

std::uint64_t readUnsigned(const std::string &field, const json &v, const Limits &limits)
{
    const double d = readIntegral(field, v, limits.ge(0));
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>(); // exact, also above 2^53
    if (d >= 18446744073709551616.0)
        fail(field, "out of range (got " + shown(v) + ")");
    return static_cast<std::uint64_t>(d);
}

// One field of the config: its place, documentation, limits, and how it is read and written.
struct Field
{
    std::string path;
    std::string type;
    std::string description;
    Limits limits;
    std::function<json(const RunConfig &)> get;
    std::function<void(RunConfig &, const json &)> set;
};

// The member a field lives in; a generic lambda serves the const (writing) and the
// non-const (parsing) side alike.
#define LATHE_MEMBER(expr) [](auto &c) -> auto & { return c.expr; }

template <typename Access>
Field intField(std::string path, Access access, Limits limits, std::string description)
{
    Field f{path, "integer", std::move(description), limits, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path, limits](RunConfig &c, const json &v) { access(c) = readInt(path, v, limits); };
    return f;
}

template <typename Access>
Field unsignedField(std::string path, Access access, Limits limits, std::string description)
{
    Field f{path, "integer", std::move(description), limits.ge(0), {}, {}};
    f.get = [access](const RunConfig &c) { return json(static_cast<std::uint64_t>(access(c))); };
    f.set = [access, path, limits](RunConfig &c, const json &v) {
        using T = std::remove_reference_t<decltype(access(c))>;
        const std::uint64_t u = readUnsigned(path, v, limits);
        if (u > std::numeric_limits<T>::max())
            fail(path, "out of range (got " + shown(v) + ")");
        access(c) = static_cast<T>(u);
    };
    return f;
}

template <typename Access>
Field numberField(std::string path, Access access, Limits limits, std::string description)
{
    Field f{path, "number", std::move(description), limits, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path, limits](RunConfig &c, const json &v) { access(c) = readNumber(path, v, limits); };
    return f;
}

template <typename Access>
Field boolField(std::string path, Access access, std::string description)
{
    Field f{path, "boolean", std::move(description), {}, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path](RunConfig &c, const json &v) { access(c) = readBool(path, v); };
    return f;
}

// check, when given, adds a rule of the field's own (e.g. not empty).
template <typename Access>
Field stringField(std::string path, Access access, Limits limits, std::string description,
                  std::function<void(const std::string &)> check = {})
{
    Field f{path, "string", std::move(description), limits, {}, {}};
    f.get = [access](const RunConfig &c) { return json(access(c)); };
    f.set = [access, path, limits, check](RunConfig &c, const json &v) {
        std::string s = readString(path, v, limits);
        if (check)
            check(s);
        access(c) = std::move(s);
    };
    return f;
}

const std::vector<std::string> kOptimizers{"sgd", "adamw", "rmsprop"};
const std::vector<std::string> kLosses{"cross_entropy", "focal"};
const std::vector<std::string> kSchedules{"constant", "step",           "multi_step", "exponential",
                                          "cosine",   "cosine_restarts", "one_cycle", "plateau"};
const std::vector<std::string> kMetrics{"val_loss", "val_top1", "train_loss"};
const std::vector<std::string> kPrecisions{"fp32", "bf16", "fp16"};
const std::vector<std::string> kBalance{"none", "class_weights"};
const std::vector<std::string> kFeatureCache{"off", "auto", "fixed_views"};
const std::vector<std::string> kFreezePolicies{"train_all", "head_only", "up_to_stage"};

void checkDevices(const std::vector<std::string> &devices)
{
    if (devices.empty())
        fail("devices", "needs at least one device (\"cpu\" or \"cuda:N\")");
    std::set<int> cuda;
    bool cpu = false;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const std::string field = "devices[" + std::to_string(i) + "]";
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
    Field f{"devices", "array of strings", "The devices to train on, one rank each: \"cpu\" (may repeat for several CPU ranks) or \"cuda:N\" (each GPU once); CPU and CUDA are not mixed.", {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.devices); };
    f.set = [](RunConfig &c, const json &v) {
        if (!v.is_array())
            fail("devices", "expected an array of device names like [\"cuda:0\", \"cuda:1\"] (got " + shown(v) + ")");
        std::vector<std::string> devices;
        for (std::size_t i = 0; i < v.size(); ++i)
            devices.push_back(readString("devices[" + std::to_string(i) + "]", v[i]));
        checkDevices(devices);
        c.devices = std::move(devices);
    };
    return f;
}

Field milestonesField()
{
    Field f{"schedule.milestones", "array of integers", "multi_step: the epochs at which the learning rate is multiplied by gamma, increasing and below optimizer.epochs.", {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.schedule.milestones); };
    f.set = [](RunConfig &c, const json &v) {
        if (!v.is_array())
            fail("schedule.milestones", "expected an array of epochs like [30, 60] (got " + shown(v) + ")");
        std::vector<int> milestones;
        for (std::size_t i = 0; i < v.size(); ++i)
            milestones.push_back(readInt("schedule.milestones[" + std::to_string(i) + "]", v[i], Limits().ge(1)));
        c.schedule.milestones = std::move(milestones);
    };
    return f;
}

Field betasField()
{
    Field f{"optimizer.betas", "array of 2 numbers", "adamw: the decay rates of the running averages of the gradient and of its square, each in [0, 1).", {}, {}, {}};
    f.get = [](const RunConfig &c) { return json(c.optimizer.betas); };
    f.set = [](RunConfig &c, const json &v) {
        if (!v.is_array() || v.size() != 2)
            fail("optimizer.betas", "expected two numbers like [0.9, 0.999] (got " + shown(v) + ")");
        for (std::size_t i = 0; i < 2; ++i)
            c.optimizer.betas[i] = readNumber("optimizer.betas[" + std::to_string(i) + "]", v[i], Limits().ge(0).lt(1));
    };
    return f;
}

Field augmentField()
{
    Field f{"data.augment", "array of augmentations", "The training augmentation steps in order, each {\"type\": ..., \"p\": ..., parameters} as torchvision's transform of the same name; [] for none. Normalization always ends the pipeline.", {}, {}, {}};
    f.get = [](const RunConfig &c) { return augmentationsToJson(c.data.augment); };
    f.set = [](RunConfig &c, const json &v) {
        if (!v.is_array())
            fail("data.augment", "expected an array of augmentation steps, [] for none (got " + shown(v) + ")");
        c.data.augment = parseAugmentations(v);
    };
    return f;
}

Field multipliersField()
{
    Field f{"model.freeze.lr_multipliers", "object of numbers", "Discriminative fine-tuning: {stage name: factor} multiplying the learning rate of that stage (stages not named use 1).", Limits().ge(0), {}, {}};
    f.get = [](const RunConfig &c) {
        json out = json::object();
        for (const auto &[stage, multiplier] : c.model.freeze.lrMultipliers)
            out[stage] = multiplier;
        return out;
    };
    f.set = [](RunConfig &c, const json &v) {
        if (!v.is_object())
            fail("model.freeze.lr_multipliers", "expected an object like {\"layer4\": 0.1} (got " + shown(v) + ")");
        std::vector<std::pair<std::string, double>> multipliers;
        for (auto it = v.begin(); it != v.end(); ++it) {
            const std::string field = "model.freeze.lr_multipliers." + it.key();
            if (it.key().empty())
                fail(field, "a stage name is empty");
            multipliers.emplace_back(it.key(), readNumber(field, it.value(), Limits().ge(0)));
        }
        c.model.freeze.lrMultipliers = std::move(multipliers);
    };
    return f;
}

Field freezePolicyField()
{
    Field f{"model.freeze.policy", "string", "Which parameters train: every one (train_all), only the head (head_only), or all but the first frozen_stages stages (up_to_stage).", Limits::oneOf(kFreezePolicies), {}, {}};
    f.get = [](const RunConfig &c) { return json(freezePolicyName(c.model.freeze.policy)); };
    f.set = [](RunConfig &c, const json &v) {
        c.model.freeze.policy = freezePolicyFromName(readString("model.freeze.policy", v, Limits::oneOf(kFreezePolicies)));
    };
    return f;
}

Field versionField()
{
    Field f{"version", "integer", "The config format version; a file without it is read as version 1, and a file from a newer Lathe is refused.", Limits().ge(1), {}, {}};
    f.get = [](const RunConfig &c) { return json(c.version); };
    f.set = [](RunConfig &c, const json &v) {
        const int version = readInt("version", v, Limits().ge(1));
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

// Every field, in the order of the reference. Descriptions live here and nowhere else;
// defaults are those of the structs in run_config.h.
const std::vector<Field> &fields()
{
    static const std::vector<Field> table = [] {
        std::vector<Field> t;
        t.push_back(versionField());
        t.push_back(stringField("precision", LATHE_MEMBER(precision), Limits::oneOf(kPrecisions),
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
        t.push_back(intField("data.image_size", LATHE_MEMBER(data.imageSize), Limits().ge(0).le(4096),
                             "Side of the square training crop in pixels; 0 uses the backbone's default input size."));
        t.push_back(augmentField());
        t.push_back(intField("data.workers", LATHE_MEMBER(data.workers), Limits().ge(0).le(256),
                             "Decoding and augmentation threads per rank; 0 shares the CPU cores among the ranks."));
        t.push_back(unsignedField("data.cache_mb", LATHE_MEMBER(data.cacheMb), Limits().le(1 << 24),
                                  "Size in MiB of an in-memory cache of decoded images; 0 turns it off."));
        t.push_back(boolField("data.channels_last", LATHE_MEMBER(data.channelsLast),
                              "Feed batches in channels-last memory layout, which is faster for convolutions on some GPUs."));
        t.push_back(stringField("data.balance", LATHE_MEMBER(data.balance), Limits::oneOf(kBalance),
                                "Imbalanced classes: nothing, or loss weights from the class frequencies (class_weights)."));

        t.push_back(stringField("model.arch", LATHE_MEMBER(model.arch), {},
                                "The backbone architecture: a built-in name such as resnet50 or vit_b_16 (see lathe-cli models), or \"torchscript\" for model.torchscript.",
                                [](const std::string &s) { notEmpty("model.arch", s, "a backbone name"); }));
        t.push_back(intField("model.in_channels", LATHE_MEMBER(model.inChannels), Limits().ge(1).le(64),
                             "Channels of the input images; 1 (grayscale) or more than 3 (multispectral) adapts the first convolution."));
        t.push_back(stringField("model.weights", LATHE_MEMBER(model.weightsPath), {},
                                "Initial weights: a .safetensors or torch.save .pth file, \"zoo\" for the model zoo's pretrained weights of the architecture, or \"\" to train from scratch."));
        t.push_back(stringField("model.torchscript", LATHE_MEMBER(model.torchscriptPath), {},
                                "A custom backbone saved with torch.jit.save; used when model.arch is \"torchscript\"."));
        t.push_back(intField("model.head.num_classes", LATHE_MEMBER(model.head.numClasses), Limits().ge(0).le(1000000),
                             "Output classes of the head; 0 takes the dataset's class count."));
        t.push_back(numberField("model.head.dropout", LATHE_MEMBER(model.head.dropout), Limits().lt(1),
                                "Dropout before the final layer, in [0, 1); a negative value keeps the architecture's own."));
        t.push_back(intField("model.head.hidden_units", LATHE_MEMBER(model.head.hiddenUnits), Limits().ge(0).le(1 << 20),
                             "Units of an extra hidden layer (Linear, ReLU, Dropout) in the head; 0 for none."));
        t.push_back(freezePolicyField());
        t.push_back(intField("model.freeze.frozen_stages", LATHE_MEMBER(model.freeze.frozenStages), Limits().ge(0),
                             "up_to_stage: how many stages, counted from the input, are frozen; fewer than the architecture's stage count."));
        t.push_back(boolField("model.freeze.freeze_batch_norm", LATHE_MEMBER(model.freeze.freezeBatchNorm),
                              "Keep every BatchNorm layer's running statistics fixed (those of frozen stages always are)."));
        t.push_back(multipliersField());
        t.push_back(intField("model.freeze.unfreeze_every_epochs", LATHE_MEMBER(model.freeze.unfreezeEveryEpochs), Limits().ge(0),
                             "Gradual unfreezing: every this many epochs the last frozen stage starts training; 0 turns it off."));

        t.push_back(stringField("optimizer.name", LATHE_MEMBER(optimizer.name), Limits::oneOf(kOptimizers),
                                "The optimizer: SGD with momentum, AdamW, or RMSprop."));
        t.push_back(numberField("optimizer.lr", LATHE_MEMBER(optimizer.lr), Limits().gt(0),
                                "The base learning rate, for batch_size images per rank."));
        t.push_back(intField("optimizer.batch_size", LATHE_MEMBER(optimizer.batchSize), Limits().ge(1).le(65536),
                             "Images per batch on each rank."));
        t.push_back(intField("optimizer.epochs", LATHE_MEMBER(optimizer.epochs), Limits().ge(1).le(100000),
                             "Passes over the training split."));
        t.push_back(numberField("optimizer.momentum", LATHE_MEMBER(optimizer.momentum), Limits().ge(0).lt(1),
                                "sgd and rmsprop: momentum factor."));
        t.push_back(boolField("optimizer.nesterov", LATHE_MEMBER(optimizer.nesterov),
                              "sgd: use Nesterov momentum (needs momentum > 0)."));
        t.push_back(numberField("optimizer.weight_decay", LATHE_MEMBER(optimizer.weightDecay), Limits().ge(0),
                                "L2 penalty (decoupled for adamw) applied at every step."));
        t.push_back(boolField("optimizer.no_decay_norms_and_biases", LATHE_MEMBER(optimizer.noDecayNormsAndBiases),
                              "Exempt biases, normalization weights and learned embeddings from weight decay."));
        t.push_back(betasField());
        t.push_back(numberField("optimizer.eps", LATHE_MEMBER(optimizer.eps), Limits().gt(0).le(1),
                                "adamw and rmsprop: small term added to the denominator for numerical stability."));
        t.push_back(numberField("optimizer.alpha", LATHE_MEMBER(optimizer.alpha), Limits().ge(0).lt(1),
                                "rmsprop: smoothing constant of the running average of squared gradients."));
        t.push_back(numberField("optimizer.clip_grad_norm", LATHE_MEMBER(optimizer.clipGradNorm), Limits().ge(0),
                                "When above 0, gradients are scaled so that their global L2 norm is at most this."));
        t.push_back(intField("optimizer.accumulate_steps", LATHE_MEMBER(optimizer.accumulateSteps), Limits().ge(1).le(65536),
                             "Take an optimizer step every this many batches, summing their gradients (a larger effective batch)."));

        t.push_back(stringField("loss.name", LATHE_MEMBER(loss.name), Limits::oneOf(kLosses),
                                "The training loss: cross entropy, or focal loss, which focuses on hard examples."));
        t.push_back(numberField("loss.label_smoothing", LATHE_MEMBER(loss.labelSmoothing), Limits().ge(0).lt(1),
                                "Share of the target probability spread evenly over all classes."));
        t.push_back(numberField("loss.focal_gamma", LATHE_MEMBER(loss.focalGamma), Limits().ge(0).le(10),
                                "focal: how strongly well-classified examples are down-weighted (0 is cross entropy)."));

        t.push_back(stringField("schedule.name", LATHE_MEMBER(schedule.name), Limits::oneOf(kSchedules),
                                "How the learning rate changes over training."));
        t.push_back(numberField("schedule.warmup_epochs", LATHE_MEMBER(schedule.warmupEpochs), Limits().ge(0),
                                "Epochs (fractions allowed) of linear warm-up from warmup_start_factor x lr before the schedule starts; not with one_cycle."));
        t.push_back(numberField("schedule.warmup_start_factor", LATHE_MEMBER(schedule.warmupStartFactor), Limits().gt(0).le(1),
                                "The fraction of lr that warm-up starts from."));
        t.push_back(intField("schedule.step_size", LATHE_MEMBER(schedule.stepSize), Limits().ge(1),
                             "step: epochs between two multiplications by gamma."));
        t.push_back(milestonesField());
        t.push_back(numberField("schedule.gamma", LATHE_MEMBER(schedule.gamma), Limits().gt(0).le(1),
                                "step and multi_step: factor at each decay; exponential: factor per epoch."));
        t.push_back(numberField("schedule.min_lr", LATHE_MEMBER(schedule.minLr), Limits().ge(0),
                                "cosine and cosine_restarts: the learning rate at the bottom of the curve."));
        t.push_back(intField("schedule.restart_epochs", LATHE_MEMBER(schedule.restartEpochs), Limits().ge(1),
                             "cosine_restarts: length in epochs of the first cosine period."));
        t.push_back(intField("schedule.restart_multiplier", LATHE_MEMBER(schedule.restartMultiplier), Limits().ge(1).le(100),
                             "cosine_restarts: each period is this many times longer than the one before."));
        t.push_back(numberField("schedule.max_lr", LATHE_MEMBER(schedule.maxLr), Limits().ge(0),
                                "one_cycle: the peak learning rate; 0 uses optimizer.lr."));
        t.push_back(numberField("schedule.pct_start", LATHE_MEMBER(schedule.pctStart), Limits().gt(0).lt(1),
                                "one_cycle: fraction of training spent rising to the peak."));
        t.push_back(numberField("schedule.div_factor", LATHE_MEMBER(schedule.divFactor), Limits().ge(1),
                                "one_cycle: the start learning rate is max_lr divided by this."));
        t.push_back(numberField("schedule.final_div_factor", LATHE_MEMBER(schedule.finalDivFactor), Limits().ge(1),
                                "one_cycle: the final learning rate is the start learning rate divided by this."));
        t.push_back(stringField("schedule.plateau_metric", LATHE_MEMBER(schedule.plateauMetric), Limits::oneOf(kMetrics),
                                "plateau: the metric watched for a lack of improvement."));
        t.push_back(numberField("schedule.plateau_factor", LATHE_MEMBER(schedule.plateauFactor), Limits().gt(0).lt(1),
                                "plateau: factor applied to the learning rate when the metric stalls."));
        t.push_back(intField("schedule.plateau_patience", LATHE_MEMBER(schedule.plateauPatience), Limits().ge(0),
                             "plateau: epochs without improvement before the learning rate drops."));
        t.push_back(numberField("schedule.plateau_threshold", LATHE_MEMBER(schedule.plateauThreshold), Limits().ge(0),
                                "plateau: the smallest relative change that counts as an improvement."));

        t.push_back(intField("checkpoints.every_steps", LATHE_MEMBER(checkpoints.everySteps), Limits().ge(0),
                             "Save a checkpoint every this many optimizer steps; 0 for none by steps."));
        t.push_back(intField("checkpoints.every_epochs", LATHE_MEMBER(checkpoints.everyEpochs), Limits().ge(0),
                             "Save a checkpoint every this many epochs; 0 for none by epochs (the end of training is always saved)."));
        t.push_back(intField("checkpoints.keep", LATHE_MEMBER(checkpoints.keep), Limits().ge(0),
                             "How many of the latest periodic checkpoints to keep; the best and the last are kept besides."));
        t.push_back(stringField("checkpoints.best_metric", LATHE_MEMBER(checkpoints.bestMetric), Limits::oneOf(kMetrics),
                                "The metric that decides which checkpoint is the best."));

        t.push_back(boolField("early_stopping.enabled", LATHE_MEMBER(earlyStopping.enabled),
                              "Stop training when the metric has not improved for patience epochs."));
        t.push_back(stringField("early_stopping.metric", LATHE_MEMBER(earlyStopping.metric), Limits::oneOf(kMetrics),
                                "The metric watched by early stopping."));
        t.push_back(intField("early_stopping.patience", LATHE_MEMBER(earlyStopping.patience), Limits().ge(1),
                             "Epochs without improvement before training stops."));
        t.push_back(numberField("early_stopping.min_delta", LATHE_MEMBER(earlyStopping.minDelta), Limits().ge(0),
                                "The smallest change of the metric that counts as an improvement."));

        t.push_back(boolField("ema.enabled", LATHE_MEMBER(ema.enabled),
                              "Keep an exponential moving average of the weights; validation and the saved best and last models use it."));
        t.push_back(numberField("ema.decay", LATHE_MEMBER(ema.decay), Limits().gt(0).lt(1),
                                "Weight of the old average at each optimizer step (closer to 1 averages longer)."));

        t.push_back(stringField("feature_cache.mode", LATHE_MEMBER(featureCache.mode), Limits::oneOf(kFeatureCache),
                                "Compute the frozen backbone's features once and train only the head on them: off, auto (when the backbone is frozen and the training transform is deterministic), or fixed_views (views augmented copies of each image)."));
        t.push_back(intField("feature_cache.views", LATHE_MEMBER(featureCache.views), Limits().ge(1).le(1000),
                             "fixed_views: augmented views computed per image."));

        t.push_back(intField("distributed.nnodes", LATHE_MEMBER(distributed.nnodes), Limits().ge(1).le(4096),
                             "Machines taking part in the run."));
        t.push_back(intField("distributed.node_rank", LATHE_MEMBER(distributed.nodeRank), Limits().ge(0),
                             "This machine's index among the nnodes machines, from 0."));
        t.push_back(stringField("distributed.master", LATHE_MEMBER(distributed.master), {},
                                "\"HOST:PORT\" where the machines of a multi-machine run meet (node 0 listens there)."));
        t.push_back(boolField("distributed.sync_batch_norm", LATHE_MEMBER(distributed.syncBatchNorm),
                              "Average BatchNorm statistics across all ranks instead of per rank."));
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

// The names directly under a section ("" is the top level): fields and sub-sections.
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

// Optimal string alignment distance (edits and swaps of neighbours).
std::size_t editDistance(const std::string &a, const std::string &b)
{
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i)
        d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j)
        d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
        for (std::size_t j = 1; j <= b.size(); ++j) {
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[a.size()][b.size()];
}

// camelCase and kebab-case to snake_case: "batchSize" and "batch-size" are "batch_size".
std::string snakeCase(const std::string &name)
{
    std::string out;
    for (char ch : name) {
        if (ch >= 'A' && ch <= 'Z') {
            if (!out.empty() && out.back() != '_')
                out += '_';
            out += char(ch - 'A' + 'a');
        } else {
            out += ch == '-' ? '_' : ch;
        }
    }
    return out;
}

// Names people bring from other tools, and what they are called here.
const std::map<std::string, std::string> &aliases()
{
    static const std::map<std::string, std::string> m{
        {"learning_rate", "lr"},          {"base_lr", "lr"},
        {"batch", "batch_size"},          {"bs", "batch_size"},
        {"num_epochs", "epochs"},         {"max_epochs", "epochs"},
        {"wd", "weight_decay"},           {"epsilon", "eps"},
        {"beta", "betas"},                {"grad_clip", "clip_grad_norm"},
        {"clip_grad", "clip_grad_norm"},  {"max_grad_norm", "clip_grad_norm"},
        {"accumulation_steps", "accumulate_steps"}, {"gradient_accumulation_steps", "accumulate_steps"},
        {"architecture", "arch"},         {"backbone", "arch"},
        {"pretrained", "weights"},        {"checkpoint", "weights"},
        {"classes", "num_classes"},       {"n_classes", "num_classes"},
        {"channels", "in_channels"},      {"num_workers", "workers"},
        {"input_size", "image_size"},     {"img_size", "image_size"},
        {"resolution", "image_size"},     {"crop_size", "image_size"},
        {"augmentation", "augment"},      {"augmentations", "augment"},
        {"transforms", "augment"},        {"smoothing", "label_smoothing"},
        {"warmup", "warmup_epochs"},      {"lr_min", "min_lr"},
        {"eta_min", "min_lr"},            {"milestone", "milestones"},
        {"type", "name"},                 {"gpus", "devices"},
        {"device", "devices"},            {"amp", "precision"},
        {"dtype", "precision"},           {"mixed_precision", "precision"},
        {"random_seed", "seed"},          {"dataset", "data"},
        {"model_ema", "ema"},             {"scheduler", "schedule"},
        {"lr_schedule", "schedule"},      {"optim", "optimizer"},
        {"checkpoint_every", "every_epochs"}, {"save_every", "every_epochs"},
    };
    return m;
}

// " (did you mean X?)" for an unknown field, or "".
std::string suggestionFor(const std::string &path)
{
    const auto dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
    const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
    const std::string normal = snakeCase(leaf);
    const std::set<std::string> siblings = childrenOf(parent);
    const auto closeEnough = [](const std::string &a, const std::string &b) {
        const std::size_t d = editDistance(a, b);
        return d <= 2 && d <= std::max<std::size_t>(1, std::min(a.size(), b.size()) / 3);
    };

    if (siblings.count(normal))
        return " (did you mean " + normal + "?)";
    for (const auto &[alias, name] : aliases())
        if (siblings.count(name) && (alias == normal || (alias.size() >= 5 && closeEnough(alias, normal))))
            return " (did you mean " + name + "?)";
    std::string best;
    std::size_t bestDistance = std::numeric_limits<std::size_t>::max();
    for (const std::string &name : siblings) {
        const std::size_t d = editDistance(normal, name);
        if (closeEnough(normal, name) && d < bestDistance) {
            best = name;
            bestDistance = d;
        }
    }
    if (!best.empty())
        return " (did you mean " + best + "?)";
    // The right name in the wrong section: "optimizer.label_smoothing" is loss.label_smoothing.
    for (const Field &f : fields()) {
        const auto fdot = f.path.rfind('.');
        if ((fdot == std::string::npos ? f.path : f.path.substr(fdot + 1)) == normal)
            return " (did you mean " + f.path + "?)";
    }
    for (const std::string &section : childrenOf(""))
        if (section == normal && isSection(section))
            return " (did you mean the section " + section + "?)";
    return {};
}

void parseSection(const json &object, const std::string &prefix, RunConfig &config)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (it.key().find('.') != std::string::npos)
            fail(path, "unknown field (write nested objects: {\"" + it.key().substr(0, it.key().find('.')) +
                           "\": {...}})");
        if (const Field *field = findField(path)) {
            field->set(config, it.value());
        } else if (isSection(path)) {
            if (!it.value().is_object())
                fail(path, "expected an object (got " + shown(it.value()) + ")");
            parseSection(it.value(), path, config);
        } else {
            fail(path, "unknown field" + suggestionFor(path));
        }
    }
}

std::string typeOf(const json &v)
{
    return v.type_name(); // "object", "array", "string", "number", "boolean", "null"
}

// Cross-field rules; each is documented by its summary in the reference.
struct Rule
{
    std::string summary;
    std::function<void(const RunConfig &)> check;
};

bool isValMetric(const std::string &metric)
{
    return metric.rfind("val_", 0) == 0;
}

const BackboneInfo *backboneOf(const RunConfig &c)
{
    return c.model.arch == "torchscript" ? nullptr : &backboneInfo(c.model.arch);
}

std::string stageNames(const BackboneInfo &info)
{
    std::vector<std::string> names;
    for (const BackboneStage &s : info.stages)
        names.push_back(s.name);
    return joined(names);
}

// Whether every stage but the head is frozen (the features do not change while training).
bool backboneFrozen(const RunConfig &c)
{
    const FreezeOptions &f = c.model.freeze;
    if (f.unfreezeEveryEpochs > 0)
        return false;
    if (f.policy == FreezePolicy::HeadOnly)
        return true;
    if (f.policy != FreezePolicy::UpToStage)
        return false;
    const BackboneInfo *info = backboneOf(c);
    return info && f.frozenStages == int(info->stages.size()) - 1;
}

const std::vector<Rule> &rules()
{
    static const std::vector<Rule> table{
        {"data.shards must be set.",
         [](const RunConfig &c) {
             if (c.data.shards.empty())
                 fail("data.shards", "required: the folder holding the converted dataset (dataset.json)");
         }},
        {"model.arch must be a built-in architecture or \"torchscript\"; \"torchscript\" needs model.torchscript, and model.torchscript is only used with it; \"zoo\" weights exist only for built-in architectures.",
         [](const RunConfig &c) {
             if (c.model.arch == "torchscript") {
                 if (c.model.torchscriptPath.empty())
                     fail("model.torchscript", "required when model.arch is \"torchscript\" (a torch.jit.save'd backbone)");
                 if (c.model.weightsPath == "zoo")
                     fail("model.weights", "the model zoo has no weights for a torchscript backbone");
                 return;
             }
             try {
                 backboneInfo(c.model.arch);
             } catch (const EngineError &e) {
                 fail("model.arch", std::string(e.what()) + " or \"torchscript\"");
             }
             if (!c.model.torchscriptPath.empty())
                 fail("model.torchscript", "only used when model.arch is \"torchscript\" (arch is " + c.model.arch + ")");
         }},
        {"model.freeze: up_to_stage freezes fewer stages than the architecture has; lr_multipliers name stages of the architecture; gradual unfreezing needs a policy that freezes something.",
         [](const RunConfig &c) {
             const FreezeOptions &f = c.model.freeze;
             if (f.unfreezeEveryEpochs > 0 && f.policy == FreezePolicy::TrainAll)
                 fail("model.freeze.unfreeze_every_epochs", "needs a policy that freezes stages (head_only or up_to_stage); train_all freezes nothing");
             const BackboneInfo *info = backboneOf(c);
             if (!info)
                 return; // a torchscript backbone's stages are known only once it is loaded
             const int stages = int(info->stages.size());
             if (f.policy == FreezePolicy::UpToStage && f.frozenStages >= stages)
                 fail("model.freeze.frozen_stages", "must be below " + std::to_string(stages) + ", the stage count of " +
                                                        info->name + " (stages: " + stageNames(*info) + "; got " +
                                                        std::to_string(f.frozenStages) + ")");
             for (const auto &[stage, multiplier] : f.lrMultipliers) {
                 (void)multiplier;
                 const bool known = std::any_of(info->stages.begin(), info->stages.end(),
                                                [&](const BackboneStage &s) { return s.name == stage; });
                 if (!known)
                     fail("model.freeze.lr_multipliers." + stage,
                          "not a stage of " + info->name + " (stages: " + stageNames(*info) + ")");
             }
         }},
        {"precision fp16 needs a CUDA device; on CPU use bf16 or fp32.",
         [](const RunConfig &c) {
             const bool cuda = std::any_of(c.devices.begin(), c.devices.end(),
                                           [](const std::string &d) { const auto n = parseDeviceName(d); return n && n->cuda; });
             if (c.precision == "fp16" && !cuda)
                 fail("precision", "fp16 needs a CUDA device (devices are cpu); on CPU use bf16 or fp32");
         }},
        {"optimizer.nesterov needs optimizer.momentum > 0 with sgd.",
         [](const RunConfig &c) {
             if (c.optimizer.name == "sgd" && c.optimizer.nesterov && c.optimizer.momentum <= 0)
                 fail("optimizer.nesterov", "needs optimizer.momentum > 0");
         }},
        {"schedule: warm-up is shorter than training and not combined with one_cycle (which warms up itself); multi_step milestones increase and lie below optimizer.epochs; cosine's min_lr is below optimizer.lr.",
         [](const RunConfig &c) {
             const ScheduleConfig &s = c.schedule;
             if (s.warmupEpochs > 0 && s.name == "one_cycle")
                 fail("schedule.warmup_epochs", "one_cycle has its own warm-up (pct_start); set warmup_epochs to 0");
             if (s.warmupEpochs >= c.optimizer.epochs)
                 fail("schedule.warmup_epochs", "must be below optimizer.epochs (" + std::to_string(c.optimizer.epochs) +
                                                    "; got " + formatNumber(s.warmupEpochs) + ")");
             if (s.name == "multi_step") {
                 if (s.milestones.empty())
                     fail("schedule.milestones", "multi_step needs at least one milestone epoch");
                 for (std::size_t i = 0; i < s.milestones.size(); ++i) {
                     const std::string field = "schedule.milestones[" + std::to_string(i) + "]";
                     if (i > 0 && s.milestones[i] <= s.milestones[i - 1])
                         fail(field, "milestones must increase (" + std::to_string(s.milestones[i]) + " follows " +
                                         std::to_string(s.milestones[i - 1]) + ")");
                     if (s.milestones[i] >= c.optimizer.epochs)
                         fail(field, "must be below optimizer.epochs (" + std::to_string(c.optimizer.epochs) + "; got " +
                                         std::to_string(s.milestones[i]) + ")");
                 }
             }
             if ((s.name == "cosine" || s.name == "cosine_restarts") && s.minLr >= c.optimizer.lr)
                 fail("schedule.min_lr", "must be below optimizer.lr (" + formatNumber(c.optimizer.lr) + "; got " +
                                             formatNumber(s.minLr) + ")");
         }},
        {"Metrics starting with val_ (plateau, early stopping, best checkpoint) need a validation split (data.val_split).",
         [](const RunConfig &c) {
             if (!c.data.valSplit.empty())
                 return;
             const auto need = [](const std::string &field, const std::string &metric) {
                 if (isValMetric(metric))
                     fail(field, metric + " needs a validation split, but data.val_split is empty (use train_loss)");
             };
             if (c.schedule.name == "plateau")
                 need("schedule.plateau_metric", c.schedule.plateauMetric);
             if (c.earlyStopping.enabled)
                 need("early_stopping.metric", c.earlyStopping.metric);
             need("checkpoints.best_metric", c.checkpoints.bestMetric);
         }},
        {"feature_cache fixed_views needs a backbone frozen entirely (head_only, or up_to_stage freezing all stages but the head) and no gradual unfreezing.",
         [](const RunConfig &c) {
             if (c.featureCache.mode == "fixed_views" && !backboneFrozen(c))
                 fail("feature_cache.mode", "fixed_views caches the backbone's features, so the backbone must be frozen "
                                            "entirely (model.freeze.policy head_only, no unfreeze_every_epochs)");
         }},
        {"distributed: node_rank is below nnodes; several machines need master as \"HOST:PORT\".",
         [](const RunConfig &c) {
             const DistributedConfig &d = c.distributed;
             if (d.nodeRank >= d.nnodes)
                 fail("distributed.node_rank", "must be below distributed.nnodes (" + std::to_string(d.nnodes) + "; got " +
                                                   std::to_string(d.nodeRank) + ")");
             if (d.nnodes <= 1)
                 return;
             const auto colon = d.master.rfind(':');
             const std::string host = colon == std::string::npos ? "" : d.master.substr(0, colon);
             const std::string port = colon == std::string::npos ? "" : d.master.substr(colon + 1);
             const bool digits = !port.empty() && port.size() <= 5 &&
                                 std::all_of(port.begin(), port.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
             if (host.empty() || !digits || std::stoi(port) < 1 || std::stoi(port) > 65535)
                 fail("distributed.master", "must be \"HOST:PORT\" (port 1-65535) when nnodes > 1 (got " + shown(d.master) + ")");
         }},
    };
    return table;
}

const std::map<std::string, std::string> &sectionIntros()
{
    static const std::map<std::string, std::string> m{
        {"", "Format version, precision, devices and seed."},
        {"data", "Which dataset, which splits, and how images reach the model."},
        {"model", "The backbone, its head, its initial weights and which of its stages train."},
        {"optimizer", "The optimizer, learning rate, batch size and length of training."},
        {"loss", "The training loss."},
        {"schedule", "How the learning rate changes over the epochs."},
        {"checkpoints", "When checkpoints are written to the run folder and which are kept."},
        {"early_stopping", "Stopping when a metric no longer improves."},
        {"ema", "An exponential moving average of the weights."},
        {"feature_cache", "Caching a frozen backbone's features, which makes training the head alone much faster."},
        {"distributed", "Training across several machines (the devices of one machine are listed in devices)."},
    };
    return m;
}

std::string cell(std::string text)
{
    std::string out;
    for (char ch : text) {
        if (ch == '|')
            out += "\\|";
        else if (ch == '\n')
            out += ' ';
        else
            out += ch;
    }
    return out;
}

// "optimizer.lr" -> /optimizer/lr (only called with known field or section paths).
json::json_pointer pointerOf(const std::string &path)
{
    std::string pointer = "/" + path;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    return json::json_pointer(pointer);
}

// "a,b" -> ["a", "b"]; with integers, items that are JSON numbers become numbers.
json splitList(const std::string &text, bool integers)
{
    json list = json::array();
    if (text.empty())
        return list;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const json number = integers ? json::parse(item, nullptr, false) : json();
        list.push_back(integers && !number.is_discarded() ? number : json(item));
        if (comma == std::string::npos)
            return list;
        start = comma + 1;
    }
}

void rejectNulls(const json &value, const std::string &path)
{
    if (value.is_null())
        fail(path, "expected a value (got null)");
    if (value.is_object())
        for (auto it = value.begin(); it != value.end(); ++it)
            rejectNulls(it.value(), path + "." + it.key());
}

// The reference's example, kept as written (a parsed json would sort its keys).
const char *const kExampleText = R"({
  "version": 1,
  "data": {
    "shards": "datasets/flowers-shards",
    "image_size": 224,
    "augment": [
      {"type": "random_resized_crop", "scale": [0.25, 1]},
      {"type": "horizontal_flip", "p": 0.5},
      {"type": "color_jitter", "p": 0.8, "brightness": 0.2, "contrast": 0.2, "saturation": 0.2}
    ],
    "balance": "class_weights"
  },
  "model": {
    "arch": "resnet50",
    "weights": "zoo",
    "freeze": {
      "policy": "up_to_stage",
      "frozen_stages": 3,
      "lr_multipliers": {"layer3": 0.1}
    }
  },
  "optimizer": {"name": "sgd", "lr": 0.02, "batch_size": 64, "epochs": 30, "nesterov": true},
  "loss": {"label_smoothing": 0.1},
  "schedule": {"name": "cosine", "warmup_epochs": 2},
  "precision": "bf16",
  "devices": ["cuda:0", "cuda:1"],
  "early_stopping": {"enabled": true, "metric": "val_top1", "patience": 5},
  "ema": {"enabled": true, "decay": 0.999}
})";

} // namespace

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
    throw EngineError("model.freeze.policy: must be one of " + joined(kFreezePolicies) + " (got " + shown(name) + ")");
}

RunConfig parseRunConfig(const nlohmann::json &json)
{
    if (!json.is_object())
        throw EngineError("run config: expected a JSON object (got " + typeOf(json) + ")");
    RunConfig config;
    // The version first: a newer file's other fields may mean something this Lathe cannot know.
    if (json.contains("version"))
        findField("version")->set(config, json["version"]);
    parseSection(json, "", config);
    return config;
}

RunConfig readRunConfig(const std::string &path)
{
    namespace fs = std::filesystem;
    constexpr std::uintmax_t kMaxBytes = 16u << 20; // configs are a few KiB; refuse anything absurd
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw EngineError(path + ": no such file");
    if (!fs::is_regular_file(path, ec))
        throw EngineError(path + ": not a regular file");
    const std::uintmax_t size = fs::file_size(path, ec);
    if (ec)
        throw EngineError(path + ": cannot read (" + ec.message() + ")");
    if (size > kMaxBytes)
        throw EngineError(path + ": too large for a run config (" + std::to_string(size) + " bytes)");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw EngineError(path + ": cannot open for reading");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad())
        throw EngineError(path + ": read error");
    const std::string text = bytes.str();
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw EngineError(path + ": empty file (expected a JSON run config)");
    constexpr int kMaxDepth = 64; // a config nests about 5 deep
    if (nestingDepth(text) > kMaxDepth)
        throw EngineError(path + ": not a run config (JSON nested more than " + std::to_string(kMaxDepth) +
                          " levels deep)");
    nlohmann::json document;
    try {
        document = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception &e) {
        std::string what = e.what();
        // "[json.exception.parse_error.101] parse error at line 3, ...": keep the readable part.
        if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos)
            what = what.substr(what.find("] ") + 2);
        // Its "last read: '...'" quotes the file's bytes, which may be binary.
        for (char &ch : what)
            if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f)
                ch = '?';
        throw EngineError(path + ": not valid JSON: " + what);
    }
    if (!document.is_object())
        throw EngineError(path + ": expected a JSON object holding a run config (got " + typeOf(document) + ")");
    try {
        return parseRunConfig(document);
    } catch (const EngineError &e) {
        throw EngineError(path + ": " + e.what());
    }
}

nlohmann::json runConfigToJson(const RunConfig &config)
{
    json out = json::object();
    for (const Field &f : fields()) {
        json *node = &out;
        std::string rest = f.path;
        for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
            node = &(*node)[rest.substr(0, dot)];
            rest = rest.substr(dot + 1);
        }
        (*node)[rest] = f.get(config);
    }
    return out;
}

void validateRunConfig(const RunConfig &config)
{
    // The per-field checks too: a config built in code (the GUI's) has not been through parsing.
    parseRunConfig(runConfigToJson(config));
    for (const Rule &rule : rules())
        rule.check(config);
}

nlohmann::json runConfigSchema()
{
    const RunConfig defaults;
    json schema = json::array();
    for (const Field &f : fields()) {
        json entry = {{"field", f.path},
                      {"section", sectionOf(f.path)},
                      {"type", f.type},
                      {"default", f.get(defaults)},
                      {"description", f.description}};
        if (!f.limits.allowed.empty())
            entry["allowed"] = f.limits.allowed;
        // Integer fields get integer bounds, so a GUI can put them in a spin box as they are.
        const auto bound = [&](double v) { return f.type == "integer" ? json(static_cast<std::int64_t>(v)) : json(v); };
        if (f.limits.min) {
            entry["min"] = bound(*f.limits.min);
            if (f.limits.minExclusive)
                entry["exclusive_min"] = true;
        }
        if (f.limits.max) {
            entry["max"] = bound(*f.limits.max);
            if (f.limits.maxExclusive)
                entry["exclusive_max"] = true;
        }
        schema.push_back(std::move(entry));
    }
    return schema;
}

nlohmann::json runConfigExample()
{
    return json::parse(kExampleText);
}

std::string runConfigReference()
{
    const json schema = runConfigSchema();
    std::ostringstream md;
    md << "# Run configuration reference\n\n"
       << "Generated by `scripts/make-run-config-reference.sh` from `lathe-cli config schema`; edit the field table "
          "in `core/engine/run_config.cpp`, not this file.\n\n"
       << "A training run is described by one JSON document: the `config.json` of a run folder, the file "
          "`lathe-cli train --config` takes, and what the Train page edits. Every field has a default, so "
          "`{\"data\": {\"shards\": \"my-shards\"}}` is a complete config. Unknown fields, wrong types and values "
          "out of range are errors that name the field, e.g. `optimizer.lr: must be > 0 (got -1)`.\n\n"
       << "- `lathe-cli config defaults` prints the full default config.\n"
       << "- `lathe-cli config check FILE` checks a file (every field, then the rules across fields below) and "
          "prints the effective config; it exits with 2 when the config is invalid.\n"
       << "- `--set PATH=VALUE` (repeatable) overrides a field on top of the file, e.g. `--set optimizer.lr=0.1 "
          "--set devices=cuda:0,cuda:1 --set model.freeze.lr_multipliers.layer4=0.1`. The value is read as JSON "
          "when it is JSON, else as text; list fields also take comma-separated text.\n"
       << "- `lathe-cli config schema --json` prints the machine-readable schema this page is made from.\n\n"
       << "Ranges are written `[a, b)`: `[` and `]` include the bound, `(` and `)` exclude it.\n\n"
       << "## Example\n\n```json\n"
       << kExampleText << "\n```\n";

    std::string current = "\x01";
    for (const json &entry : schema) {
        const std::string section = entry["section"].get<std::string>();
        if (section != current) {
            current = section;
            md << "\n## " << (section.empty() ? "Top level" : "`" + section + "`") << "\n\n"
               << sectionIntros().at(section) << "\n\n"
               << "| Field | Type | Default | Allowed | Description |\n"
               << "|---|---|---|---|---|\n";
        }
        const Field &f = *findField(entry["field"].get<std::string>());
        std::string allowed;
        if (!f.limits.allowed.empty()) {
            for (const std::string &name : f.limits.allowed)
                allowed += (allowed.empty() ? "" : ", ") + ("`" + name + "`");
        } else {
            allowed = f.limits.rangeText();
        }
        md << "| `" << f.path << "` | " << f.type << " | `" << cell(entry["default"].dump()) << "` | " << cell(allowed)
           << " | " << cell(f.description) << " |\n";
    }

    md << "\n## Augmentation steps\n\n"
       << "The types `data.augment` takes, each with torchvision's parameters of the transform of the same name "
          "(e.g. `{\"type\": \"color_jitter\", \"p\": 0.8, \"brightness\": 0.2}`); the Train page previews them:\n\n";
    std::string types;
    for (const std::string &type : augmentationTypes())
        types += (types.empty() ? "`" : ", `") + type + "`";
    md << types << ".\n";

    md << "\n## Rules across fields\n\n"
       << "Checked by `lathe-cli config check` and before training starts:\n\n";
    for (const Rule &rule : rules())
        md << "- " << rule.summary << '\n';
    md << "\n## Versions\n\n"
       << "This Lathe writes and reads version " << RunConfig::kVersion
       << ". A file without `version` is read as version 1; a file with a higher version was written by a newer "
          "Lathe and is refused rather than half understood.\n";
    return md.str();
}

RunConfig applyRunConfigOverrides(RunConfig config, const nlohmann::json &overrides)
{
    if (!overrides.is_object())
        throw EngineError("overrides: expected an object of \"path\": value (got " + typeOf(overrides) + ")");
    json document = runConfigToJson(config);
    const std::string multipliers = "model.freeze.lr_multipliers.";
    for (auto it = overrides.begin(); it != overrides.end(); ++it) {
        const std::string &path = it.key();
        json value = it.value();
        if (const Field *field = findField(path)) {
            // Command-line friendliness: "cuda:0,cuda:1" for a list, "30,60" for epochs.
            if (value.is_string() && (field->type == "array of strings" || field->type == "array of integers"))
                value = splitList(value.get<std::string>(), field->type == "array of integers");
            document[pointerOf(path)] = std::move(value);
        } else if (isSection(path)) {
            if (!value.is_object())
                fail(path, "expected an object (got " + shown(value) + ")");
            // merge_patch would read a null as "remove": refuse it rather than reset a field silently.
            rejectNulls(value, path);
            document[pointerOf(path)].merge_patch(value);
        } else if (path.compare(0, multipliers.size(), multipliers) == 0 && path.size() > multipliers.size() &&
                   path.find('.', multipliers.size()) == std::string::npos) {
            document["model"]["freeze"]["lr_multipliers"][path.substr(multipliers.size())] = std::move(value);
        } else {
            fail(path.empty() ? "overrides" : path, "unknown field" + suggestionFor(path));
        }
    }
    return parseRunConfig(document);
}

nlohmann::json runConfigOverrides(const std::vector<std::string> &assignments)
{
    json overrides = json::object();
    for (const std::string &assignment : assignments) {
        const auto equals = assignment.find('=');
        if (equals == std::string::npos || equals == 0)
            throw EngineError("--set " + assignment + ": expected PATH=VALUE, e.g. optimizer.lr=0.1");
        const std::string path = assignment.substr(0, equals);
        const std::string text = assignment.substr(equals + 1);
        const json value = json::parse(text, nullptr, false);
        overrides[path] = value.is_discarded() ? json(text) : value;
    }
    return overrides;
}

ModelSpec modelSpecForDataset(const RunConfig &config, int datasetClasses)
{
    ModelSpec spec = config.model;
    if (spec.head.numClasses == 0)
        spec.head.numClasses = datasetClasses;
    else if (spec.head.numClasses != datasetClasses)
        throw EngineError("model.head.num_classes: " + std::to_string(spec.head.numClasses) + " differs from the " +
                          std::to_string(datasetClasses) + " classes of the dataset (use 0 to take the dataset's)");
    return spec;
}

} // namespace lathe::engine
