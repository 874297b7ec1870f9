// The strategies: grid, random and TPE samplers on synthetic objectives (no training), and the
// ASHA, Hyperband and median pruners against their definitions.
#include "engine/tune/grid_sampler.h"
#include "engine/tune/hyperband_pruner.h"
#include "engine/tune/median_pruner.h"
#include "engine/tune/random_sampler.h"
#include "engine/tune/successive_halving_pruner.h"
#include "engine/tune/tpe_sampler.h"
#include "engine/tune/truncated_normal.h"

#include "synthetic_objectives.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

using namespace lathe;
using json = nlohmann::json;
using lathe::test::errorOf;

namespace {

engine::ParamSpec categorical(const std::string &name, std::vector<json> values, engine::ParamType type = engine::ParamType::Grid)
{
    engine::ParamSpec p;
    p.name = name;
    p.type = type;
    p.values = std::move(values);
    return p;
}

engine::ParamSpec numeric(const std::string &name, engine::ParamType type, double low, double high, bool log = false)
{
    engine::ParamSpec p;
    p.name = name;
    p.type = type;
    p.low = low;
    p.high = high;
    p.log = log;
    return p;
}

// optimizer.name (sgd, adamw, rmsprop); momentum only for sgd and rmsprop; nesterov only for sgd.
engine::SearchSpace conditionalSpace()
{
    engine::SearchSpace space;
    space.params.push_back(numeric("optimizer.lr", engine::ParamType::LogUniform, 1e-4, 1e-1));
    space.params.push_back(categorical("optimizer.name", {"sgd", "adamw", "rmsprop"}, engine::ParamType::Choice));
    engine::ParamSpec momentum = numeric("optimizer.momentum", engine::ParamType::Uniform, 0.8, 0.99);
    momentum.when.push_back({"optimizer.name", {"sgd", "rmsprop"}});
    space.params.push_back(momentum);
    engine::ParamSpec nesterov = categorical("optimizer.nesterov", {true, false}, engine::ParamType::Choice);
    nesterov.when.push_back({"optimizer.name", {"sgd"}});
    space.params.push_back(nesterov);
    space.params.push_back(numeric("optimizer.batch_size", engine::ParamType::IntUniform, 16, 128, true));
    return space;
}

engine::Trial completed(int id, json params, double value)
{
    engine::Trial t;
    t.id = id;
    t.params = std::move(params);
    t.state = engine::TrialState::Completed;
    t.value = value;
    return t;
}

engine::Trial withCurve(int id, std::map<int, double> curve, engine::TrialState state = engine::TrialState::Running)
{
    engine::Trial t;
    t.id = id;
    t.state = state;
    t.intermediate = std::move(curve);
    if (state == engine::TrialState::Completed)
        t.value = t.intermediate.rbegin()->second;
    return t;
}

// A sampler's bests over seeds 0..n-1.
std::vector<double> bests(const engine::Sampler &sampler, const test::Objective &o, int seeds, int trials)
{
    std::vector<double> out;
    for (int seed = 0; seed < seeds; ++seed)
        out.push_back(test::bestOf(sampler, o, static_cast<std::uint64_t>(seed), trials));
    return out;
}

} // namespace

TEST(TruncatedNormal, MatchesTheNormalDistribution)
{
    namespace tn = engine::truncated_normal;
    for (double p : {1e-300, 1e-20, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-12})
        EXPECT_NEAR(std::exp(tn::logCdf(tn::ppf(p))) / p, 1.0, 1e-9) << p;
    EXPECT_NEAR(tn::ppf(0.975), 1.959963984540054, 1e-12);
    // log Φ far in the tail (erfc underflows there): Φ(-40) = 3.655893540915e-350.
    EXPECT_NEAR(tn::logCdf(-40), std::log(3.655893540915) - 350 * std::log(10.0), 1e-8);
    EXPECT_NEAR(std::exp(tn::logMass(-1, 1)), 0.682689492137086, 1e-12);
    EXPECT_NEAR(tn::logMass(30, 31), tn::logMass(-31, -30), 1e-12);
    // Draws stay in range, and the density integrates to 1.
    std::mt19937_64 rng(3);
    for (int i = 0; i < 1000; ++i) {
        const double x = tn::sample(0.2, 0.05, 0.5, 0.9, engine::uniform01(rng));
        ASSERT_GE(x, 0.5);
        ASSERT_LE(x, 0.9);
    }
    double integral = 0;
    const int steps = 20000;
    for (int i = 0; i < steps; ++i) {
        const double x = -1 + 3.0 * (i + 0.5) / steps;
        integral += std::exp(tn::logPdf(x, 0.3, 0.4, -1, 2)) * 3.0 / steps;
    }
    EXPECT_NEAR(integral, 1.0, 1e-6);
}

