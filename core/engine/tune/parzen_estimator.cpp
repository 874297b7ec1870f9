#include "engine/tune/parzen_estimator.h"

#include "engine/tune/strategy.h"
#include "engine/tune/truncated_normal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace lathe::engine {

namespace {

// Optuna's default_weights: flat up to 25 observations, then the oldest ramp from 1/n to 1.
std::vector<double> observationWeights(std::size_t n)
{
    if (n < 25)
        return std::vector<double>(n, 1.0);
    std::vector<double> w;
    const std::size_t ramp = n - 25;
    for (std::size_t i = 0; i < ramp; ++i)
        w.push_back(ramp == 1 ? 1.0 / n : 1.0 / n + (1.0 - 1.0 / n) * i / (ramp - 1));
    w.insert(w.end(), 25, 1.0);
    return w;
}

std::size_t drawIndex(const std::vector<double> &probabilities, double u)
{
    double cumulative = 0;
    for (std::size_t i = 0; i + 1 < probabilities.size(); ++i) {
        cumulative += probabilities[i];
        if (u < cumulative)
            return i;
    }
    return probabilities.size() - 1;
}

double logSumExp(const std::vector<double> &terms)
{
    const double top = *std::max_element(terms.begin(), terms.end());
    if (std::isinf(top))
        return top;
    double sum = 0;
    for (double t : terms)
        sum += std::exp(t - top);
    return top + std::log(sum);
}

} // namespace

ParzenEstimator::ParzenEstimator(const ParamSpec &param, const std::vector<double> &observations, double priorWeight)
{
    const std::size_t n = observations.size();
    m_weights = observationWeights(n);
    m_weights.push_back(n == 0 ? 1.0 : priorWeight);
    const double total = std::accumulate(m_weights.begin(), m_weights.end(), 0.0);
    for (double &w : m_weights)
        w /= total;

    m_categorical = param.categorical();
    if (m_categorical) {
        const std::size_t k = param.values.size();
        const std::size_t kernels = n + 1;
        for (std::size_t i = 0; i < kernels; ++i) {
            std::vector<double> row(k, priorWeight / kernels);
            if (i < n)
                row[static_cast<std::size_t>(observations[i])] += 1;
            double sum = std::accumulate(row.begin(), row.end(), 0.0);
            if (sum == 0) {
                row.assign(k, 1.0);
                sum = static_cast<double>(k);
            }
            for (double &v : row)
                v /= sum;
            m_valueWeights.push_back(std::move(row));
        }
        return;
    }

    m_integer = param.type == ParamType::IntUniform;
    m_log = param.logScale();
    m_valueLow = param.low;
    m_valueHigh = param.high;
    m_low = m_integer ? param.low - 0.5 : param.low;
    m_high = m_integer ? param.high + 0.5 : param.high;
    if (m_log) {
        m_low = std::log(m_low);
        m_high = std::log(m_high);
    }
    for (double x : observations)
        m_mus.push_back(m_log ? std::log(x) : x);

    // Each kernel's width: the larger gap to its sorted neighbours (the range's ends counting as
    // neighbours), except that the outermost take their inner gap (consider_endpoints=False).
    // Equal observations keep their trial order (numpy's argsort leaves that order to the platform).
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m_mus[a] < m_mus[b]; });
    std::vector<double> sorted{m_low};
    for (std::size_t i : order)
        sorted.push_back(m_mus[i]);
    sorted.push_back(m_high);
    std::vector<double> sortedSigmas(n);
    for (std::size_t i = 0; i < n; ++i)
        sortedSigmas[i] = std::max(sorted[i + 1] - sorted[i], sorted[i + 2] - sorted[i + 1]);
    if (n >= 2) {
        sortedSigmas[0] = sorted[2] - sorted[1];
        sortedSigmas[n - 1] = sorted[n] - sorted[n - 1];
    }
    // Optuna's "magic clip": no kernel narrower than the range over min(100, kernels + 1).
    const double range = m_high - m_low;
    const double minSigma = range / std::min(100.0, 1.0 + static_cast<double>(n + 1));
    m_sigmas.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i)
        m_sigmas[order[i]] = std::clamp(sortedSigmas[i], minSigma, range);
    m_mus.push_back(0.5 * (m_low + m_high));
    m_sigmas.push_back(range);
}

double ParzenEstimator::sample(std::mt19937_64 &rng) const
{
    const std::size_t kernel = drawIndex(m_weights, uniform01(rng));
    if (m_categorical)
        return static_cast<double>(drawIndex(m_valueWeights[kernel], uniform01(rng)));
    double x = truncated_normal::sample(m_mus[kernel], m_sigmas[kernel], m_low, m_high, uniform01(rng));
    if (m_log)
        x = std::exp(x);
    if (m_integer)
        x = std::round(x);
    return std::clamp(x, m_valueLow, m_valueHigh);
}

double ParzenEstimator::logPdf(double x) const
{
    std::vector<double> terms(m_weights.size());
    for (std::size_t k = 0; k < m_weights.size(); ++k) {
        double lp;
        if (m_categorical) {
            lp = std::log(m_valueWeights[k][static_cast<std::size_t>(x)]);
        } else if (m_integer) {
            // The mass of x's bin [x - 1/2, x + 1/2] (in log space for log parameters).
            const double lo = m_log ? std::log(x - 0.5) : x - 0.5;
            const double hi = m_log ? std::log(x + 0.5) : x + 0.5;
            const double mu = m_mus[k], s = m_sigmas[k];
            lp = truncated_normal::logMass((lo - mu) / s, (hi - mu) / s) -
                 truncated_normal::logMass((m_low - mu) / s, (m_high - mu) / s);
        } else {
            lp = truncated_normal::logPdf(m_log ? std::log(x) : x, m_mus[k], m_sigmas[k], m_low, m_high);
        }
        terms[k] = std::log(m_weights[k]) + lp;
    }
    return logSumExp(terms);
}

} // namespace lathe::engine
