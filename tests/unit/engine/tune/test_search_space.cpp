// The search space: parsing, field-naming errors, conditions, applying a trial to a run config.
#include "engine/run/run_config.h"
#include "engine/tune/search_space.h"

#include "test_support.h"

#include <gtest/gtest.h>

#include <fstream>

using namespace lathe;
using json = nlohmann::json;
using lathe::test::errorOf;

namespace {

json exampleSpace()
{
    return json::parse(R"({
      "version": 1,
      "params": {
        "optimizer.lr": {"type": "log_uniform", "low": 1e-4, "high": 1e-1},
        "optimizer.name": {"type": "choice", "values": ["sgd", "adamw"]},
        "optimizer.momentum": {"type": "uniform", "low": 0.8, "high": 0.99, "when": {"optimizer.name": "sgd"}},
        "optimizer.batch_size": {"type": "int_uniform", "low": 16, "high": 128, "log": false},
        "schedule.name": {"type": "grid", "values": ["cosine", "step"]}
      },
      "budget": {"trials": 20, "epochs": 9, "seconds": 3600},
      "metric": "val_top1",
      "direction": "maximize"
    })");
}

// The example with params[name] replaced (or removed, for null).
json withParam(const std::string &name, const json &param)
{
    json doc = exampleSpace();
    if (param.is_null())
        doc["params"].erase(name);
    else
        doc["params"][name] = param;
    return doc;
}

std::string spaceError(const json &doc)
{
    return errorOf([&] { engine::parseSearchSpace(doc); });
}

} // namespace

