#include "engine/run/run_config.h"

#include "engine/base/engine_error.h"
#include "engine/base/parse_limits.h"
#include "engine/models/backbone_registry.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

using lathe::engine::EngineError;
using lathe::engine::RunConfig;
using nlohmann::json;
namespace engine = lathe::engine;

namespace {

// The smallest valid config: every other field takes its default.
json minimal()
{
    return {{"data", {{"shards", "shards"}}}};
}

json patched(json patch)
{
    json doc = minimal();
    doc.merge_patch(patch);
    return doc;
}

json::json_pointer pointerOf(std::string path)
{
    for (char &ch : path)
        if (ch == '.')
            ch = '/';
    return json::json_pointer("/" + path);
}

// The message of the EngineError fn throws; a test failure when it throws nothing.
template <typename Fn>
std::string errorOf(Fn &&fn)
{
    try {
        fn();
    } catch (const EngineError &e) {
        return e.what();
    }
    ADD_FAILURE() << "no EngineError thrown";
    return {};
}

void writeText(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

} // namespace

TEST(RunConfig, EmptyObjectGivesTheDefaults)
{
    const RunConfig c = engine::parseRunConfig(json::object());
    EXPECT_EQ(engine::runConfigToJson(c), engine::runConfigToJson(RunConfig{}));
    EXPECT_EQ(c.version, 1);
    EXPECT_EQ(c.optimizer.name, "sgd");
    EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.01);
    EXPECT_EQ(c.optimizer.batchSize, 32);
    EXPECT_EQ(c.model.arch, "resnet18");
    EXPECT_EQ(c.model.head.numClasses, 0); // the dataset's class count
    EXPECT_EQ(c.model.freeze.policy, engine::FreezePolicy::TrainAll);
    EXPECT_EQ(c.devices, std::vector<std::string>{"cpu"});
    ASSERT_EQ(c.data.augment.size(), 2u);
    EXPECT_EQ(c.data.augment[0].type, "random_resized_crop");
    EXPECT_EQ(c.data.augment[1].type, "horizontal_flip");
    EXPECT_DOUBLE_EQ(c.data.augment[1].probability, 0.5);

    const json out = engine::runConfigToJson(c);
    EXPECT_EQ(out["version"], 1);
    EXPECT_EQ(out["data"]["train_split"], "train");
    EXPECT_EQ(out["model"]["freeze"]["policy"], "train_all");
    EXPECT_EQ(out["model"]["freeze"]["lr_multipliers"], json::object());
    EXPECT_EQ(out["model"]["weights"], "");
    EXPECT_EQ(out["optimizer"]["betas"], json::array({0.9, 0.999}));
    EXPECT_EQ(out["early_stopping"]["metric"], "val_loss");
    EXPECT_EQ(out["feature_cache"]["mode"], "auto");
}