TEST(GridSampler, EnumeratesExactlyTheProduct)
{
    engine::SearchSpace space;
    space.params.push_back(categorical("schedule.name", {"cosine", "step", "constant"}));
    space.params.push_back(categorical("optimizer.name", {"sgd", "adamw"}, engine::ParamType::Choice));
    engine::ParamSpec momentum = categorical("optimizer.momentum", {0.9, 0.95});
    momentum.when.push_back({"optimizer.name", {"sgd"}});
    space.params.push_back(momentum);
    const engine::GridSampler grid(space);

    // 3 schedules x (sgd x 2 momenta + adamw) = 9, the first parameter varying slowest.
    std::vector<json> expected;
    for (const char *schedule : {"cosine", "step", "constant"}) {
        expected.push_back({{"schedule.name", schedule}, {"optimizer.name", "sgd"}, {"optimizer.momentum", 0.9}});
        expected.push_back({{"schedule.name", schedule}, {"optimizer.name", "sgd"}, {"optimizer.momentum", 0.95}});
        expected.push_back({{"schedule.name", schedule}, {"optimizer.name", "adamw"}});
    }
    EXPECT_EQ(grid.combinations(), expected);

    std::vector<engine::Trial> trials;
    std::mt19937_64 rng(0);
    for (int id = 0; id < 9; ++id) {
        const auto params = grid.suggest(trials, rng);
        ASSERT_TRUE(params) << id;
        EXPECT_EQ(*params, expected[static_cast<std::size_t>(id)]);
        trials.push_back(completed(id, *params, id));
    }
    EXPECT_FALSE(grid.suggest(trials, rng)); // exhausted

    // Resumed with trials in any state (a failed one included), it carries on with what is left.
    std::vector<engine::Trial> some{completed(0, expected[0], 1), completed(1, expected[2], 1)};
    some[1].state = engine::TrialState::Failed;
    some[1].value.reset();
    EXPECT_EQ(*grid.suggest(some, rng), expected[1]);

    space.params.push_back(numeric("optimizer.lr", engine::ParamType::LogUniform, 1e-4, 1e-1));
    EXPECT_EQ(errorOf([&] { engine::GridSampler g(space); }),
              "space.params.\"optimizer.lr\": the grid strategy takes only grid and choice parameters (this one is "
              "log_uniform): list its values as a grid, or use random or tpe");
}

TEST(GridSampler, FindsTheQuadraticsOptimumOnItsGrid)
{
    // An 11 x 11 grid over [-5, 5]^2 holds the optimum (1, -2): found within the 121 trials.
    test::Objective o = test::quadratic();
    std::vector<json> values;
    for (int i = -5; i <= 5; ++i)
        values.push_back(static_cast<double>(i));
    engine::SearchSpace space = o.space;
    for (engine::ParamSpec &p : space.params) {
        p.type = engine::ParamType::Grid;
        p.values = values;
    }
    o.space = space;
    std::vector<engine::Trial> history;
    EXPECT_EQ(test::bestOf(engine::GridSampler(space), o, 0, 500, &history), 0.0);
    EXPECT_EQ(history.size(), 121u);
}

