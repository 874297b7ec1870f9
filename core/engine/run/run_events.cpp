#include "engine/run/run_events.h"

#include <algorithm>

namespace lathe::engine {

bool isEventType(const std::string &type)
{
    return std::any_of(kAllEventTypes.begin(), kAllEventTypes.end(), [&](const char *t) { return type == t; });
}

bool isEndEventType(const std::string &type)
{
    return type == event_type::kFinished || type == event_type::kFailed || type == event_type::kCancelled;
}

} // namespace lathe::engine