// Every field set to a value other than its default: parsing it and writing it back gives the
// same document, so each field is read into and written from its own member.
TEST(RunConfig, RoundTripOfEveryFieldChanged)
{
    const json augment = engine::augmentationsToJson(engine::parseAugmentations(
        json::parse(R"([{"type": "vertical_flip", "p": 0.25}, {"type": "rotation", "degrees": [-10, 10]}])")));
    const json changed = {
        {"version", 1},
        {"precision", "bf16"},
        {"devices", {"cuda:1", "cuda:0"}},
        {"seed", 9223372036854775813ULL}, // above 2^63: kept exactly
        {"data",
         {{"shards", "/data/flowers"}, {"train_split", "training"}, {"val_split", "validation"}, {"image_size", 192},
          {"augment", augment}, {"workers", 3}, {"cache_mb", 512}, {"channels_last", true}, {"device_normalize", "on"},
          {"balance", "class_weights"}, {"folds", 3}, {"fold", 2}}},
        {"model",
         {{"arch", "resnet50"},
          {"in_channels", 1},
          {"weights", "zoo"},
          {"torchscript", "backbone.pt"},
          {"head", {{"num_classes", 7}, {"dropout", 0.25}, {"hidden_units", 256}}},
          {"freeze",
           {{"policy", "up_to_stage"},
            {"frozen_stages", 2},
            {"freeze_batch_norm", true},
            {"lr_multipliers", {{"layer1", 0.1}, {"layer4", 0.5}}},
            {"unfreeze_every_epochs", 3}}}}},
        {"optimizer",
         {{"name", "adamw"}, {"lr", 0.003}, {"batch_size", 128}, {"epochs", 40}, {"momentum", 0.8}, {"nesterov", true},
          {"weight_decay", 0.05}, {"no_decay_norms_and_biases", false}, {"betas", {0.8, 0.95}}, {"eps", 1e-6},
          {"alpha", 0.9}, {"clip_grad_norm", 1.5}, {"accumulate_steps", 4}}},
        {"loss", {{"name", "focal"}, {"label_smoothing", 0.1}, {"focal_gamma", 1.5}, {"asl_gamma_neg", 3.0},
                  {"asl_gamma_pos", 1.0}, {"asl_clip", 0.1}}},
        {"schedule",
         {{"name", "multi_step"}, {"warmup_epochs", 1.5}, {"warmup_start_factor", 0.1}, {"step_size", 7},
          {"milestones", {10, 20}}, {"gamma", 0.5}, {"min_lr", 1e-5}, {"restart_epochs", 5}, {"restart_multiplier", 2},
          {"max_lr", 0.1}, {"pct_start", 0.25}, {"div_factor", 10.0}, {"final_div_factor", 100.0},
          {"plateau_metric", "val_top1"}, {"plateau_factor", 0.5}, {"plateau_patience", 3}, {"plateau_threshold", 0.01}}},
        {"checkpoints", {{"every_steps", 500}, {"every_epochs", 2}, {"keep", 5}, {"best_metric", "val_loss"}}},
        {"early_stopping", {{"enabled", true}, {"metric", "train_loss"}, {"patience", 8}, {"min_delta", 0.001}}},
        {"ema", {{"enabled", true}, {"decay", 0.99}}},
        {"feature_cache", {{"mode", "fixed_views"}, {"views", 4}}},
        {"cuda", {{"graphs", true}, {"host_sync_steps", 10}}},
        {"distributed",
         {{"nnodes", 2}, {"node_rank", 1}, {"master", "10.0.0.1:29500"}, {"sync_batch_norm", true}, {"timeout_seconds", 60}}},
    };
    const RunConfig c = engine::parseRunConfig(changed);
    const json back = engine::runConfigToJson(c);
    const json defaults = engine::runConfigToJson(RunConfig{});
    for (const json &entry : engine::runConfigSchema()) {
        const std::string field = entry["field"];
        const auto pointer = pointerOf(field);
        ASSERT_TRUE(changed.contains(pointer)) << field << " missing from the test document";
        EXPECT_EQ(back.at(pointer), changed.at(pointer)) << field;
        if (field != "version") {
            EXPECT_NE(back.at(pointer), defaults.at(pointer)) << field << " not changed by the test";
        }
    }
    EXPECT_EQ(back, changed);
    EXPECT_EQ(c.seed, 9223372036854775813ULL);
    EXPECT_EQ(c.model.weightsPath, "zoo");
    EXPECT_EQ(c.model.torchscriptPath, "backbone.pt");
    EXPECT_EQ(c.model.freeze.policy, engine::FreezePolicy::UpToStage);
    ASSERT_EQ(c.model.freeze.lrMultipliers.size(), 2u);
    EXPECT_EQ(c.model.freeze.lrMultipliers[1].first, "layer4");
    EXPECT_DOUBLE_EQ(c.model.freeze.lrMultipliers[1].second, 0.5);
    EXPECT_EQ(c.data.cacheMb, 512u);
    EXPECT_EQ(c.schedule.milestones, (std::vector<int>{10, 20}));

    // And once more through the struct: parse(toJson(c)) == c.
    EXPECT_EQ(engine::runConfigToJson(engine::parseRunConfig(back)), back);
}

TEST(RunConfig, IntegersMayBeWrittenAsWholeFloats)
{
    const RunConfig c = engine::parseRunConfig(patched({{"optimizer", {{"epochs", 12.0}}}}));
    EXPECT_EQ(c.optimizer.epochs, 12);
    const RunConfig d = engine::parseRunConfig(patched({{"optimizer", {{"lr", 1}}}})); // an integer for a number
    EXPECT_DOUBLE_EQ(d.optimizer.lr, 1.0);
}

struct BadField
{
    json patch;
    std::string field;    // the message starts with it
    std::string contains; // and holds this
};

