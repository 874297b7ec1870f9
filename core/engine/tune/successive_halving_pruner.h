#pragma once

#include "engine/tune/strategy.h"

#include <functional>

namespace lathe::engine {

// Asynchronous successive halving (ASHA, Li et al. 2020) as a pruner: rung k lies at epoch
// min_resource * reduction_factor^k (below max_resource, where a trial simply completes). A
// trial reaching rung k is compared with every trial that has reached rung k so far, itself
// included, by its metric there: with n of them it goes on when it is among the best
// max(1, floor(n / reduction_factor)), and is pruned otherwise. Nothing waits for a rung to
// fill: early trials are judged against the few before them (and the first one always goes on),
// as in ASHA and Optuna's SuccessiveHalvingPruner.
class SuccessiveHalvingPruner : public Pruner
{
public:
    struct Options
    {
        int minResource = 1;      // epochs to the first rung
        int reductionFactor = 3;  // eta
        int maxResource = 0;      // the epochs a trial trains at most (> 0)

        static Options fromJson(const nlohmann::json &json, const std::string &path);
        nlohmann::json toJson() const;
    };

    SuccessiveHalvingPruner(bool maximize, Options options);

    std::string name() const override { return "asha"; }
    PruneDecision onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const override;
    nlohmann::json options() const override { return m_options.toJson(); }

    // The rungs' epochs, lowest first.
    std::vector<int> rungEpochs() const;

    // The decision at epoch for rungs at rungEpochs, among the trials for which competes() holds
    // (Hyperband's brackets use it with their own rungs).
    static PruneDecision decide(const std::vector<int> &rungEpochs, int reductionFactor, bool maximize,
                                const std::vector<Trial> &trials, const Trial &trial, int epoch,
                                const std::function<bool(const Trial &)> &competes);

private:
    bool m_maximize;
    Options m_options;
};

} // namespace lathe::engine
