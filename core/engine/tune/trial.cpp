#include "engine/tune/trial.h"

#include "engine/base/json_fields.h"

#include <vector>

namespace lathe::engine {

namespace {
const std::vector<std::string> kStateNames{"running", "completed", "pruned", "failed"};
}

std::string trialStateName(TrialState state)
{
    return kStateNames.at(static_cast<std::size_t>(state));
}

TrialState trialStateFromName(const std::string &path, const std::string &name)
{
    const std::string checked = json_fields::readEnum(path, name, kStateNames);
    for (std::size_t i = 0; i < kStateNames.size(); ++i)
        if (kStateNames[i] == checked)
            return static_cast<TrialState>(i);
    return TrialState::Failed; // not reached: readEnum accepted one of the names
}

} // namespace lathe::engine