TEST(SearchSpace, ParsesTheExample)
{
    const engine::SearchSpace space = engine::parseSearchSpace(exampleSpace());
    ASSERT_EQ(space.params.size(), 5u);
    const engine::ParamSpec *lr = space.find("optimizer.lr");
    ASSERT_NE(lr, nullptr);
    EXPECT_EQ(lr->type, engine::ParamType::LogUniform);
    EXPECT_DOUBLE_EQ(lr->low, 1e-4);
    EXPECT_DOUBLE_EQ(lr->high, 1e-1);
    EXPECT_TRUE(lr->logScale());
    const engine::ParamSpec *momentum = space.find("optimizer.momentum");
    ASSERT_NE(momentum, nullptr);
    ASSERT_EQ(momentum->when.size(), 1u);
    EXPECT_EQ(momentum->when[0].param, "optimizer.name");
    EXPECT_EQ(momentum->when[0].allowed, std::vector<json>{"sgd"});
    const engine::ParamSpec *batch = space.find("optimizer.batch_size");
    EXPECT_EQ(batch->type, engine::ParamType::IntUniform);
    EXPECT_FALSE(batch->log);
    EXPECT_EQ(space.find("schedule.name")->values, (std::vector<json>{"cosine", "step"}));
    EXPECT_EQ(space.budget.trials, 20);
    EXPECT_EQ(space.budget.epochs, 9);
    EXPECT_EQ(space.budget.seconds, 3600);
    EXPECT_EQ(space.metric, "val_top1");
    EXPECT_TRUE(space.maximize);

    // A parameter comes after the one its condition names.
    std::vector<std::string> order;
    for (const engine::ParamSpec &p : space.params)
        order.push_back(p.name);
    const auto at = [&](const std::string &n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
    EXPECT_LT(at("optimizer.name"), at("optimizer.momentum"));

    // The canonical JSON reads back equal, and is stable.
    const json canonical = engine::searchSpaceToJson(space);
    EXPECT_EQ(engine::searchSpaceToJson(engine::parseSearchSpace(canonical)), canonical);
}

TEST(SearchSpace, DefaultsFollowTheMetric)
{
    json doc = exampleSpace();
    doc.erase("direction");
    doc.erase("budget");
    doc["metric"] = "val_loss";
    const engine::SearchSpace space = engine::parseSearchSpace(doc);
    EXPECT_FALSE(space.maximize);
    EXPECT_EQ(space.budget.trials, 0);
    doc.erase("metric");
    EXPECT_TRUE(engine::parseSearchSpace(doc).maximize); // val_top1
}

TEST(SearchSpace, ErrorsNameTheField)
{
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "log_uniform"}, {"low", 0}, {"high", 0.1}})),
              "space.params.\"optimizer.lr\".low: must be > 0 for log_uniform (got 0)");
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "uniform"}, {"low", 0.1}, {"high", 0.01}})),
              "space.params.\"optimizer.lr\".high: must be > low (0.1) (got 0.01)");
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "uniform"}, {"low", 0.01}})),
              "space.params.\"optimizer.lr\".high: missing (the highest value to try)");
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "normal"}, {"low", 0.01}, {"high", 0.1}})),
              "space.params.\"optimizer.lr\".type: must be one of choice, uniform, log_uniform, int_uniform, grid "
              "(got \"normal\")");
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "uniform"}, {"low", 0.01}, {"high", 0.1}, {"step", 1}})),
              "space.params.\"optimizer.lr\".step: unknown key (a parameter has type, low, high, log, values, when)");
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "uniform"}, {"low", 0.01}, {"high", 0.1}, {"log", true}})),
              "space.params.\"optimizer.lr\".log: not used by uniform parameters");
    // A value the field itself refuses: the run config's reason.
    EXPECT_EQ(spaceError(withParam("optimizer.lr", {{"type", "uniform"}, {"low", -1}, {"high", 0.1}})),
              "space.params.\"optimizer.lr\".low: not a valid optimizer.lr: must be > 0 (got -1)");
    EXPECT_EQ(spaceError(withParam("optimizer.name", {{"type", "choice"}, {"values", {"sgd", "adam"}}})),
              "space.params.\"optimizer.name\".values[1]: not a valid optimizer.name: must be one of sgd, adamw, "
              "rmsprop (got \"adam\")");
    EXPECT_EQ(spaceError(withParam("optimizer.name", {{"type", "choice"}, {"values", {"sgd", "sgd"}}})),
              "space.params.\"optimizer.name\".values[1]: repeats the value \"sgd\"");
    EXPECT_EQ(spaceError(withParam("optimizer.name", {{"type", "choice"}, {"values", json::array()}})),
              "space.params.\"optimizer.name\".values: expected a non-empty array of values (got [])");
    // Numeric types need numeric fields; integer fields need int_uniform.
    EXPECT_EQ(spaceError(withParam("optimizer.batch_size", {{"type", "uniform"}, {"low", 16}, {"high", 128}})),
              "space.params.\"optimizer.batch_size\".type: uniform needs a number field (optimizer.batch_size is "
              "integer): use int_uniform");
    EXPECT_EQ(spaceError(withParam("optimizer.batch_size", {{"type", "int_uniform"}, {"low", 16.5}, {"high", 128}})),
              "space.params.\"optimizer.batch_size\".low: expected an integer (got 16.5)");
    EXPECT_EQ(spaceError(withParam("optimizer.batch_size", {{"type", "int_uniform"}, {"low", 0}, {"high", 128}, {"log", true}})),
              "space.params.\"optimizer.batch_size\".low: must be >= 1 for int_uniform with log (got 0)");
    EXPECT_EQ(spaceError(withParam("schedule.name", {{"type", "uniform"}, {"low", 0}, {"high", 1}})),
              "space.params.\"schedule.name\".type: uniform needs a number field (schedule.name is string): use "
              "choice or grid");

    // Unknown fields, with the run config's suggestion.
    EXPECT_EQ(spaceError(withParam("optimizer.learnig_rate", {{"type", "uniform"}, {"low", 0.01}, {"high", 0.1}})),
              "space.params.\"optimizer.learnig_rate\": unknown run-config field (did you mean optimizer.lr?)");
    EXPECT_EQ(spaceError(withParam("optimizer", {{"type", "choice"}, {"values", {1}}})),
              "space.params.\"optimizer\": is a section, not a field: name one of its fields, e.g. optimizer.accumulate_steps");

    // The document's own keys.
    json doc = exampleSpace();
    doc["version"] = 2;
    EXPECT_EQ(spaceError(doc), "space.version: this file is from a newer Lathe (version 2, this one reads up to 1)");
    doc = exampleSpace();
    doc["budget"]["trials"] = -1;
    EXPECT_EQ(spaceError(doc), "space.budget.trials: must be >= 0 (got -1)");
    doc = exampleSpace();
    doc["budget"]["epoch"] = 3;
    EXPECT_EQ(spaceError(doc), "space.budget.epoch: unknown key (a budget has trials, epochs, seconds)");
    doc = exampleSpace();
    doc["metric"] = "accuracy";
    EXPECT_EQ(spaceError(doc), "space.metric: must be one of val_loss, val_top1, val_map, train_loss (got \"accuracy\")");
    doc = exampleSpace();
    doc["direction"] = "up";
    EXPECT_EQ(spaceError(doc), "space.direction: must be one of maximize, minimize (got \"up\")");
    doc = exampleSpace();
    doc["params"] = json::object();
    EXPECT_EQ(spaceError(doc), "space.params: expected at least one parameter to vary");
    doc.erase("params");
    EXPECT_EQ(spaceError(doc), "space.params: missing (an object of run-config fields to vary)");
}

