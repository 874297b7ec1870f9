#include "engine/tune/strategy.h"

#include "engine/base/engine_error.h"
#include "engine/base/json_fields.h"
#include "engine/tune/grid_sampler.h"
#include "engine/tune/hyperband_pruner.h"
#include "engine/tune/median_pruner.h"
#include "engine/tune/random_sampler.h"
#include "engine/tune/successive_halving_pruner.h"
#include "engine/tune/tpe_sampler.h"

#include <algorithm>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

namespace {

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

const char *kSamplerOptions = "strategy.sampler_options";
const char *kPrunerOptions = "strategy.pruner_options";

// The pruner options with max_resource taken from the space's budget when not given.
json prunerOptionsFor(const SearchSpace &space, const StrategyConfig &config)
{
    json options = config.prunerOptions.is_null() ? json::object() : config.prunerOptions;
    if (options.is_object() && !options.contains("max_resource") && space.budget.epochs > 0 &&
        (config.pruner == "asha" || config.pruner == "hyperband"))
        options["max_resource"] = space.budget.epochs;
    return options;
}

json samplerOptionsOf(const StrategyConfig &config)
{
    return config.samplerOptions.is_null() ? json::object() : config.samplerOptions;
}

} // namespace

std::mt19937_64 trialRng(std::uint64_t seed, int trialId)
{
    return std::mt19937_64(splitmix64(splitmix64(seed) ^ static_cast<std::uint64_t>(trialId)));
}

double uniform01(std::mt19937_64 &rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

const std::vector<std::string> &samplerNames()
{
    static const std::vector<std::string> names{"tpe", "random", "grid"};
    return names;
}

const std::vector<std::string> &prunerNames()
{
    static const std::vector<std::string> names{"none", "asha", "hyperband", "median"};
    return names;
}

StrategyConfig strategyFromName(const std::string &name)
{
    const std::string help = "expected tpe, random, grid, asha, hyperband, median or SAMPLER+PRUNER such as tpe+asha";
    StrategyConfig config;
    const auto plus = name.find('+');
    if (plus == std::string::npos) {
        if (name == "asha" || name == "hyperband") {
            config.sampler = "random";
            config.pruner = name;
        } else if (name == "median") {
            config.pruner = name;
        } else if (std::find(samplerNames().begin(), samplerNames().end(), name) != samplerNames().end()) {
            config.sampler = name;
        } else {
            throw EngineError("strategy: " + help + " (got \"" + name + "\")");
        }
        return config;
    }
    config.sampler = name.substr(0, plus);
    config.pruner = name.substr(plus + 1);
    if (std::find(samplerNames().begin(), samplerNames().end(), config.sampler) == samplerNames().end() ||
        std::find(prunerNames().begin(), prunerNames().end(), config.pruner) == prunerNames().end())
        throw EngineError("strategy: " + help + " (got \"" + name + "\")");
    return config;
}

std::unique_ptr<Sampler> makeSampler(const SearchSpace &space, const StrategyConfig &config)
{
    const json options = samplerOptionsOf(config);
    if (config.sampler == "tpe")
        return std::make_unique<TpeSampler>(space, TpeSampler::Options::fromJson(options, kSamplerOptions));
    requireObject(kSamplerOptions, options);
    if (!options.empty())
        fail(fieldPath(kSamplerOptions, options.begin().key()), "unknown option (the " + config.sampler +
                                                                    " sampler has none)");
    if (config.sampler == "random")
        return std::make_unique<RandomSampler>(space);
    if (config.sampler == "grid")
        return std::make_unique<GridSampler>(space);
    fail("strategy.sampler", "must be one of " + joined(samplerNames()) + " (got \"" + config.sampler + "\")");
}

std::unique_ptr<Pruner> makePruner(const SearchSpace &space, const StrategyConfig &config)
{
    const json options = prunerOptionsFor(space, config);
    if (config.pruner == "asha")
        return std::make_unique<SuccessiveHalvingPruner>(space.maximize,
                                                         SuccessiveHalvingPruner::Options::fromJson(options, kPrunerOptions));
    if (config.pruner == "hyperband")
        return std::make_unique<HyperbandPruner>(space.maximize, HyperbandPruner::Options::fromJson(options, kPrunerOptions));
    if (config.pruner == "median")
        return std::make_unique<MedianPruner>(space.maximize, MedianPruner::Options::fromJson(options, kPrunerOptions));
    if (config.pruner == "none") {
        requireObject(kPrunerOptions, options);
        if (!options.empty())
            fail(fieldPath(kPrunerOptions, options.begin().key()), "unknown option (there is no pruner)");
        return nullptr;
    }
    fail("strategy.pruner", "must be one of " + joined(prunerNames()) + " (got \"" + config.pruner + "\")");
}

StrategyConfig resolvedStrategy(const SearchSpace &space, const StrategyConfig &config)
{
    StrategyConfig out = config;
    out.samplerOptions = makeSampler(space, config)->options();
    const auto pruner = makePruner(space, config);
    out.prunerOptions = pruner ? pruner->options() : json::object();
    return out;
}

} // namespace lathe::engine
