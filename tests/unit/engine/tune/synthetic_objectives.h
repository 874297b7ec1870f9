#pragma once

// Cheap objectives for the search strategies (no training): the same functions, ranges and
// trial budgets as tests/parity/optuna_tpe.py, all minimised.

#include "engine/tune/search_space.h"
#include "engine/tune/strategy.h"
#include "engine/tune/trial.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace lathe::test {

struct Objective
{
    std::string name;
    engine::SearchSpace space;
    std::function<double(const std::vector<double> &)> f;
    double optimum = 0;
    int trials = 0;  // the budget both TPEs get (optuna_tpe.py's OBJECTIVES)
};

inline engine::SearchSpace boxSpace(const std::vector<std::pair<double, double>> &ranges)
{
    engine::SearchSpace space;
    space.maximize = false;
    space.metric = "val_loss";
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        engine::ParamSpec p;
        p.name = "x" + std::to_string(i);
        p.type = engine::ParamType::Uniform;
        p.low = ranges[i].first;
        p.high = ranges[i].second;
        space.params.push_back(p);
    }
    return space;
}

inline Objective quadratic()
{
    return {"quadratic", boxSpace({{-5, 5}, {-5, 5}}),
            [](const std::vector<double> &x) { return (x[0] - 1) * (x[0] - 1) + (x[1] + 2) * (x[1] + 2); }, 0.0, 60};
}

inline Objective branin()
{
    return {"branin", boxSpace({{-5, 10}, {0, 15}}),
            [](const std::vector<double> &x) {
                const double b = 5.1 / (4 * M_PI * M_PI), c = 5 / M_PI;
                const double t = x[1] - b * x[0] * x[0] + c * x[0] - 6;
                return t * t + 10 * (1 - 1 / (8 * M_PI)) * std::cos(x[0]) + 10;
            },
            0.397887, 80};
}

inline Objective hartmann6()
{
    return {"hartmann6", boxSpace(std::vector<std::pair<double, double>>(6, {0.0, 1.0})),
            [](const std::vector<double> &x) {
                static const double A[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                               {0.05, 10, 17, 0.1, 8, 14},
                                               {3, 3.5, 1.7, 10, 17, 8},
                                               {17, 8, 0.05, 10, 0.1, 14}};
                static const double P[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                               {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                               {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                               {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
                static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
                double total = 0;
                for (int i = 0; i < 4; ++i) {
                    double inner = 0;
                    for (int j = 0; j < 6; ++j)
                        inner += A[i][j] * (x[j] - P[i][j]) * (x[j] - P[i][j]);
                    total += alpha[i] * std::exp(-inner);
                }
                return -total;
            },
            -3.32237, 150};
}

// Runs a sampler for `trials` trials on an objective, as a study would (trialRng(seed, id),
// every trial completed): the best value found.
inline double bestOf(const engine::Sampler &sampler, const Objective &o, std::uint64_t seed, int trials,
                     std::vector<engine::Trial> *history = nullptr)
{
    std::vector<engine::Trial> done;
    double best = INFINITY;
    for (int id = 0; id < trials; ++id) {
        std::mt19937_64 rng = engine::trialRng(seed, id);
        const auto params = sampler.suggest(done, rng);
        if (!params)
            break;
        std::vector<double> x;
        for (const engine::ParamSpec &p : o.space.params)
            x.push_back((*params)[p.name].get<double>());
        engine::Trial t;
        t.id = id;
        t.params = *params;
        t.state = engine::TrialState::Completed;
        t.value = o.f(x);
        best = std::min(best, *t.value);
        done.push_back(t);
    }
    if (history)
        *history = done;
    return best;
}

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

inline double mean(const std::vector<double> &v)
{
    double s = 0;
    for (double x : v)
        s += x;
    return s / static_cast<double>(v.size());
}

} // namespace lathe::test
