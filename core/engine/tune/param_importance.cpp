#include "engine/tune/param_importance.h"

#include <algorithm>
#include <cmath>

namespace lathe::engine {

namespace {

constexpr int kAbsent = -1; // the group of the trials in which the parameter is inactive

struct Sample
{
    const nlohmann::json *params;
    double value;
};

// Each sample's group for one parameter: kAbsent, else a value or bin index (0, 1, ...).
std::vector<int> groupsOf(const ParamSpec &spec, const std::vector<Sample> &samples)
{
    std::vector<int> groups(samples.size(), kAbsent);
    if (spec.categorical()) {
        std::vector<nlohmann::json> seen(spec.values.begin(), spec.values.end());
        for (size_t i = 0; i < samples.size(); ++i) {
            const auto it = samples[i].params->find(spec.name);
            if (it == samples[i].params->end())
                continue;
            size_t g = 0;
            while (g < seen.size() && !paramValuesEqual(seen[g], *it))
                ++g;
            if (g == seen.size())
                seen.push_back(*it); // not in the list (a hand-edited study): a group of its own
            groups[i] = int(g);
        }
        return groups;
    }

    // Numeric: quantile bins over the trials that have the parameter.
    std::vector<std::pair<double, size_t>> present;
    for (size_t i = 0; i < samples.size(); ++i) {
        const auto it = samples[i].params->find(spec.name);
        if (it == samples[i].params->end() || !it->is_number())
            continue;
        // Bins by rank: log-scale parameters bin as they would in log space.
        const double x = it->get<double>();
        if (std::isfinite(x))
            present.emplace_back(x, i);
    }
    if (present.empty())
        return groups;
    std::sort(present.begin(), present.end());
    const size_t n = present.size();
    const size_t bins = std::min(n, std::clamp<size_t>(size_t(std::lround(std::sqrt(double(n)))), 2, 10));
    int bin = 0;
    for (size_t r = 0; r < n; ++r) {
        if (r == 0 || present[r].first != present[r - 1].first) // equal values share a bin
            bin = int(r * bins / n);
        groups[present[r].second] = bin;
    }
    return groups;
}

// η² = SS_between / SS_total of the samples grouped by `groups`.
double etaSquared(const std::vector<Sample> &samples, const std::vector<int> &groups, double mean, double total)
{
    // Few groups: flat lists, group ids[g] with counts[g] samples summing to sums[g].
    std::vector<int> counts;
    std::vector<double> sums;
    std::vector<int> ids;
    for (size_t i = 0; i < samples.size(); ++i) {
        const auto it = std::find(ids.begin(), ids.end(), groups[i]);
        if (it == ids.end()) {
            ids.push_back(groups[i]);
            counts.push_back(1);
            sums.push_back(samples[i].value);
        } else {
            const auto g = size_t(it - ids.begin());
            ++counts[g];
            sums[g] += samples[i].value;
        }
    }
    double between = 0;
    for (size_t g = 0; g < ids.size(); ++g) {
        const double d = sums[g] / counts[g] - mean;
        between += counts[g] * d * d;
    }
    return std::clamp(between / total, 0.0, 1.0);
}

} // namespace

std::vector<ParamImportance> paramImportance(const StudyState &state)
{
    std::vector<Sample> samples;
    for (const Trial &trial : state.trials)
        if (trial.state == TrialState::Completed && trial.value && std::isfinite(*trial.value))
            samples.push_back({&trial.params, *trial.value});
    if (int(samples.size()) < kImportanceMinTrials)
        return {};

    const double n = double(samples.size());
    double mean = 0;
    for (const Sample &s : samples)
        mean += s.value;
    mean /= n;
    double total = 0, squares = 0;
    for (const Sample &s : samples) {
        total += (s.value - mean) * (s.value - mean);
        squares += s.value * s.value;
    }
    // Equal values can leave a rounding residue in the mean: no variance to explain.
    const bool varies = total > 1e-12 * squares && total > 0;

    std::vector<ParamImportance> result;
    result.reserve(state.space.params.size());
    double sum = 0;
    for (const ParamSpec &spec : state.space.params) {
        const double eta = varies ? etaSquared(samples, groupsOf(spec, samples), mean, total) : 0.0;
        result.push_back({spec.name, eta});
        sum += eta;
    }
    for (ParamImportance &p : result)
        p.importance = sum > 0 ? p.importance / sum : 0.0;
    std::stable_sort(result.begin(), result.end(),
                     [](const ParamImportance &a, const ParamImportance &b) { return a.importance > b.importance; });
    return result;
}

} // namespace lathe::engine
