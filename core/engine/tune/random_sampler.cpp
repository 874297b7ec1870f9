#include "engine/tune/random_sampler.h"

#include <algorithm>
#include <cmath>

namespace lathe::engine {

RandomSampler::RandomSampler(SearchSpace space)
    : m_space(std::move(space))
{
}

nlohmann::json RandomSampler::sampleParam(const ParamSpec &param, std::mt19937_64 &rng)
{
    const double u = uniform01(rng);
    if (param.categorical()) {
        const auto i = std::min(param.values.size() - 1, static_cast<std::size_t>(u * param.values.size()));
        return param.values[i];
    }
    if (param.type == ParamType::IntUniform) {
        // Bins of width 1 around each integer, in log space when asked.
        const double lo = param.low - 0.5, hi = param.high + 0.5;
        const double x = param.log ? std::exp(std::log(lo) + u * (std::log(hi) - std::log(lo))) : lo + u * (hi - lo);
        return static_cast<std::int64_t>(std::clamp(std::round(x), param.low, param.high));
    }
    if (param.type == ParamType::LogUniform)
        return std::clamp(std::exp(std::log(param.low) + u * (std::log(param.high) - std::log(param.low))), param.low,
                          param.high);
    return std::clamp(param.low + u * (param.high - param.low), param.low, param.high);
}

std::optional<nlohmann::json> RandomSampler::suggest(const std::vector<Trial> &, std::mt19937_64 &rng) const
{
    nlohmann::json params = nlohmann::json::object();
    for (const ParamSpec &p : m_space.params)
        if (isParamActive(p, params))
            params[p.name] = sampleParam(p, rng);
    return params;
}

} // namespace lathe::engine