TEST(RandomSampler, DrawsWithinTheSpaceAndOnlyActiveParams)
{
    const engine::SearchSpace space = conditionalSpace();
    const engine::RandomSampler sampler(space);
    std::map<std::string, int> names;
    std::vector<double> logLr;
    for (int id = 0; id < 600; ++id) {
        std::mt19937_64 rng = engine::trialRng(11, id);
        const json params = *sampler.suggest({}, rng);
        EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, params, "params"); }), "") << params.dump();
        const std::string name = params["optimizer.name"];
        ++names[name];
        EXPECT_EQ(params.contains("optimizer.momentum"), name != "adamw") << params.dump();
        EXPECT_EQ(params.contains("optimizer.nesterov"), name == "sgd") << params.dump();
        EXPECT_TRUE(params["optimizer.batch_size"].is_number_integer());
        logLr.push_back(std::log10(params["optimizer.lr"].get<double>()));
    }
    for (const char *n : {"sgd", "adamw", "rmsprop"})
        EXPECT_GT(names[n], 150) << n;
    // Uniform in log space: the median exponent is near -2.5.
    EXPECT_NEAR(test::median(logLr), -2.5, 0.15);
}

TEST(Samplers, SameSeedAndHistoryGiveTheSameSuggestion)
{
    const engine::SearchSpace space = conditionalSpace();
    const engine::TpeSampler tpe(space, {});
    const engine::RandomSampler random(space);
    // A history past TPE's start-up trials.
    std::vector<engine::Trial> history;
    for (int id = 0; id < 15; ++id) {
        std::mt19937_64 rng = engine::trialRng(5, id);
        const json params = *random.suggest(history, rng);
        history.push_back(completed(id, params, std::log10(params["optimizer.lr"].get<double>())));
    }
    for (const engine::Sampler *s : std::vector<const engine::Sampler *>{&tpe, &random}) {
        std::mt19937_64 a = engine::trialRng(5, 15), b = engine::trialRng(5, 15), c = engine::trialRng(6, 15);
        const json first = *s->suggest(history, a);
        EXPECT_EQ(*s->suggest(history, b), first) << s->name();
        EXPECT_NE(*s->suggest(history, c), first) << s->name();
        EXPECT_EQ(errorOf([&] { engine::checkTrialParams(space, first, "p"); }), "") << first.dump();
    }
}

TEST(TpeSampler, HandlesConditionalParams)
{
    // A loss: lr is best small; sgd is best. TPE learns both, and draws momentum/nesterov only
    // for the optimizers that have them, from the trials where they were active.
    engine::SearchSpace space = conditionalSpace();
    space.maximize = false;
    const engine::TpeSampler tpe(space, {});
    std::vector<engine::Trial> history;
    int sgdLate = 0;
    for (int id = 0; id < 80; ++id) {
        std::mt19937_64 rng = engine::trialRng(1, id);
        const json params = *tpe.suggest(history, rng);
        ASSERT_EQ(errorOf([&] { engine::checkTrialParams(space, params, "p"); }), "") << params.dump();
        const std::string name = params["optimizer.name"];
        double loss = std::log10(params["optimizer.lr"].get<double>()) + (name == "sgd" ? 0 : 2);
        if (params.contains("optimizer.momentum"))
            loss += std::abs(params["optimizer.momentum"].get<double>() - 0.9);
        history.push_back(completed(id, params, loss));
        if (id >= 50 && name == "sgd")
            ++sgdLate;
    }
    EXPECT_GE(sgdLate, 20); // of the last 30
}

TEST(TpeSampler, OptionsAreChecked)
{
    EXPECT_EQ(engine::TpeSampler::Options::fromJson(json::object(), "o").toJson(),
              (json{{"n_startup_trials", 10}, {"n_ei_candidates", 24}, {"prior_weight", 1.0}, {"gamma", 0.1},
                    {"gamma_max", 25}}));
    EXPECT_EQ(errorOf([] { engine::TpeSampler::Options::fromJson({{"n_ei_candidates", 0}}, "o"); }),
              "o.n_ei_candidates: must be >= 1 (got 0)");
    EXPECT_EQ(errorOf([] { engine::TpeSampler::Options::fromJson({{"multivariate", true}}, "o"); }),
              "o.multivariate: unknown tpe option (n_startup_trials, n_ei_candidates, prior_weight, gamma, gamma_max)");
}