// Each class of per-field error names its field first and says why.
TEST(RunConfig, FieldErrorsNameTheField)
{
    const std::vector<BadField> cases{
        // unknown fields, with suggestions
        {{{"optimizer", {{"learnig_rate", 0.1}}}}, "optimizer.learnig_rate", "unknown field (did you mean lr?)"},
        {{{"optimizer", {{"batchSize", 8}}}}, "optimizer.batchSize", "did you mean batch_size?"},
        {{{"optimizer", {{"label_smoothing", 0.1}}}}, "optimizer.label_smoothing", "did you mean loss.label_smoothing?"},
        {{{"optimiser", {{"lr", 0.1}}}}, "optimiser", "did you mean optimizer?"},
        {{{"model", {{"freeze", {{"polcy", "head_only"}}}}}}, "model.freeze.polcy", "did you mean policy?"},
        {{{"zzz", 1}}, "zzz", "unknown field"},
        {{{"optimizer.lr", 0.1}}, "optimizer.lr", "nested objects"},
        // wrong JSON types
        {{{"optimizer", 3}}, "optimizer", "expected an object (got 3)"},
        {{{"optimizer", {{"lr", "0.1"}}}}, "optimizer.lr", "expected a number (got \"0.1\")"},
        {{{"optimizer", {{"epochs", 2.5}}}}, "optimizer.epochs", "expected an integer (got 2.5)"},
        {{{"optimizer", {{"epochs", "10"}}}}, "optimizer.epochs", "expected an integer"},
        {{{"optimizer", {{"nesterov", 1}}}}, "optimizer.nesterov", "expected true or false (got 1)"},
        {{{"devices", "cuda:0"}}, "devices", "expected an array"},
        {{{"devices", {"cpu", 0}}}, "devices[1]", "expected a string"},
        {{{"optimizer", {{"betas", {0.9}}}}}, "optimizer.betas", "expected two numbers"},
        {{{"schedule", {{"milestones", {10, "x"}}}}}, "schedule.milestones[1]", "expected an integer"},
        {{{"model", {{"freeze", {{"lr_multipliers", {0.1}}}}}}}, "model.freeze.lr_multipliers", "expected an object"},
        {{{"model", {{"freeze", {{"lr_multipliers", {{"layer4", "fast"}}}}}}}}, "model.freeze.lr_multipliers.layer4",
         "expected a number"},
        {{{"data", {{"augment", {{"type", "flip"}}}}}}, "data.augment", "expected an array"},
        {{{"data", {{"augment", json::array({{{"type", "no_such_step"}}})}}}}, "data.augment[0].type", "unknown augmentation"},
        {{{"seed", -1}}, "seed", "must be >= 0 (got -1)"},
        {{{"optimizer", {{"epochs", 1e12}}}}, "optimizer.epochs", "must be in [1, 100000]"},
        // out of range
        {{{"optimizer", {{"lr", -1}}}}, "optimizer.lr", "must be > 0 (got -1)"},
        {{{"optimizer", {{"lr", 0}}}}, "optimizer.lr", "must be > 0 (got 0)"},
        {{{"optimizer", {{"batch_size", 0}}}}, "optimizer.batch_size", "must be in [1, 65536] (got 0)"},
        {{{"optimizer", {{"epochs", 0}}}}, "optimizer.epochs", "(got 0)"},
        {{{"optimizer", {{"momentum", 1}}}}, "optimizer.momentum", "must be in [0, 1) (got 1)"},
        {{{"optimizer", {{"betas", {0.9, 1.0}}}}}, "optimizer.betas[1]", "must be in [0, 1)"},
        {{{"loss", {{"label_smoothing", 1.5}}}}, "loss.label_smoothing", "must be in [0, 1)"},
        {{{"ema", {{"decay", 1}}}}, "ema.decay", "must be in (0, 1)"},
        {{{"schedule", {{"pct_start", 0}}}}, "schedule.pct_start", "must be in (0, 1)"},
        {{{"schedule", {{"milestones", {0}}}}}, "schedule.milestones[0]", "must be >= 1"},
        {{{"feature_cache", {{"views", 0}}}}, "feature_cache.views", "(got 0)"},
        {{{"model", {{"freeze", {{"lr_multipliers", {{"layer4", -0.5}}}}}}}}, "model.freeze.lr_multipliers.layer4",
         "must be >= 0"},
        {{{"data", {{"train_split", ""}}}}, "data.train_split", "must not be empty"},
        // enums list what is allowed
        {{{"precision", "fp8"}}, "precision", "must be one of fp32, bf16, fp16 (got \"fp8\")"},
        {{{"optimizer", {{"name", "adam"}}}}, "optimizer.name", "must be one of sgd, adamw, rmsprop"},
        {{{"schedule", {{"name", "linear"}}}}, "schedule.name", "cosine_restarts"},
        {{{"schedule", {{"plateau_metric", "accuracy"}}}}, "schedule.plateau_metric", "val_loss, val_top1, val_map, train_loss"},
        {{{"model", {{"freeze", {{"policy", "all"}}}}}}, "model.freeze.policy", "train_all, head_only, up_to_stage"},
        {{{"data", {{"balance", "oversample"}}}}, "data.balance", "class_weights"},
        // devices
        {{{"devices", json::array()}}, "devices", "at least one device"},
        {{{"devices", {"gpu0"}}}, "devices[0]", "must be \"cpu\" or \"cuda:N\""},
        {{{"devices", {"cuda:"}}}, "devices[0]", "cuda:N"},
        {{{"devices", {"cuda:0", "cuda:0"}}}, "devices[1]", "listed twice"},
        {{{"devices", {"cpu", "cuda:0"}}}, "devices", "cannot be mixed"},
        // versions
        {{{"version", 2}}, "version", "newer Lathe"},
        {{{"version", 0}}, "version", ">= 1"},
        {{{"version", "1"}}, "version", "expected an integer"},
    };
    for (const BadField &bad : cases) {
        const json doc = patched(bad.patch);
        const std::string message = errorOf([&] { engine::parseRunConfig(doc); });
        EXPECT_EQ(message.rfind(bad.field + ": ", 0), 0u) << bad.patch.dump() << " -> " << message;
        EXPECT_NE(message.find(bad.contains), std::string::npos) << bad.patch.dump() << " -> " << message;
    }
    // (merge_patch reads null as "remove", so null is tested on its own.)
    EXPECT_EQ(errorOf([] { engine::parseRunConfig({{"data", {{"shards", nullptr}}}}); }),
              "data.shards: expected a string (got null)");
    EXPECT_NE(errorOf([] { engine::parseRunConfig(json::array()); }).find("expected a JSON object"), std::string::npos);
}

