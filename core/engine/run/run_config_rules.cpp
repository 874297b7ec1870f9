// The rules across fields of the run config (each documented by its summary in the reference),
// and validateRunConfig, which checks every field and then these rules.
#include "engine/run/run_config_fields.h"

#include "engine/base/device_name.h"
#include "engine/base/engine_error.h"
#include "engine/models/backbone_registry.h"

#include <algorithm>

namespace lathe::engine {
namespace run_config_detail {

using namespace json_fields;

namespace {

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

} // namespace

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
             for (const auto &entry : f.lrMultipliers) {
                 const std::string &stage = entry.first; // not a structured binding: clang 14 cannot capture one
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
        {"data.device_normalize on is not combined with mixup or cutmix (they mix float pixels in the pipeline).",
         [](const RunConfig &c) {
             const bool mixing = std::any_of(c.data.augment.begin(), c.data.augment.end(), [](const AugmentationSpec &a) {
                 return a.type == "mixup" || a.type == "cutmix";
             });
             if (c.data.deviceNormalize == "on" && mixing)
                 fail("data.device_normalize", "\"on\" hands uint8 pixels to the device, but mixup/cutmix in data.augment mix "
                                               "float pixels in the pipeline; use auto or off");
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
             if (!c.data.valSplit.empty() || c.data.folds > 0)
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
        {"data.folds is 0 or at least 2, and data.fold lies between 1 and data.folds when folds are on.",
         [](const RunConfig &c) {
             if (c.data.folds == 1)
                 fail("data.folds", "one fold leaves nothing to validate on: use 0 (off) or 2 and more");
             if (c.data.folds >= 2 && (c.data.fold < 1 || c.data.fold > c.data.folds))
                 fail("data.fold", "must lie between 1 and data.folds (" + std::to_string(c.data.folds) + "; got " +
                                       std::to_string(c.data.fold) + ")");
             if (c.data.folds == 0 && c.data.fold != 0)
                 fail("data.fold", "needs data.folds (2 or more)");
         }},
        {"feature_cache fixed_views embeds whole splits once: it cannot be combined with folds or a balanced sampler.",
         [](const RunConfig &c) {
             if (c.featureCache.mode != "fixed_views")
                 return; // auto turns itself off (trainer.cpp)
             if (c.data.folds > 0)
                 fail("feature_cache.mode", "cannot be combined with data.folds (use off)");
             if (c.data.balance == "balanced_sampler" || c.data.balance == "sqrt_sampler")
                 fail("feature_cache.mode", "cannot be combined with data.balance " + c.data.balance +
                                                " (use class_weights, or feature_cache off)");
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

} // namespace run_config_detail

void validateRunConfig(const RunConfig &config)
{
    // The per-field checks too: a config built in code (the GUI's) has not been through parsing.
    parseRunConfig(runConfigToJson(config));
    for (const run_config_detail::Rule &rule : run_config_detail::rules())
        rule.check(config);
}

} // namespace lathe::engine
