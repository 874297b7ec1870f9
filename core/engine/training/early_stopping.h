#pragma once

// Engine-internal, torch-free. The rule of early_stopping in the run config, and the state it
// keeps from epoch to epoch (written into every checkpoint, so a resumed run stops at the same
// epoch as one that ran without a break).

#include "engine/run/run_config.h"

#include <nlohmann/json.hpp>

#include <utility>

namespace lathe::engine {

struct EarlyStopping
{
    explicit EarlyStopping(EarlyStoppingConfig config = {})
        : config(std::move(config))
    {
    }

    EarlyStoppingConfig config;
    bool hasBest = false;  // best holds the best value of config.metric so far
    double best = 0;
    int badEpochs = 0;     // epochs since the metric last improved by more than minDelta
    bool stopped = false;  // patience ran out: the run ends after this epoch (not in state())

    // Takes an epoch's metrics; without config.enabled or config.metric among them it changes
    // nothing. A value better than the best by more than minDelta (lower for metrics ending in
    // "loss", metricLowerIsBetter) becomes the best; otherwise the epoch is a bad one, and the
    // patience-th bad epoch in a row stops the run. Returns stopped.
    bool observe(const nlohmann::json &metrics);

    // {"has_best", "best", "bad_epochs"}: a checkpoint's trainer.early_stopping.
    nlohmann::json state() const;
    // Restores what state() returned (missing fields: the start's values).
    void restore(const nlohmann::json &state);
};

} // namespace lathe::engine
