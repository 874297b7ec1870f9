#include "engine/tune/hyperband_pruner.h"

#include "engine/base/json_fields.h"
#include "engine/tune/successive_halving_pruner.h"

#include <algorithm>
#include <cmath>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

HyperbandPruner::Options HyperbandPruner::Options::fromJson(const json &object, const std::string &path)
{
    // The same three settings, checked the same way.
    const SuccessiveHalvingPruner::Options sh = SuccessiveHalvingPruner::Options::fromJson(object, path);
    return Options{sh.minResource, sh.reductionFactor, sh.maxResource};
}

json HyperbandPruner::Options::toJson() const
{
    return {{"min_resource", minResource}, {"reduction_factor", reductionFactor}, {"max_resource", maxResource}};
}

HyperbandPruner::HyperbandPruner(bool maximize, Options options)
    : m_maximize(maximize)
    , m_options(options)
    , m_brackets(brackets(options.maxResource, options.reductionFactor, options.minResource))
{
}

std::vector<HyperbandPruner::Bracket> HyperbandPruner::brackets(int maxResource, int reductionFactor, int minResource)
{
    const long long eta = reductionFactor;
    // s_max: the largest s with min_resource * eta^s <= max_resource (integers, no log rounding).
    int sMax = 0;
    for (long long r = static_cast<long long>(minResource) * eta; r <= maxResource; r *= eta)
        ++sMax;
    std::vector<Bracket> out;
    for (int s = sMax; s >= 0; --s) {
        long long etaS = 1;
        for (int i = 0; i < s; ++i)
            etaS *= eta;
        // ceil((s_max + 1) / (s + 1) * eta^s) in integers.
        const long long n = ((sMax + 1) * etaS + s) / (s + 1);
        const double r = static_cast<double>(maxResource) / static_cast<double>(etaS);
        Bracket b;
        b.s = s;
        long long etaI = 1;
        for (int i = 0; i <= s; ++i, etaI *= eta)
            b.rounds.push_back({static_cast<int>(n / etaI), r * static_cast<double>(etaI)});
        out.push_back(std::move(b));
    }
    return out;
}

std::vector<int> HyperbandPruner::rungEpochs(int s) const
{
    std::vector<int> epochs;
    for (const Bracket &b : m_brackets)
        if (b.s == s)
            for (std::size_t i = 0; i + 1 < b.rounds.size(); ++i)
                epochs.push_back(std::max(1, static_cast<int>(std::lround(b.rounds[i].epochs))));
    epochs.erase(std::unique(epochs.begin(), epochs.end()), epochs.end());
    return epochs;
}

int HyperbandPruner::bracketOf(int trialId) const
{
    std::vector<long long> dealt(m_brackets.size(), 0);
    std::size_t chosen = 0;
    for (int i = 0; i <= trialId; ++i) {
        chosen = 0;
        for (std::size_t b = 1; b < m_brackets.size(); ++b) {
            // dealt[b] / n_b < dealt[chosen] / n_chosen, in integers.
            const long long nb = m_brackets[b].rounds.front().trials, nc = m_brackets[chosen].rounds.front().trials;
            if (dealt[b] * nc < dealt[chosen] * nb)
                chosen = b;
        }
        ++dealt[chosen];
    }
    return m_brackets[chosen].s;
}

PruneDecision HyperbandPruner::onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const
{
    const auto bracket = [&](const Trial &t) { return t.bracket >= 0 ? t.bracket : bracketOf(t.id); };
    const int s = bracket(trial);
    return SuccessiveHalvingPruner::decide(rungEpochs(s), m_options.reductionFactor, m_maximize, trials, trial, epoch,
                                           [&](const Trial &t) { return bracket(t) == s; });
}

} // namespace lathe::engine
