#pragma once

#include "engine/tune/strategy.h"

namespace lathe::engine {

// Every combination of the space's grid and choice values, in order (the first parameter
// varying slowest); a conditional parameter multiplies only the combinations where it is
// active. Each suggestion is the first combination no trial has yet (whatever that trial's
// state), so a resumed grid carries on where it stopped. Numeric parameters are refused.
class GridSampler : public Sampler
{
public:
    explicit GridSampler(const SearchSpace &space);

    std::string name() const override { return "grid"; }
    std::optional<nlohmann::json> suggest(const std::vector<Trial> &trials, std::mt19937_64 &rng) const override;

    const std::vector<nlohmann::json> &combinations() const { return m_combinations; }

private:
    std::vector<nlohmann::json> m_combinations;
};

// Whether two trials' parameters are the same (same names, values equal as numbers or JSON).
bool sameParams(const nlohmann::json &a, const nlohmann::json &b);

} // namespace lathe::engine
