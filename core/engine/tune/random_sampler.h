#pragma once

#include "engine/tune/strategy.h"

namespace lathe::engine {

// Independent uniform draws: a value of a choice or grid uniformly, uniform and int_uniform
// uniformly on their range, log_uniform (and int_uniform with log) uniformly in log space.
class RandomSampler : public Sampler
{
public:
    explicit RandomSampler(SearchSpace space);

    std::string name() const override { return "random"; }
    std::optional<nlohmann::json> suggest(const std::vector<Trial> &trials, std::mt19937_64 &rng) const override;

    // One draw of one parameter (TPE's start-up trials use it too).
    static nlohmann::json sampleParam(const ParamSpec &param, std::mt19937_64 &rng);

private:
    SearchSpace m_space;
};

} // namespace lathe::engine