// Each strategy finds the optimum of each objective within its budget (median over 30 seeds),
// and TPE's average best beats random search's at the same budget.
TEST(Samplers, FindTheOptimaOfSyntheticObjectives)
{
    struct Case
    {
        test::Objective o;
        double tpeWithin;     // median best - optimum, TPE
        double randomWithin;  // the same for random search, at the same budget
    };
    const std::vector<Case> cases{{test::quadratic(), 0.1, 0.6},
                                  {test::branin(), 0.15, 1.0},
                                  {test::hartmann6(), 0.3, 1.2}};
    for (const Case &c : cases) {
        const std::vector<double> tpe = bests(engine::TpeSampler(c.o.space, {}), c.o, 30, c.o.trials);
        const std::vector<double> random = bests(engine::RandomSampler(c.o.space), c.o, 30, c.o.trials);
        std::printf("%s (%d trials, optimum %g): TPE median %.4f mean %.4f, random median %.4f mean %.4f\n",
                    c.o.name.c_str(), c.o.trials, c.o.optimum, test::median(tpe), test::mean(tpe),
                    test::median(random), test::mean(random));
        EXPECT_LT(test::median(tpe) - c.o.optimum, c.tpeWithin) << c.o.name;
        EXPECT_LT(test::median(random) - c.o.optimum, c.randomWithin) << c.o.name;
        EXPECT_LT(test::mean(tpe), test::mean(random)) << c.o.name;
    }
}

TEST(SuccessiveHalvingPruner, PromotesByItsDefinition)
{
    // eta = 3, rungs at epochs 1 and 3 (9 is the end). Maximising; each trial reports in turn
    // and is judged against the trials that reached the rung before it (asynchronous).
    const engine::SuccessiveHalvingPruner asha(true, {1, 3, 9});
    EXPECT_EQ(asha.rungEpochs(), (std::vector<int>{1, 3}));
    std::vector<engine::Trial> trials;
    const auto report = [&](int id, int epoch, double value) {
        if (static_cast<std::size_t>(id) == trials.size())
            trials.push_back(withCurve(id, {}));
        trials[static_cast<std::size_t>(id)].intermediate[epoch] = value;
        return asha.onEpoch(trials, trials[static_cast<std::size_t>(id)], epoch);
    };
    // Rung 0 (epoch 1), n trials there: the best max(1, floor(n / 3)) go on.
    //   t0 0.50: n=1, top 1 of [0.50]                 -> on
    //   t1 0.40: n=2, top 1 of [0.50 0.40]            -> pruned
    //   t2 0.60: n=3, top 1 of [0.60 0.50 0.40]       -> on
    //   t3 0.55: n=4, top 1 is 0.60                   -> pruned
    //   t4 0.30: n=5, top 1                           -> pruned
    //   t5 0.58: n=6, top 2 = 0.60 0.58               -> on
    //   t6 0.52: n=7, top 2                           -> pruned
    const std::vector<std::pair<double, bool>> rung0{{0.50, false}, {0.40, true}, {0.60, false}, {0.55, true},
                                                     {0.30, true},  {0.58, false}, {0.52, true}};
    for (std::size_t i = 0; i < rung0.size(); ++i) {
        const engine::PruneDecision d = report(static_cast<int>(i), 1, rung0[i].first);
        EXPECT_EQ(d.prune, rung0[i].second) << "trial " << i;
        EXPECT_EQ(d.rung, 0);
    }
    // Between rungs nothing is decided.
    EXPECT_FALSE(report(0, 2, 0.1).prune);
    EXPECT_EQ(report(2, 2, 0.1).rung, 0);
    // Rung 1 (epoch 3), among those that got there: t0 0.70 (n=1 on), t2 0.65 (n=2, top 1 is
    // 0.70: pruned), t5 0.80 (n=3, top 1: on).
    EXPECT_FALSE(report(0, 3, 0.70).prune);
    EXPECT_EQ(report(2, 3, 0.65).prune, true);
    const engine::PruneDecision t5 = report(5, 3, 0.80);
    EXPECT_FALSE(t5.prune);
    EXPECT_EQ(t5.rung, 1);
    // Past the last rung a trial runs to its end.
    EXPECT_FALSE(report(5, 8, 0.01).prune);
    EXPECT_EQ(report(5, 9, 0.0).rung, 1);

    // Minimising, the order turns round.
    const engine::SuccessiveHalvingPruner min(false, {1, 2, 8});
    std::vector<engine::Trial> losses{withCurve(0, {{1, 0.5}}), withCurve(1, {{1, 0.7}})};
    EXPECT_FALSE(min.onEpoch(losses, losses[0], 1).prune);
    EXPECT_TRUE(min.onEpoch(losses, losses[1], 1).prune);
    EXPECT_EQ(min.rungEpochs(), (std::vector<int>{1, 2, 4}));

    EXPECT_EQ(errorOf([] { engine::SuccessiveHalvingPruner::Options::fromJson(json::object(), "p"); }),
              "p.max_resource: missing: the most epochs a trial trains (set budget.epochs in the space)");
    EXPECT_EQ(errorOf([] { engine::SuccessiveHalvingPruner::Options::fromJson({{"max_resource", 9}, {"reduction_factor", 1}}, "p"); }),
              "p.reduction_factor: must be >= 2 (got 1)");
}

