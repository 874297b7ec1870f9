#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace lathe::engine {

// running: started and not ended (also a trial whose study was killed while it ran);
// completed: trained to its end, value set; pruned: stopped by the pruner at `rung`;
// failed: its run failed (error says why). Samplers learn from completed and pruned trials.
enum class TrialState { Running, Completed, Pruned, Failed };

std::string trialStateName(TrialState state); // "running", "completed", "pruned", "failed"
// Throws EngineError "<path>: must be one of running, completed, pruned, failed (got ...)".
TrialState trialStateFromName(const std::string &path, const std::string &name);

// One trial of a study: one run of the base run config with params applied.
struct Trial
{
    int id = 0;                          // 0, 1, 2, ... in the order trials started
    nlohmann::json params = nlohmann::json::object(); // run-config path -> value, the active parameters only
    TrialState state = TrialState::Running;
    std::map<int, double> intermediate;  // epoch (1, 2, ...) -> the study's metric after that epoch
    std::optional<double> value;         // the final metric of a completed trial
    int rung = -1;                       // the highest successive-halving rung it reached; -1: none
    int bracket = -1;                    // its Hyperband bracket s; -1: no Hyperband
    std::string runFolder;               // its run folder, relative to the study folder
    std::string error;                   // why a failed trial failed

    // The last reported epoch (0: none) and the metric there.
    int lastEpoch() const { return intermediate.empty() ? 0 : intermediate.rbegin()->first; }
    std::optional<double> lastIntermediate() const
    {
        return intermediate.empty() ? std::nullopt : std::optional<double>(intermediate.rbegin()->second);
    }

    bool operator==(const Trial &other) const
    {
        return id == other.id && params == other.params && state == other.state &&
               intermediate == other.intermediate && value == other.value && rung == other.rung &&
               bracket == other.bracket && runFolder == other.runFolder && error == other.error;
    }
    bool operator!=(const Trial &other) const { return !(*this == other); }
};

} // namespace lathe::engine
