#include "engine/tune/median_pruner.h"

#include "engine/base/json_fields.h"

#include <algorithm>

namespace lathe::engine {

using json = nlohmann::json;
using namespace json_fields;

MedianPruner::Options MedianPruner::Options::fromJson(const json &object, const std::string &path)
{
    Options o;
    requireObject(path, object);
    checkKnownKeys(path, object, {"n_startup_trials", "n_warmup_epochs", "n_min_trials"},
                   "unknown median option (n_startup_trials, n_warmup_epochs, n_min_trials)");
    if (object.contains("n_startup_trials"))
        o.nStartupTrials = readInt(fieldPath(path, "n_startup_trials"), object["n_startup_trials"], NumberRange().ge(0));
    if (object.contains("n_warmup_epochs"))
        o.nWarmupEpochs = readInt(fieldPath(path, "n_warmup_epochs"), object["n_warmup_epochs"], NumberRange().ge(0));
    if (object.contains("n_min_trials"))
        o.nMinTrials = readInt(fieldPath(path, "n_min_trials"), object["n_min_trials"], NumberRange().ge(1));
    return o;
}

json MedianPruner::Options::toJson() const
{
    return {{"n_startup_trials", nStartupTrials}, {"n_warmup_epochs", nWarmupEpochs}, {"n_min_trials", nMinTrials}};
}

MedianPruner::MedianPruner(bool maximize, Options options)
    : m_maximize(maximize)
    , m_options(options)
{
}

PruneDecision MedianPruner::onEpoch(const std::vector<Trial> &trials, const Trial &trial, int epoch) const
{
    PruneDecision d;
    const auto own = trial.intermediate.find(epoch);
    if (epoch <= m_options.nWarmupEpochs || own == trial.intermediate.end())
        return d;
    int completed = 0;
    std::vector<double> values;
    for (const Trial &t : trials) {
        if (t.id == trial.id || t.state != TrialState::Completed)
            continue;
        ++completed;
        if (const auto it = t.intermediate.find(epoch); it != t.intermediate.end())
            values.push_back(it->second);
    }
    if (completed < m_options.nStartupTrials || values.empty() ||
        values.size() < static_cast<std::size_t>(m_options.nMinTrials))
        return d;
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    const double median = values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
    d.prune = m_maximize ? own->second < median : own->second > median;
    return d;
}

} // namespace lathe::engine