TEST(HyperbandPruner, BracketsMatchThePapersTable)
{
    // Li et al. 2018, Table 1 (R = 81, eta = 3): n_i and r_i per bracket s.
    const std::vector<std::vector<std::pair<int, double>>> table{
        {{81, 1}, {27, 3}, {9, 9}, {3, 27}, {1, 81}},
        {{34, 3}, {11, 9}, {3, 27}, {1, 81}},
        {{15, 9}, {5, 27}, {1, 81}},
        {{8, 27}, {2, 81}},
        {{5, 81}}};
    const auto brackets = engine::HyperbandPruner::brackets(81, 3);
    ASSERT_EQ(brackets.size(), table.size());
    for (std::size_t b = 0; b < table.size(); ++b) {
        EXPECT_EQ(brackets[b].s, 4 - static_cast<int>(b));
        ASSERT_EQ(brackets[b].rounds.size(), table[b].size()) << "s=" << brackets[b].s;
        for (std::size_t i = 0; i < table[b].size(); ++i) {
            EXPECT_EQ(brackets[b].rounds[i].trials, table[b][i].first) << "s=" << brackets[b].s << " i=" << i;
            EXPECT_DOUBLE_EQ(brackets[b].rounds[i].epochs, table[b][i].second) << "s=" << brackets[b].s << " i=" << i;
        }
    }

    // Trials are dealt to brackets in proportion to n_s, interleaved from the most aggressive.
    const engine::HyperbandPruner hyperband(true, {1, 3, 81});
    EXPECT_EQ(hyperband.bracketOf(0), 4);
    EXPECT_EQ(hyperband.bracketOf(1), 3);
    EXPECT_EQ(hyperband.bracketOf(4), 0);
    std::map<int, int> dealt;
    for (int id = 0; id < 143; ++id)
        ++dealt[hyperband.bracketOf(id)];
    EXPECT_EQ(dealt, (std::map<int, int>{{4, 81}, {3, 34}, {2, 15}, {1, 8}, {0, 5}}));
    EXPECT_EQ(hyperband.rungEpochs(4), (std::vector<int>{1, 3, 9, 27}));
    EXPECT_EQ(hyperband.rungEpochs(2), (std::vector<int>{9, 27}));
    EXPECT_TRUE(hyperband.rungEpochs(0).empty());

    // Within a bracket, successive halving among that bracket's trials only.
    std::vector<engine::Trial> trials{withCurve(0, {{1, 0.9}}), withCurve(1, {{3, 0.95}}), withCurve(5, {{1, 0.5}})};
    trials[0].bracket = 4;
    trials[1].bracket = 3;
    trials[2].bracket = 4;
    EXPECT_TRUE(hyperband.onEpoch(trials, trials[2], 1).prune);   // behind trial 0 in bracket 4
    EXPECT_FALSE(hyperband.onEpoch(trials, trials[1], 3).prune);  // alone in bracket 3's first rung
    EXPECT_EQ(hyperband.onEpoch(trials, trials[1], 3).rung, 0);
}

