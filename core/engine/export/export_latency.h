#pragma once

// Engine-internal, private to export/ (includes LibTorch): the timings in report.json, that is
// the CPU latency of the original model and of each artifact, and the wall and CPU seconds of
// the export's phases.

#include "engine/base/clock.h"
#include <nlohmann/json.hpp>
#include <torch/types.h>

#include <chrono>
#include <ctime>
#include <functional>
#include <string>

namespace lathe::engine::export_internal {

using Clock = std::chrono::steady_clock;

// CPU seconds (user + system, all threads) since start, a std::clock() value.
double cpuSecondsSince(std::clock_t start);

// CPU latency per image at batch 1 (after a warm-up, the median of 3 to 20 runs within half a
// second) and batch 32 (1 to 4 runs within three seconds, the first one counting as the warm-up
// when there are more); with the wall and CPU seconds the measurement took. one and many are
// inputs of batch 1 and 32. Returns {batch1_ms_per_image, batch32_ms_per_image, seconds,
// cpu_seconds}.
nlohmann::json latency(const std::function<void(const torch::Tensor &)> &run, const torch::Tensor &one,
                       const torch::Tensor &many);

// Wall and CPU seconds of the export's phases, for the report's "timing".
class PhaseTimer
{
public:
    // Records the time since the previous lap (or the start) under name.
    void lap(const std::string &name);
    // [{phase, wall_s, cpu_s}] in the order of the laps.
    const nlohmann::json &phases() const { return m_phases; }

private:
    Clock::time_point m_wall = Clock::now();
    std::clock_t m_cpu = std::clock();
    nlohmann::json m_phases = nlohmann::json::array();
};

} // namespace lathe::engine::export_internal
