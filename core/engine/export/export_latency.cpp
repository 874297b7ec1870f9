#include "engine/export/export_latency.h"
#include "engine/base/clock.h"

#include <algorithm>
#include <vector>

namespace lathe::engine::export_internal {
namespace {

// Milliseconds per image of run on x: the median of timed runs, repeated until budgetSeconds
// have been spent (at least minRuns, at most maxRuns). With warmUp, an untimed run comes first;
// without it, the first timed run is dropped when there are others (a batch that takes longer
// than the budget is timed once, its one-off set-up included: a few percent of such a run).
double msPerImage(const std::function<void(const torch::Tensor &)> &run, const torch::Tensor &x, double budgetSeconds,
                  int minRuns, int maxRuns, bool warmUp)
{
    if (warmUp)
        run(x);
    std::vector<double> times;
    const auto start = Clock::now();
    while (int(times.size()) < minRuns || (int(times.size()) < maxRuns && secondsSince(start) < budgetSeconds)) {
        const auto t = Clock::now();
        run(x);
        times.push_back(secondsSince(t) * 1000 / double(x.size(0)));
    }
    if (!warmUp && times.size() > 1)
        times.erase(times.begin());
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

} // namespace

double cpuSecondsSince(std::clock_t start)
{
    return double(std::clock() - start) / CLOCKS_PER_SEC;
}

nlohmann::json latency(const std::function<void(const torch::Tensor &)> &run, const torch::Tensor &one,
                       const torch::Tensor &many)
{
    const auto start = Clock::now();
    const std::clock_t cpu = std::clock();
    nlohmann::json out = {{"batch1_ms_per_image", msPerImage(run, one, 0.5, 3, 20, true)},
                          {"batch32_ms_per_image", msPerImage(run, many, 3.0, 1, 4, false)}};
    out["seconds"] = secondsSince(start);
    out["cpu_seconds"] = cpuSecondsSince(cpu);
    return out;
}

void PhaseTimer::lap(const std::string &name)
{
    const auto wall = Clock::now();
    const std::clock_t cpu = std::clock();
    m_phases.push_back({{"phase", name},
                        {"wall_s", std::chrono::duration<double>(wall - m_wall).count()},
                        {"cpu_s", double(cpu - m_cpu) / CLOCKS_PER_SEC}});
    m_wall = wall;
    m_cpu = cpu;
}

} // namespace lathe::engine::export_internal
