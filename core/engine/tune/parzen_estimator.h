#pragma once

#include "engine/tune/search_space.h"

#include <random>
#include <vector>

namespace lathe::engine {

// TPE's density of one parameter (Optuna's univariate _ParzenEstimator): a mixture of one
// kernel per observation plus a prior kernel. Numeric parameters get truncated normals on the
// parameter's range (in log space for log parameters; integers as bins of width 1) whose widths
// adapt to the gaps between neighbouring observations; categorical ones get a distribution over
// the values that puts 1 + prior_weight / (n + 1) on the observed value.
class ParzenEstimator
{
public:
    // observations in trial order: a numeric parameter's values, or a categorical one's value
    // indices. Weights: 1 each, the oldest ramped down once there are more than 25 (Optuna's
    // default_weights), and prior_weight for the prior kernel.
    ParzenEstimator(const ParamSpec &param, const std::vector<double> &observations, double priorWeight);

    // A draw: a value of the parameter (an integer for int_uniform) or a value index.
    double sample(std::mt19937_64 &rng) const;
    double logPdf(double x) const;

private:
    bool m_categorical = false;
    std::vector<double> m_weights;                  // kernel weights, summing to 1
    // Categorical: per kernel, the probability of each value.
    std::vector<std::vector<double>> m_valueWeights;
    // Numeric, in the searched space (log for log parameters): kernel centres and widths on [m_low, m_high].
    std::vector<double> m_mus, m_sigmas;
    double m_low = 0, m_high = 0;
    bool m_log = false, m_integer = false;
    double m_valueLow = 0, m_valueHigh = 0;          // the parameter's own range
};

} // namespace lathe::engine
