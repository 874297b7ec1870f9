#pragma once

#include "engine/tune/strategy.h"

namespace lathe::engine {

// Hyperband (Li et al. 2018) as a pruner: brackets s = s_max ... 0 of successive halving, s_max
// = floor(log_eta(max_resource / min_resource)). Bracket s starts n_s = ceil((s_max + 1) /
// (s + 1) * eta^s) trials at r_s = max_resource / eta^s epochs and keeps the best 1/eta at each
// rung r_s * eta^k (asynchronously, as SuccessiveHalvingPruner, among the trials of its own
// bracket). New trials are dealt to brackets in proportion to n_s, interleaved: trial i goes to
// the bracket with the smallest share of its n_s dealt so far, the most aggressive on ties.
class HyperbandPruner : public Pruner
{
public:
    struct Options
    {
        int minResource = 1;
        int reductionFactor = 3;
        int maxResource = 0;      // R in epochs (> 0)

        static Options fromJson(const nlohmann::json &json, const std::string &path);
        nlohmann::json toJson() const;
    };

    // One successive-halving round: how many trials train to how many epochs.
    struct Round
    {
        int trials = 0;
        double epochs = 0;
    };
    struct Bracket
    {
        int s = 0;
        std::vector<Round> rounds;
    };

    HyperbandPruner(bool maximize, Options options);

    std::string name() const override { return "hyperband"; }
    PruneDecision onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const override;
    int bracketOf(int trialId) const override;
    nlohmann::json options() const override { return m_options.toJson(); }

    // The paper's table: brackets s_max first, each with its rounds (n_i = floor(n_s / eta^i),
    // r_i = r_s * eta^i).
    static std::vector<Bracket> brackets(int maxResource, int reductionFactor, int minResource = 1);
    // The rungs' epochs of bracket s (its rounds but the last, rounded to whole epochs).
    std::vector<int> rungEpochs(int s) const;

private:
    bool m_maximize;
    Options m_options;
    std::vector<Bracket> m_brackets;
};

} // namespace lathe::engine
