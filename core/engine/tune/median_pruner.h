#pragma once

#include "engine/tune/strategy.h"

namespace lathe::engine {

// Median stopping (Golovin et al. 2017, Optuna's MedianPruner): after the warm-up epochs, and
// once n_startup_trials trials have completed, a trial whose metric at epoch e is worse than the
// median of the completed trials' metrics at e is stopped (with at least n_min_trials of them).
class MedianPruner : public Pruner
{
public:
    struct Options
    {
        int nStartupTrials = 5;
        int nWarmupEpochs = 0;    // epochs 1..n never prune
        int nMinTrials = 1;

        static Options fromJson(const nlohmann::json &json, const std::string &path);
        nlohmann::json toJson() const;
    };

    MedianPruner(bool maximize, Options options);

    std::string name() const override { return "median"; }
    PruneDecision onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const override;
    nlohmann::json options() const override { return m_options.toJson(); }

private:
    bool m_maximize;
    Options m_options;
};

} // namespace lathe::engine
