// Parameter importance (η² per parameter, normalised): a hand-computed case, a metric driven by
// the learning rate alone, conditional parameters, and the cases without an answer (too few
// completed trials, a metric that does not vary).
#include "engine/tune/param_importance.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace lathe;
using json = nlohmann::json;

namespace {

engine::SearchSpace space(bool withMomentum)
{
    json params = {{"optimizer.lr", {{"type", "log_uniform"}, {"low", 1e-4}, {"high", 1e-1}}},
                   {"optimizer.name", {{"type", "choice"}, {"values", {"sgd", "adamw"}}}}};
    if (withMomentum)
        params["optimizer.momentum"] = {
            {"type", "uniform"}, {"low", 0.5}, {"high", 0.99}, {"when", {{"optimizer.name", "sgd"}}}};
    return engine::parseSearchSpace({{"params", params}, {"budget", {{"epochs", 9}}}, {"metric", "val_top1"}});
}

engine::Trial trial(int id, json params, engine::TrialState state, std::optional<double> value)
{
    engine::Trial t;
    t.id = id;
    t.params = std::move(params);
    t.state = state;
    t.value = value;
    if (value)
        t.intermediate[1] = *value;
    return t;
}

void add(engine::StudyState &study, json params, double value,
         engine::TrialState state = engine::TrialState::Completed)
{
    const int id = int(study.trials.size());
    study.trials.push_back(trial(id, std::move(params), state,
                                 state == engine::TrialState::Completed ? std::optional<double>(value) : std::nullopt));
    if (state != engine::TrialState::Completed)
        study.trials.back().intermediate[1] = value;
}

double importanceOf(const std::vector<engine::ParamImportance> &result, const std::string &param)
{
    for (const engine::ParamImportance &p : result)
        if (p.param == param)
            return p.importance;
    ADD_FAILURE() << param << " missing";
    return std::nan("");
}

double sum(const std::vector<engine::ParamImportance> &result)
{
    double s = 0;
    for (const engine::ParamImportance &p : result)
        s += p.importance;
    return s;
}

} // namespace

// Four trials: name splits {1, 3} from {5, 7} (SS_between 16 of SS_total 20: η² 0.8); lr's two
// quantile bins hold {1, 5} and {3, 7} (SS_between 4: η² 0.2). Normalised: 0.8 and 0.2.
TEST(ParamImportance, MatchesAHandComputedDecomposition)
{
    engine::StudyState study;
    study.space = space(false);
    add(study, {{"optimizer.lr", 1e-4}, {"optimizer.name", "sgd"}}, 1);
    add(study, {{"optimizer.lr", 1e-2}, {"optimizer.name", "sgd"}}, 3);
    add(study, {{"optimizer.lr", 2e-4}, {"optimizer.name", "adamw"}}, 5);
    add(study, {{"optimizer.lr", 3e-2}, {"optimizer.name", "adamw"}}, 7);
    const auto result = engine::paramImportance(study);
    ASSERT_EQ(result.size(), 2u);
    EXPECT_EQ(result[0].param, "optimizer.name");
    EXPECT_NEAR(result[0].importance, 0.8, 1e-12);
    EXPECT_EQ(result[1].param, "optimizer.lr");
    EXPECT_NEAR(result[1].importance, 0.2, 1e-12);
}

// The metric is a function of lr alone; the optimizer is drawn independently of it. Pruned and
// running trials (with metrics that would say otherwise) do not count.
TEST(ParamImportance, FindsTheParameterThatDrivesTheMetric)
{
    engine::StudyState study;
    study.space = space(false);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> logLr(std::log(1e-4), std::log(1e-1));
    std::bernoulli_distribution sgd(0.5);
    for (int i = 0; i < 40; ++i) {
        const double lr = std::exp(logLr(rng));
        const std::string name = sgd(rng) ? "sgd" : "adamw";
        add(study, {{"optimizer.lr", lr}, {"optimizer.name", name}}, 0.9 - 0.15 * std::abs(std::log10(lr) + 2.5));
        add(study, {{"optimizer.lr", lr}, {"optimizer.name", name}}, name == "sgd" ? 0.0 : 1.0,
            i % 2 ? engine::TrialState::Pruned : engine::TrialState::Running);
    }
    const auto result = engine::paramImportance(study);
    ASSERT_EQ(result.size(), 2u);
    EXPECT_EQ(result[0].param, "optimizer.lr");
    EXPECT_GT(importanceOf(result, "optimizer.lr"), 0.8);
    EXPECT_LT(importanceOf(result, "optimizer.name"), 0.2);
    EXPECT_NEAR(sum(result), 1.0, 1e-12);
}