// Generic limits from the schema itself: every bound and enum it documents is enforced, and
// every field refuses a value of the wrong type, naming the field.
TEST(RunConfig, SchemaLimitsAreEnforced)
{
    for (const json &entry : engine::runConfigSchema()) {
        const std::string field = entry["field"];
        const std::string type = entry["type"];
        std::vector<json> bad;
        if (entry.contains("min") && (type == "number" || type == "integer"))
            bad.push_back(entry.value("exclusive_min", false) ? entry["min"].get<double>()
                                                              : entry["min"].get<double>() - 1);
        if (entry.contains("max") && (type == "number" || type == "integer"))
            bad.push_back(entry.value("exclusive_max", false) ? entry["max"].get<double>()
                                                              : entry["max"].get<double>() + 1);
        if (entry.contains("allowed"))
            bad.push_back("no-such-value");
        if (type == "string")
            bad.push_back(5);
        else
            bad.push_back("text");
        if (type == "integer")
            bad.push_back(1.5);
        for (const json &value : bad) {
            json doc = minimal();
            doc[pointerOf(field)] = value;
            const std::string message = errorOf([&] { engine::parseRunConfig(doc); });
            EXPECT_EQ(message.rfind(field, 0), 0u) << field << " = " << value.dump() << " -> " << message;
        }
    }
}

TEST(RunConfig, MissingVersionIsOne)
{
    const RunConfig c = engine::parseRunConfig({{"optimizer", {{"lr", 0.5}}}});
    EXPECT_EQ(c.version, 1);
    EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.5);
    EXPECT_EQ(engine::parseRunConfig({{"version", 1}}).version, 1);
}

struct BadRule
{
    json patch;
    std::string field;
    std::string contains;
};

