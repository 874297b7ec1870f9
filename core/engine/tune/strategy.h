#pragma once

#include "engine/tune/search_space.h"
#include "engine/tune/trial.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

// How a study searches: a Sampler proposes each trial's parameters, an optional Pruner stops
// hopeless trials early (multi-fidelity: successive halving / ASHA, Hyperband, median stopping).
// Both are pure functions of the study's trials and the seed: no hidden stream of random numbers
// needs saving, so a study reloaded after a kill makes the same next suggestions as one that was
// never interrupted.
namespace lathe::engine {

// The random numbers of one trial's suggestion: a generator seeded from the study's seed and
// the trial's id (splitmix64 of both), so trial k's draw depends on nothing else.
std::mt19937_64 trialRng(std::uint64_t seed, int trialId);
// A uniform double in [0, 1) from 53 bits of rng: the same on every platform (the standard
// distributions are implementation-defined).
double uniform01(std::mt19937_64 &rng);

class Sampler
{
public:
    virtual ~Sampler() = default;
    virtual std::string name() const = 0;
    // The next trial's parameters (name -> value, its active parameters only) given every trial
    // of the study so far in any state, or nullopt when the strategy has nothing left to try (a
    // finished grid). The same trials and rng state give the same suggestion.
    virtual std::optional<nlohmann::json> suggest(const std::vector<Trial> &trials, std::mt19937_64 &rng) const = 0;
    // The sampler's settings with every default filled in (for study.json).
    virtual nlohmann::json options() const { return nlohmann::json::object(); }
};

struct PruneDecision
{
    bool prune = false;  // stop the trial now (it becomes "pruned")
    int rung = -1;       // the highest rung the trial has reached by this epoch; -1: none
};

class Pruner
{
public:
    virtual ~Pruner() = default;
    virtual std::string name() const = 0;
    // Called after the trial reported its metric for epoch (trial.intermediate holds it). trials
    // is every trial of the study (trial itself may be among them; it is recognised by id).
    virtual PruneDecision onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const = 0;
    // The Hyperband bracket a new trial with this id belongs to; -1: the pruner has none.
    virtual int bracketOf(int trialId) const
    {
        (void)trialId;
        return -1;
    }
    virtual nlohmann::json options() const { return nlohmann::json::object(); }
};

// The strategy of a study, as study.json keeps it.
struct StrategyConfig
{
    std::string sampler = "tpe";   // "tpe", "random", "grid"
    std::string pruner = "none";   // "none", "asha", "hyperband", "median"
    std::uint64_t seed = 0;
    // Settings by name, e.g. {"n_startup_trials": 10} for tpe, {"min_resource": 1,
    // "reduction_factor": 3, "max_resource": 27} for asha. Missing ones take their defaults.
    nlohmann::json samplerOptions = nlohmann::json::object();
    nlohmann::json prunerOptions = nlohmann::json::object();

    bool operator==(const StrategyConfig &o) const
    {
        return sampler == o.sampler && pruner == o.pruner && seed == o.seed && samplerOptions == o.samplerOptions &&
               prunerOptions == o.prunerOptions;
    }
};

// `--strategy` names: "tpe", "random", "grid", "asha" and "hyperband" (random sampling under
// that pruner, as in their papers), "median" (tpe with median stopping), or "SAMPLER+PRUNER"
// ("tpe+asha", "random+median"). Throws EngineError naming the choices.
StrategyConfig strategyFromName(const std::string &name);
const std::vector<std::string> &samplerNames();
const std::vector<std::string> &prunerNames();

// The sampler of a config; options it does not know, or bad values, are EngineErrors naming
// "strategy.sampler_options.<key>". A grid over a space with a numeric parameter is an error.
std::unique_ptr<Sampler> makeSampler(const SearchSpace &space, const StrategyConfig &config);
// The pruner of a config, nullptr for "none". asha and hyperband need the most epochs a trial
// trains: prunerOptions.max_resource, else the space's budget.epochs.
std::unique_ptr<Pruner> makePruner(const SearchSpace &space, const StrategyConfig &config);
// config with every option resolved to what makeSampler/makePruner use (written to study.json,
// so a reloaded study never depends on a changed default).
StrategyConfig resolvedStrategy(const SearchSpace &space, const StrategyConfig &config);

} // namespace lathe::engine
