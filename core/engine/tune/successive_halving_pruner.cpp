#include "engine/tune/successive_halving_pruner.h"

#include "engine/base/json_fields.h"

#include <algorithm>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

SuccessiveHalvingPruner::Options SuccessiveHalvingPruner::Options::fromJson(const json &object, const std::string &path)
{
    Options o;
    requireObject(path, object);
    checkKnownKeys(path, object, {"min_resource", "reduction_factor", "max_resource"},
                   "unknown option (min_resource, reduction_factor, max_resource)");
    if (object.contains("min_resource"))
        o.minResource = readInt(fieldPath(path, "min_resource"), object["min_resource"], NumberRange().ge(1));
    if (object.contains("reduction_factor"))
        o.reductionFactor = readInt(fieldPath(path, "reduction_factor"), object["reduction_factor"], NumberRange().ge(2));
    if (object.contains("max_resource"))
        o.maxResource = readInt(fieldPath(path, "max_resource"), object["max_resource"], NumberRange().ge(1));
    if (o.maxResource < 1)
        fail(fieldPath(path, "max_resource"), "missing: the most epochs a trial trains (set budget.epochs in the space)");
    if (o.minResource > o.maxResource)
        fail(fieldPath(path, "min_resource"), "must be <= max_resource (" + std::to_string(o.maxResource) + ") (got " +
                                                  std::to_string(o.minResource) + ")");
    return o;
}

json SuccessiveHalvingPruner::Options::toJson() const
{
    return {{"min_resource", minResource}, {"reduction_factor", reductionFactor}, {"max_resource", maxResource}};
}

SuccessiveHalvingPruner::SuccessiveHalvingPruner(bool maximize, Options options)
    : m_maximize(maximize)
    , m_options(options)
{
}

std::vector<int> SuccessiveHalvingPruner::rungEpochs() const
{
    std::vector<int> epochs;
    for (long long e = m_options.minResource; e < m_options.maxResource; e *= m_options.reductionFactor)
        epochs.push_back(static_cast<int>(e));
    return epochs;
}

PruneDecision SuccessiveHalvingPruner::onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const
{
    return decide(rungEpochs(), m_options.reductionFactor, m_maximize, trials, trial, epoch,
                  [](const Trial &) { return true; });
}

PruneDecision SuccessiveHalvingPruner::decide(const std::vector<int> &rungEpochs, int reductionFactor, bool maximize,
                                              const std::vector<Trial> &trials, const Trial &trial, int epoch,
                                              const std::function<bool(const Trial &)> &competes)
{
    PruneDecision d;
    d.rung = static_cast<int>(std::upper_bound(rungEpochs.begin(), rungEpochs.end(), epoch) - rungEpochs.begin()) - 1;
    if (d.rung < 0 || rungEpochs[static_cast<std::size_t>(d.rung)] != epoch)
        return d;
    const auto own = trial.intermediate.find(epoch);
    if (own == trial.intermediate.end())
        return d;
    std::vector<double> values{own->second};
    for (const Trial &t : trials) {
        if (t.id == trial.id || !competes(t))
            continue;
        if (const auto it = t.intermediate.find(epoch); it != t.intermediate.end())
            values.push_back(it->second);
    }
    // Best first; the trial goes on when it is at least as good as the last promotable place.
    std::sort(values.begin(), values.end(), [&](double a, double b) { return maximize ? a > b : a < b; });
    const std::size_t places = std::max<std::size_t>(1, values.size() / static_cast<std::size_t>(reductionFactor));
    const double threshold = values[places - 1];
    d.prune = maximize ? own->second < threshold : own->second > threshold;
    return d;
}

} // namespace lathe::engine