TEST(RunConfig, CrossFieldRules)
{
    const std::vector<BadRule> cases{
        {{{"data", {{"shards", ""}}}}, "data.shards", "required"},
        {{{"precision", "fp16"}}, "precision", "use bf16 or fp32"},
        {{{"optimizer", {{"nesterov", true}, {"momentum", 0}}}}, "optimizer.nesterov", "momentum > 0"},
        {{{"schedule", {{"name", "multi_step"}}}}, "schedule.milestones", "at least one milestone"},
        {{{"schedule", {{"name", "multi_step"}, {"milestones", {5, 3}}}}}, "schedule.milestones[1]", "must increase"},
        {{{"schedule", {{"name", "multi_step"}, {"milestones", {5, 5}}}}}, "schedule.milestones[1]", "must increase"},
        {{{"schedule", {{"name", "multi_step"}, {"milestones", {5, 10}}}}}, "schedule.milestones[1]",
         "below optimizer.epochs (10; got 10)"},
        {{{"schedule", {{"name", "one_cycle"}, {"warmup_epochs", 1}}}}, "schedule.warmup_epochs", "one_cycle"},
        {{{"schedule", {{"warmup_epochs", 10}}}}, "schedule.warmup_epochs", "below optimizer.epochs"},
        {{{"schedule", {{"min_lr", 0.5}}}}, "schedule.min_lr", "below optimizer.lr"},
        {{{"schedule", {{"name", "plateau"}, {"plateau_metric", "val_top1"}}}, {"data", {{"val_split", ""}}},
          {"checkpoints", {{"best_metric", "train_loss"}}}},
         "schedule.plateau_metric",
         "validation split"},
        {{{"early_stopping", {{"enabled", true}, {"metric", "val_loss"}}}, {"data", {{"val_split", ""}}},
          {"checkpoints", {{"best_metric", "train_loss"}}}},
         "early_stopping.metric",
         "validation split"},
        {{{"data", {{"val_split", ""}}}}, "checkpoints.best_metric", "validation split"},
        {{{"feature_cache", {{"mode", "fixed_views"}}}}, "feature_cache.mode", "frozen"},
        {{{"feature_cache", {{"mode", "fixed_views"}}}, {"model", {{"freeze", {{"policy", "up_to_stage"}, {"frozen_stages", 3}}}}}},
         "feature_cache.mode",
         "frozen"},
        {{{"feature_cache", {{"mode", "fixed_views"}}},
          {"model", {{"freeze", {{"policy", "head_only"}, {"unfreeze_every_epochs", 2}}}}}},
         "feature_cache.mode",
         "frozen"},
        {{{"model", {{"arch", "resnet51"}}}}, "model.arch", "resnet50"},
        {{{"model", {{"arch", "torchscript"}}}}, "model.torchscript", "required"},
        {{{"model", {{"arch", "torchscript"}, {"torchscript", "b.pt"}, {"weights", "zoo"}}}}, "model.weights", "zoo"},
        {{{"model", {{"torchscript", "b.pt"}}}}, "model.torchscript", "only used"},
        {{{"model", {{"freeze", {{"policy", "up_to_stage"}, {"frozen_stages", 6}}}}}}, "model.freeze.frozen_stages",
         "below 6"},
        {{{"model", {{"freeze", {{"lr_multipliers", {{"layer9", 0.1}}}}}}}}, "model.freeze.lr_multipliers.layer9",
         "not a stage of resnet18"},
        {{{"model", {{"freeze", {{"unfreeze_every_epochs", 2}}}}}}, "model.freeze.unfreeze_every_epochs", "train_all"},
        {{{"distributed", {{"nnodes", 2}}}}, "distributed.master", "HOST:PORT"},
        {{{"distributed", {{"nnodes", 2}, {"master", "host"}}}}, "distributed.master", "HOST:PORT"},
        {{{"distributed", {{"nnodes", 2}, {"master", ":29500"}}}}, "distributed.master", "HOST:PORT"},
        {{{"distributed", {{"nnodes", 2}, {"master", "host:70000"}}}}, "distributed.master", "HOST:PORT"},
        {{{"distributed", {{"nnodes", 2}, {"node_rank", 2}, {"master", "h:1"}}}}, "distributed.node_rank",
         "below distributed.nnodes"},
    };
    for (const BadRule &bad : cases) {
        const RunConfig c = engine::parseRunConfig(patched(bad.patch)); // each field is fine on its own
        const std::string message = errorOf([&] { engine::validateRunConfig(c); });
        EXPECT_EQ(message.rfind(bad.field + ": ", 0), 0u) << bad.patch.dump() << " -> " << message;
        EXPECT_NE(message.find(bad.contains), std::string::npos) << bad.patch.dump() << " -> " << message;
    }

    const std::vector<json> good{
        minimal(),
        patched({{"precision", "fp16"}, {"devices", {"cuda:0"}}}),
        patched({{"precision", "bf16"}, {"devices", {"cpu", "cpu"}}}),
        patched({{"schedule", {{"name", "multi_step"}, {"milestones", {3, 6, 9}}}}}),
        patched({{"schedule", {{"name", "one_cycle"}}}}),
        patched({{"schedule", {{"name", "plateau"}, {"plateau_metric", "val_top1"}}}}),
        patched({{"data", {{"val_split", ""}}}, {"checkpoints", {{"best_metric", "train_loss"}}},
                 {"early_stopping", {{"enabled", true}, {"metric", "train_loss"}}}}),
        patched({{"feature_cache", {{"mode", "fixed_views"}, {"views", 3}}}, {"model", {{"freeze", {{"policy", "head_only"}}}}}}),
        patched({{"feature_cache", {{"mode", "fixed_views"}}},
                 {"model", {{"freeze", {{"policy", "up_to_stage"}, {"frozen_stages", 5}}}}}}), // all of resnet18 but the head
        patched({{"model", {{"arch", "vit_b_16"}, {"freeze", {{"policy", "up_to_stage"}, {"frozen_stages", 3}}}}}}),
        patched({{"model", {{"arch", "torchscript"}, {"torchscript", "b.pt"}, {"freeze", {{"lr_multipliers", {{"x", 2}}}}}}}}),
        patched({{"model", {{"freeze", {{"policy", "head_only"}, {"unfreeze_every_epochs", 2}}}}}}),
        patched({{"distributed", {{"nnodes", 2}, {"node_rank", 1}, {"master", "[fe80::1]:29500"}}}}),
        engine::runConfigExample(),
    };
    for (const json &doc : good)
        EXPECT_NO_THROW(engine::validateRunConfig(engine::parseRunConfig(doc))) << doc.dump();
}