// momentum exists only with sgd: its "absent" group is the adamw trials, so when the optimizer
// decides the metric, momentum (through its absence) explains it just as much; lr hardly at all.
TEST(ParamImportance, CountsAnInactiveConditionalParameterAsItsOwnGroup)
{
    engine::StudyState study;
    study.space = space(true);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> logLr(std::log(1e-4), std::log(1e-1));
    std::uniform_real_distribution<double> momentum(0.5, 0.99);
    for (int i = 0; i < 30; ++i) {
        json params = {{"optimizer.lr", std::exp(logLr(rng))}};
        if (i % 2) {
            params["optimizer.name"] = "sgd";
            params["optimizer.momentum"] = momentum(rng);
        } else {
            params["optimizer.name"] = "adamw";
        }
        add(study, params, i % 2 ? 0.8 : 0.4);
    }
    const auto result = engine::paramImportance(study);
    ASSERT_EQ(result.size(), 3u);
    EXPECT_NEAR(importanceOf(result, "optimizer.name"), importanceOf(result, "optimizer.momentum"), 1e-12);
    EXPECT_GT(importanceOf(result, "optimizer.name"), 0.4);
    EXPECT_LT(importanceOf(result, "optimizer.lr"), 0.2);
    EXPECT_EQ(result[2].param, "optimizer.lr");
    EXPECT_NEAR(sum(result), 1.0, 1e-12);
}

TEST(ParamImportance, IsEmptyWithFewerThanTheMinimumOfCompletedTrials)
{
    engine::StudyState study;
    study.space = space(false);
    EXPECT_TRUE(engine::paramImportance(study).empty());
    for (int i = 0; i < engine::kImportanceMinTrials - 1; ++i)
        add(study, {{"optimizer.lr", 1e-3 * (i + 1)}, {"optimizer.name", "sgd"}}, 0.1 * i);
    // Pruned and failed trials do not make up the difference.
    add(study, {{"optimizer.lr", 1e-2}, {"optimizer.name", "adamw"}}, 0.5, engine::TrialState::Pruned);
    add(study, {{"optimizer.lr", 2e-2}, {"optimizer.name", "adamw"}}, 0.5, engine::TrialState::Failed);
    EXPECT_TRUE(engine::paramImportance(study).empty());
    add(study, {{"optimizer.lr", 5e-2}, {"optimizer.name", "adamw"}}, 0.7);
    const auto result = engine::paramImportance(study);
    ASSERT_EQ(result.size(), 2u);
    EXPECT_NEAR(sum(result), 1.0, 1e-12);
}

// 0.1 three times: the mean is not exactly 0.1 in doubles, but nothing varies.
TEST(ParamImportance, IsAllZeroWhenTheMetricDoesNotVary)
{
    engine::StudyState study;
    study.space = space(true);
    add(study, {{"optimizer.lr", 1e-4}, {"optimizer.name", "adamw"}}, 0.1);
    add(study, {{"optimizer.lr", 1e-3}, {"optimizer.name", "sgd"}, {"optimizer.momentum", 0.9}}, 0.1);
    add(study, {{"optimizer.lr", 1e-2}, {"optimizer.name", "sgd"}, {"optimizer.momentum", 0.6}}, 0.1);
    add(study, {{"optimizer.lr", 1e-1}, {"optimizer.name", "adamw"}}, 0.1);
    const auto result = engine::paramImportance(study);
    ASSERT_EQ(result.size(), 3u);
    for (const engine::ParamImportance &p : result) {
        EXPECT_FALSE(std::isnan(p.importance)) << p.param;
        EXPECT_EQ(p.importance, 0.0) << p.param;
    }
    // In the space's order when all tie.
    EXPECT_EQ(result[0].param, study.space.params[0].name);
}

// A parameter that never varies explains nothing; the one that does takes it all.
TEST(ParamImportance, GivesAConstantParameterNothing)
{
    engine::StudyState study;
    study.space = space(false);
    for (int i = 0; i < 6; ++i)
        add(study, {{"optimizer.lr", 1e-3 * (i + 1)}, {"optimizer.name", "sgd"}}, 0.1 * i);
    const auto result = engine::paramImportance(study);
    ASSERT_EQ(result.size(), 2u);
    EXPECT_EQ(importanceOf(result, "optimizer.name"), 0.0);
    EXPECT_NEAR(importanceOf(result, "optimizer.lr"), 1.0, 1e-12);
}
