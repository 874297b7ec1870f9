#pragma once

#include "engine/tune/strategy.h"

namespace lathe::engine {

// The tree-structured Parzen estimator as Optuna's TPESampler runs it by default (univariate,
// Bergstra et al. 2011): the first n_startup_trials trials are random; then the completed and
// pruned trials are split into the best gamma(n) = min(ceil(gamma * n), gamma_max) ("below")
// and the rest ("above"), pruned trials ranked after completed ones by how far they got and
// their last metric. Each parameter on its own gets two Parzen estimators, l(x) from the below
// trials and g(x) from the above ones, each from only the trials where the parameter was
// active; n_ei_candidates draws from l(x) and the one with the largest l(x)/g(x) is taken.
// Running and failed trials are ignored.
class TpeSampler : public Sampler
{
public:
    struct Options
    {
        int nStartupTrials = 10;
        int nEiCandidates = 24;
        double priorWeight = 1.0;
        double gamma = 0.1;
        int gammaMax = 25;

        // {"n_startup_trials": 10, ...}; unknown keys and bad values are errors at path.<key>.
        static Options fromJson(const nlohmann::json &json, const std::string &path);
        nlohmann::json toJson() const;
    };

    TpeSampler(SearchSpace space, Options options);

    std::string name() const override { return "tpe"; }
    std::optional<nlohmann::json> suggest(const std::vector<Trial> &trials, std::mt19937_64 &rng) const override;
    nlohmann::json options() const override { return m_options.toJson(); }

private:
    SearchSpace m_space;
    Options m_options;
};

} // namespace lathe::engine