// A config built in code (not parsed) gets the per-field checks too.
TEST(RunConfig, ValidateChecksFieldsOfAConfigBuiltInCode)
{
    RunConfig c;
    c.data.shards = "s";
    EXPECT_NO_THROW(engine::validateRunConfig(c));
    c.optimizer.lr = -0.1;
    EXPECT_EQ(errorOf([&] { engine::validateRunConfig(c); }).rfind("optimizer.lr: must be > 0", 0), 0u);
    c.optimizer.lr = 0.1;
    c.devices = {"tpu"};
    EXPECT_EQ(errorOf([&] { engine::validateRunConfig(c); }).rfind("devices[0]:", 0), 0u);
    c.devices = {"cpu"};
    c.version = 3;
    EXPECT_NE(errorOf([&] { engine::validateRunConfig(c); }).find("newer Lathe"), std::string::npos);
}

TEST(RunConfig, SchemaMatchesDefaultsAndWrittenFields)
{
    const json schema = engine::runConfigSchema();
    const json defaults = engine::runConfigToJson(RunConfig{});
    json remaining = defaults;
    std::set<std::string> seen;
    ASSERT_TRUE(schema.is_array());
    for (const json &entry : schema) {
        const std::string field = entry.at("field");
        EXPECT_TRUE(seen.insert(field).second) << field << " twice";
        const auto pointer = pointerOf(field);
        ASSERT_TRUE(defaults.contains(pointer)) << field << " is in the schema but not written";
        EXPECT_EQ(entry.at("default"), defaults.at(pointer)) << field;
        remaining.at(pointer.parent_pointer()).erase(pointer.back());
        EXPECT_FALSE(entry.at("type").get<std::string>().empty()) << field;
        const std::string description = entry.at("description");
        EXPECT_GT(description.size(), 15u) << field;
        EXPECT_EQ(description.back(), '.') << field;
        const std::string section = field.find('.') == std::string::npos ? "" : field.substr(0, field.find('.'));
        EXPECT_EQ(entry.at("section"), section) << field;
        if (entry.contains("allowed")) {
            const auto &allowed = entry["allowed"];
            EXPECT_NE(std::find(allowed.begin(), allowed.end(), entry["default"]), allowed.end()) << field;
        }
    }
    // What is left of the written document is only the (now empty) section objects.
    std::function<void(const json &, const std::string &)> onlyEmptyObjects = [&](const json &node, const std::string &at) {
        ASSERT_TRUE(node.is_object()) << at << " is written but not in the schema";
        for (auto it = node.begin(); it != node.end(); ++it)
            onlyEmptyObjects(it.value(), at + "/" + it.key());
    };
    onlyEmptyObjects(remaining, "");
    // The schema's defaults are themselves a valid config (data.shards aside).
    json fromSchema = json::object();
    for (const json &entry : schema)
        fromSchema[pointerOf(entry["field"])] = entry["default"];
    EXPECT_EQ(engine::runConfigToJson(engine::parseRunConfig(fromSchema)), defaults);
}

