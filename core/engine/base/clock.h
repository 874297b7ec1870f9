#pragma once

#include <chrono>

namespace lathe::engine {

// Seconds since the Unix epoch, as TensorBoard's wall_time and metrics.jsonl's "time" store them.
inline double unixSeconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// Seconds of the steady clock since start: durations that a clock change cannot bend.
inline double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace lathe::engine
