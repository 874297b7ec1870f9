#pragma once

#include "engine/base/cancel_token.h"
#include "engine/base/engine_error.h"

#include <functional>
#include <string>

namespace lathe::engine {

// What a long engine function gets from its caller: where to report progress and the flag
// that asks it to stop. Both are optional; a default TaskControl reports nowhere.
struct TaskControl
{
    // fraction in [0, 1]; called from the worker thread, possibly very often.
    std::function<void(double fraction, const std::string &status)> progress;
    CancelToken cancel;

    void report(double fraction, const std::string &status) const
    {
        if (progress)
            progress(fraction, status);
    }

    void checkCancel() const
    {
        if (cancel.isCancelled())
            throw Cancelled();
    }
};

} // namespace lathe::engine