TEST(RunConfig, Overrides)
{
    RunConfig base = engine::parseRunConfig(minimal());
    const RunConfig c = engine::applyRunConfigOverrides(
        base, {{"optimizer.lr", 0.1},
               {"model.arch", "resnet50"},
               {"devices", "cuda:0,cuda:1"},
               {"schedule.milestones", "30,60"},
               {"model.freeze.lr_multipliers.layer4", 0.2},
               {"early_stopping", {{"enabled", true}, {"patience", 3}}}});
    EXPECT_DOUBLE_EQ(c.optimizer.lr, 0.1);
    EXPECT_EQ(c.model.arch, "resnet50");
    EXPECT_EQ(c.devices, (std::vector<std::string>{"cuda:0", "cuda:1"}));
    EXPECT_EQ(c.schedule.milestones, (std::vector<int>{30, 60}));
    ASSERT_EQ(c.model.freeze.lrMultipliers.size(), 1u);
    EXPECT_EQ(c.model.freeze.lrMultipliers[0].first, "layer4");
    EXPECT_TRUE(c.earlyStopping.enabled);
    EXPECT_EQ(c.earlyStopping.patience, 3);
    EXPECT_EQ(c.earlyStopping.metric, "val_loss"); // a section merge keeps the fields not named
    EXPECT_EQ(c.data.shards, "shards");            // untouched fields stay

    // From command-line assignments.
    const json overrides = engine::runConfigOverrides(
        {"optimizer.lr=0.05", "model.arch=vit_b_16", "model.weights=", "ema.enabled=true", "devices=[\"cuda:3\"]"});
    EXPECT_EQ(overrides["optimizer.lr"], 0.05);
    EXPECT_EQ(overrides["model.arch"], "vit_b_16");
    EXPECT_EQ(overrides["model.weights"], "");
    EXPECT_EQ(overrides["ema.enabled"], true);
    const RunConfig d = engine::applyRunConfigOverrides(base, overrides);
    EXPECT_DOUBLE_EQ(d.optimizer.lr, 0.05);
    EXPECT_EQ(d.model.arch, "vit_b_16");
    EXPECT_TRUE(d.ema.enabled);
    EXPECT_EQ(d.devices, std::vector<std::string>{"cuda:3"});
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, engine::runConfigOverrides({"devices="})); }),
              "devices: needs at least one device (\"cpu\" or \"cuda:N\")");

    // Errors name the path, as for a file.
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"optimizer.learnig_rate", 0.1}}); }),
              "optimizer.learnig_rate: unknown field (did you mean lr?)");
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"optimizer.lr", -2}}); }),
              "optimizer.lr: must be > 0 (got -2)");
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"schedule.milestones", "30,x"}}); })
                  .rfind("schedule.milestones[1]: expected an integer", 0),
              0u);
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"optimizer", 3}}); }).rfind("optimizer: expected an object", 0), 0u);
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"optimizer", {{"lr", nullptr}}}}); })
                  .rfind("optimizer.lr: expected a value", 0),
              0u);
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"optimizer", {{"lrr", 1}}}}); })
                  .rfind("optimizer.lrr: unknown field", 0),
              0u);
    EXPECT_EQ(errorOf([&] { engine::applyRunConfigOverrides(base, {{"a/b~", 1}}); }).rfind("a/b~: unknown field", 0), 0u);
    EXPECT_NE(errorOf([] { engine::runConfigOverrides({"optimizer.lr"}); }).find("PATH=VALUE"), std::string::npos);
}

TEST(RunConfig, ReadFileErrorsNameTheFile)
{
    lathe::test::TempDir dir;
    const std::string good = dir.file("good.json");
    writeText(good, R"({"version": 1, "data": {"shards": "x"}, "optimizer": {"lr": 0.2}})");
    EXPECT_DOUBLE_EQ(engine::readRunConfig(good).optimizer.lr, 0.2);

    const std::string notJson = dir.file("not-json.json");
    writeText(notJson, "optimizer: {lr: 0.1}\n");
    std::string message = errorOf([&] { engine::readRunConfig(notJson); });
    EXPECT_EQ(message.rfind(notJson + ": not valid JSON", 0), 0u) << message;

    const std::string truncated = dir.file("truncated.json");
    writeText(truncated, "{\"data\": {\"shards\": \"x\"}, \"optimizer\": {\"lr\": 0.");
    message = errorOf([&] { engine::readRunConfig(truncated); });
    EXPECT_EQ(message.rfind(truncated + ": not valid JSON", 0), 0u) << message;
    EXPECT_NE(message.find("line 1"), std::string::npos) << message;

    const std::string empty = dir.file("empty.json");
    writeText(empty, "\n");
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(empty); }).rfind(empty + ": empty file", 0), 0u);

    const std::string badField = dir.file("bad-field.json");
    writeText(badField, R"({"optimizer": {"lr": -1}})");
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(badField); }), badField + ": optimizer.lr: must be > 0 (got -1)");

    const std::string binary = dir.file("binary.json");
    writeText(binary, std::string("\x89PNG\r\n\x1a\n\0\0\0", 11));
    message = errorOf([&] { engine::readRunConfig(binary); });
    EXPECT_EQ(message.rfind(binary + ": not valid JSON", 0), 0u) << message;
    EXPECT_TRUE(std::all_of(message.begin(), message.end(), [](char ch) { return ch >= 0x20 && ch < 0x7f; })) << message;

    const std::string array = dir.file("array.json");
    writeText(array, "[1, 2]");
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(array); }),
              array + ": expected a JSON object holding a run config (got array)");

    EXPECT_EQ(errorOf([&] { engine::readRunConfig(dir.file("missing.json")); }), dir.file("missing.json") + ": no such file");
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(dir.path().string()); }), dir.path().string() + ": not a regular file");

    // Deep nesting is refused before parsing; a deep value given in code is reported briefly.
    const std::string deep = dir.file("deep.json");
    writeText(deep, "{\"optimizer\": {\"lr\": " + std::string(200000, '[') + std::string(200000, ']') + "}}");
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(deep); }),
              deep + ": not a run config (JSON nested 200002 levels deep, over the limit json.depth = 64)");
    json value = json::parse(std::string(1000, '[') + std::string(1000, ']'));
    message = errorOf([&] { engine::parseRunConfig({{"optimizer", {{"lr", value}}}}); });
    EXPECT_EQ(message, "optimizer.lr: expected a number (got [[[[...]]]])");
}