TEST(SearchSpace, ConditionErrors)
{
    const auto momentum = [](const json &w) {
        return json{{"type", "uniform"}, {"low", 0.8}, {"high", 0.99}, {"when", w}};
    };
    EXPECT_EQ(spaceError(withParam("optimizer.momentum", momentum({{"optimizer.nam", "sgd"}}))),
              "space.params.\"optimizer.momentum\".when.\"optimizer.nam\": no such parameter in this space (did you "
              "mean optimizer.name?)");
    EXPECT_EQ(spaceError(withParam("optimizer.momentum", momentum({{"optimizer.name", "sgdd"}}))),
              "space.params.\"optimizer.momentum\".when.\"optimizer.name\": \"sgdd\" is not one of the values of "
              "optimizer.name (\"sgd\", \"adamw\")");
    EXPECT_EQ(spaceError(withParam("optimizer.momentum", momentum({{"optimizer.name", {"sgd", "rmsprop"}}}))),
              "space.params.\"optimizer.momentum\".when.\"optimizer.name\"[1]: \"rmsprop\" is not one of the values "
              "of optimizer.name (\"sgd\", \"adamw\")");
    EXPECT_EQ(spaceError(withParam("optimizer.momentum", momentum({{"optimizer.momentum", 0.9}}))),
              "space.params.\"optimizer.momentum\".when.\"optimizer.momentum\": a parameter cannot depend on itself");
    EXPECT_EQ(spaceError(withParam("optimizer.momentum", momentum(json::object()))),
              "space.params.\"optimizer.momentum\".when: expected at least one condition (or leave \"when\" out)");
    EXPECT_EQ(spaceError(withParam("optimizer.momentum", momentum({{"optimizer.batch_size", 300}}))),
              "space.params.\"optimizer.momentum\".when.\"optimizer.batch_size\": 300 is outside "
              "optimizer.batch_size's range [16, 128]");

    // A cycle: a needs b, b needs a.
    json doc = exampleSpace();
    doc["params"]["optimizer.name"]["when"] = {{"schedule.name", "cosine"}};
    doc["params"]["schedule.name"]["when"] = {{"optimizer.name", "sgd"}};
    const std::string cycle = spaceError(doc);
    EXPECT_NE(cycle.find("the conditions form a cycle among"), std::string::npos) << cycle;
    EXPECT_NE(cycle.find("optimizer.name"), std::string::npos) << cycle;
    EXPECT_NE(cycle.find("schedule.name"), std::string::npos) << cycle;
}

