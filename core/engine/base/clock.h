#pragma once

#include <chrono>

namespace lathe::engine {

// Seconds since the Unix epoch, as TensorBoard's wall_time and metrics.jsonl's "time" store them.
inline double unixSeconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

} // namespace lathe::engine