// run_config.bytes and json.depth (engine/base/parse_limits.h) at the limit and one over.
TEST(RunConfig, LimitsAtTheLimitAndOneOver)
{
    namespace pl = engine::parse_limits;
    lathe::test::TempDir dir;
    const std::string path = dir.file("limit.json");
    // A config padded with spaces to exactly run_config.bytes is read; one byte more is refused.
    std::string text = R"({"data": {"shards": "x"}, "optimizer": {"lr": 0.5}})";
    text.resize(pl::kRunConfigBytes.value, ' ');
    writeText(path, text);
    EXPECT_EQ(engine::readRunConfig(path).optimizer.lr, 0.5);
    writeText(path, text + " ");
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(path); }),
              path + ": too large for a run config (16777217 bytes, over the limit run_config.bytes = 16777216)");
    text = {};

    // JSON nested to json.depth passes that check (and fails on the field); one level more is refused.
    const auto nested = [](std::uint64_t depth) {
        return R"({"optimizer": {"lr": )" + std::string(depth - 2, '[') + std::string(depth - 2, ']') + "}}";
    };
    writeText(path, nested(pl::kJsonDepth.value));
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(path); }).rfind(path + ": optimizer.lr: expected a number", 0), 0u);
    writeText(path, nested(pl::kJsonDepth.value + 1));
    EXPECT_EQ(errorOf([&] { engine::readRunConfig(path); }),
              path + ": not a run config (JSON nested 65 levels deep, over the limit json.depth = 64)");
}

TEST(RunConfig, ReferenceDocumentsEveryField)
{
    const std::string md = engine::runConfigReference();
    for (const json &entry : engine::runConfigSchema())
        EXPECT_NE(md.find("| `" + entry["field"].get<std::string>() + "` |"), std::string::npos) << entry["field"];
    EXPECT_NE(md.find("## `optimizer`"), std::string::npos);
    EXPECT_NE(md.find("## Rules across fields"), std::string::npos);
    EXPECT_NE(md.find("```json"), std::string::npos);
    EXPECT_NE(md.find("\"resnet50\""), std::string::npos); // the example
}

TEST(RunConfig, FreezePolicyNames)
{
    for (auto policy : {engine::FreezePolicy::TrainAll, engine::FreezePolicy::HeadOnly, engine::FreezePolicy::UpToStage})
        EXPECT_EQ(engine::freezePolicyFromName(engine::freezePolicyName(policy)), policy);
    EXPECT_NE(errorOf([] { engine::freezePolicyFromName("frozen"); }).find("train_all, head_only, up_to_stage"),
              std::string::npos);
}

TEST(RunConfig, ModelSpecForDataset)
{
    RunConfig c;
    EXPECT_EQ(engine::modelSpecForDataset(c, 10).head.numClasses, 10);
    c.model.head.numClasses = 10;
    EXPECT_EQ(engine::modelSpecForDataset(c, 10).head.numClasses, 10);
    EXPECT_EQ(errorOf([&] { engine::modelSpecForDataset(c, 5); }).rfind("model.head.num_classes: 10 differs", 0), 0u);
}