TEST(SearchSpace, ConditionalParamsAreActiveOnlyWhenTheirConditionHolds)
{
    json doc = exampleSpace();
    // Also a list of allowed values, and a chain: nesterov needs momentum (which needs sgd).
    doc["params"]["optimizer.name"]["values"] = {"sgd", "adamw", "rmsprop"};
    doc["params"]["optimizer.momentum"]["when"] = {{"optimizer.name", {"sgd", "rmsprop"}}};
    doc["params"]["optimizer.nesterov"] = {{"type", "choice"}, {"values", {true, false}}, {"when", {{"optimizer.name", "sgd"}}}};
    const engine::SearchSpace space = engine::parseSearchSpace(doc);
    const engine::ParamSpec &momentum = *space.find("optimizer.momentum");
    const engine::ParamSpec &nesterov = *space.find("optimizer.nesterov");
    EXPECT_TRUE(engine::isParamActive(momentum, {{"optimizer.name", "sgd"}}));
    EXPECT_TRUE(engine::isParamActive(momentum, {{"optimizer.name", "rmsprop"}}));
    EXPECT_FALSE(engine::isParamActive(momentum, {{"optimizer.name", "adamw"}}));
    EXPECT_FALSE(engine::isParamActive(momentum, json::object()));
    EXPECT_TRUE(engine::isParamActive(nesterov, {{"optimizer.name", "sgd"}}));
    EXPECT_FALSE(engine::isParamActive(nesterov, {{"optimizer.name", "rmsprop"}}));
    EXPECT_TRUE(engine::isParamActive(*space.find("optimizer.lr"), json::object()));

    // checkTrialParams: exactly the active parameters, each in range.
    const json sgd = {{"optimizer.lr", 0.01}, {"optimizer.name", "sgd"}, {"optimizer.momentum", 0.9},
                      {"optimizer.nesterov", true}, {"optimizer.batch_size", 32}, {"schedule.name", "step"}};
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, sgd, "t"); }), "");
    json adamw = sgd;
    adamw["optimizer.name"] = "adamw";
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, adamw, "t"); }),
              "t.\"optimizer.momentum\": present although its condition does not hold");
    adamw.erase("optimizer.momentum");
    adamw.erase("optimizer.nesterov");
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, adamw, "t"); }), "");
    json bad = sgd;
    bad.erase("optimizer.momentum");
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, bad, "t"); }),
              "t.\"optimizer.momentum\": missing (the parameter is active in this trial)");
    bad = sgd;
    bad["optimizer.lr"] = 5;
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, bad, "t"); }),
              "t.\"optimizer.lr\": 5 is outside [0.0001, 0.1]");
    bad = sgd;
    bad["optimizer.batch_size"] = 32.5;
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, bad, "t"); }),
              "t.\"optimizer.batch_size\": expected an integer (got 32.5)");
    bad = sgd;
    bad["schedule.name"] = "cosine_restarts";
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, bad, "t"); }),
              "t.\"schedule.name\": \"cosine_restarts\" is not one of the parameter's values");
    bad = sgd;
    bad["loss.label_smoothing"] = 0.1;
    EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, bad, "t"); }),
              "t.\"loss.label_smoothing\": not a parameter of the study's space");
}

TEST(SearchSpace, AppliesTrialParamsToARunConfig)
{
    const json base = {{"data", {{"shards", "/data/flowers"}}}, {"optimizer", {{"name", "adamw"}, {"lr", 0.5}}}};
    const json params = {{"optimizer.lr", 0.003}, {"optimizer.momentum", 0.9}, {"schedule.name", "step"},
                         {"model.head.dropout", 0.2}};
    const json applied = engine::applyTrialParams(base, params);
    EXPECT_EQ(applied["optimizer"]["lr"], 0.003);
    EXPECT_EQ(applied["optimizer"]["name"], "adamw"); // untouched
    EXPECT_EQ(applied["optimizer"]["momentum"], 0.9);
    EXPECT_EQ(applied["schedule"]["name"], "step");   // a section that was missing
    EXPECT_EQ(applied["model"]["head"]["dropout"], 0.2);
    EXPECT_EQ(applied["data"]["shards"], "/data/flowers");
    // The result is a run config the run subsystem reads.
    const engine::RunConfig config = engine::parseRunConfig(applied);
    EXPECT_DOUBLE_EQ(config.optimizer.lr, 0.003);
    EXPECT_EQ(config.schedule.name, "step");

    EXPECT_EQ(errorOf([&] { engine::applyTrialParams(base, {{"optimizer.learnig_rate", 0.1}}); }),
              "params.\"optimizer.learnig_rate\": unknown run-config field (did you mean optimizer.lr?)");
    EXPECT_EQ(errorOf([&] { engine::applyTrialParams(base, {{"nonsense", 1}}); }),
              "params.\"nonsense\": unknown run-config field");
    EXPECT_EQ(errorOf([&] { engine::applyTrialParams({{"optimizer", 3}}, {{"optimizer.lr", 0.1}}); }),
              "params.\"optimizer.lr\": the run config's optimizer is not an object (got 3)");
}

TEST(SearchSpace, ReadsAFileAndNamesIt)
{
    test::TempDir tmp;
    const std::string path = tmp.file("space.json");
    std::ofstream(path) << exampleSpace().dump();
    EXPECT_EQ(engine::readSearchSpace(path).params.size(), 5u);
    std::ofstream(path) << "{\"params\": ";
    EXPECT_EQ(errorOf([&] { engine::readSearchSpace(path); }), path + ": not valid JSON");
    std::ofstream(path) << withParam("optimizer.lr", {{"type", "log_uniform"}, {"low", 0}, {"high", 0.1}}).dump();
    EXPECT_EQ(errorOf([&] { engine::readSearchSpace(path); }),
              path + ": space.params.\"optimizer.lr\".low: must be > 0 for log_uniform (got 0)");
    EXPECT_NE(errorOf([&] { engine::readSearchSpace(tmp.file("missing.json")); }).find("cannot read"), std::string::npos);
}