TEST(MedianPruner, StopsTrialsBelowTheMedian)
{
    // Three completed trials with metric 0.2/0.5/0.8 at epoch 2 (median 0.5), maximising.
    const engine::MedianPruner median(true, {3, 1, 1});
    std::vector<engine::Trial> trials{withCurve(0, {{1, 0.1}, {2, 0.2}}, engine::TrialState::Completed),
                                      withCurve(1, {{1, 0.3}, {2, 0.5}}, engine::TrialState::Completed),
                                      withCurve(2, {{1, 0.4}, {2, 0.8}}, engine::TrialState::Completed),
                                      withCurve(3, {{1, 0.0}, {2, 0.45}})};
    EXPECT_FALSE(median.onEpoch(trials, trials[3], 1).prune); // warm-up
    EXPECT_TRUE(median.onEpoch(trials, trials[3], 2).prune);  // 0.45 < 0.5
    trials[3].intermediate[2] = 0.5;
    EXPECT_FALSE(median.onEpoch(trials, trials[3], 2).prune); // not worse than the median
    // Fewer completed trials than n_startup_trials: never.
    const engine::MedianPruner patient(true, {4, 0, 1});
    trials[3].intermediate[2] = 0.0;
    EXPECT_FALSE(patient.onEpoch(trials, trials[3], 2).prune);
    // Minimising, and an even count (median of 0.2, 0.5 = 0.35).
    const engine::MedianPruner min(false, {2, 0, 1});
    std::vector<engine::Trial> two{trials[0], trials[1], withCurve(2, {{2, 0.4}})};
    EXPECT_TRUE(min.onEpoch(two, two[2], 2).prune);
    two[2].intermediate[2] = 0.35;
    EXPECT_FALSE(min.onEpoch(two, two[2], 2).prune);
}

TEST(Strategy, NamesAndFactories)
{
    EXPECT_EQ(engine::strategyFromName("tpe").sampler, "tpe");
    EXPECT_EQ(engine::strategyFromName("tpe").pruner, "none");
    EXPECT_EQ(engine::strategyFromName("asha").sampler, "random");
    EXPECT_EQ(engine::strategyFromName("asha").pruner, "asha");
    EXPECT_EQ(engine::strategyFromName("hyperband").pruner, "hyperband");
    EXPECT_EQ(engine::strategyFromName("tpe+asha").sampler, "tpe");
    EXPECT_EQ(engine::strategyFromName("tpe+asha").pruner, "asha");
    EXPECT_EQ(engine::strategyFromName("median").pruner, "median");
    EXPECT_NE(errorOf([] { engine::strategyFromName("bayes"); }).find("expected tpe, random, grid"), std::string::npos);
    EXPECT_NE(errorOf([] { engine::strategyFromName("tpe+bohb"); }).find("(got \"tpe+bohb\")"), std::string::npos);

    engine::SearchSpace space = test::quadratic().space;
    space.budget.epochs = 27;
    engine::StrategyConfig config = engine::strategyFromName("tpe+asha");
    const engine::StrategyConfig resolved = engine::resolvedStrategy(space, config);
    EXPECT_EQ(resolved.prunerOptions, (json{{"min_resource", 1}, {"reduction_factor", 3}, {"max_resource", 27}}));
    EXPECT_EQ(resolved.samplerOptions["n_startup_trials"], 10);
    EXPECT_EQ(engine::makePruner(space, config)->name(), "asha");
    EXPECT_EQ(engine::makePruner(space, engine::strategyFromName("tpe")), nullptr);
    config.samplerOptions = {{"n_startup_trials", -1}};
    EXPECT_EQ(errorOf([&] { engine::makeSampler(space, config); }),
              "strategy.sampler_options.n_startup_trials: must be >= 0 (got -1)");
    space.budget.epochs = 0;
    EXPECT_EQ(errorOf([&] { engine::makePruner(space, engine::strategyFromName("hyperband")); }),
              "strategy.pruner_options.max_resource: missing: the most epochs a trial trains (set budget.epochs in "
              "the space)");
    engine::StrategyConfig random = engine::strategyFromName("random");
    random.samplerOptions = {{"n_startup_trials", 3}};
    EXPECT_EQ(errorOf([&] { engine::makeSampler(space, random); }),
              "strategy.sampler_options.n_startup_trials: unknown option (the random sampler has none)");
}
