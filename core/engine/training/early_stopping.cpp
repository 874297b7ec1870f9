#include "engine/training/early_stopping.h"

#include "engine/run/run_folder.h"

namespace lathe::engine {

bool EarlyStopping::observe(const nlohmann::json &metrics)
{
    if (!config.enabled || !metrics.contains(config.metric))
        return stopped;
    const double value = metrics.at(config.metric).get<double>();
    const bool lower = metricLowerIsBetter(config.metric);
    const bool better = !hasBest || (lower ? value < best - config.minDelta : value > best + config.minDelta);
    if (better) {
        hasBest = true;
        best = value;
        badEpochs = 0;
    } else if (++badEpochs >= config.patience) {
        stopped = true;
    }
    return stopped;
}

nlohmann::json EarlyStopping::state() const
{
    return {{"has_best", hasBest}, {"best", best}, {"bad_epochs", badEpochs}};
}

void EarlyStopping::restore(const nlohmann::json &state)
{
    hasBest = state.value("has_best", false);
    best = state.value("best", 0.0);
    badEpochs = state.value("bad_epochs", 0);
}

} // namespace lathe::engine
