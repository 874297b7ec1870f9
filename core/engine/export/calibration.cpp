// Activation ranges for post-training INT8 quantisation (calibration.h).

#include "engine/export/calibration.h"

#include "engine/base/engine_error.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace lathe::engine {
namespace {

constexpr int kBins = 2048;

// TensorRT's entropy calibration on the |x| histogram: the threshold whose quantised
// distribution (levels bins) loses the least information (KL divergence).
double entropyThreshold(const RangeCalibrator::Histogram &h, int levels)
{
    const std::vector<double> &hist = h.counts;
    const double binWidth = h.absMax / kBins;
    double bestKl = std::numeric_limits<double>::infinity();
    int bestI = kBins;
    for (int i = levels; i <= kBins; i += 16) {
        std::vector<double> p(hist.begin(), hist.begin() + i);
        double outliers = 0;
        for (int j = i; j < kBins; ++j)
            outliers += hist[std::size_t(j)];
        p.back() += outliers;
        // Quantise the first i bins into `levels` groups, spreading each group's mass over its
        // non-empty bins.
        std::vector<double> q(std::size_t(i), 0);
        const double perLevel = double(i) / levels;
        for (int l = 0; l < levels; ++l) {
            const int start = int(std::floor(l * perLevel)), stop = std::min(i, int(std::floor((l + 1) * perLevel)));
            double mass = 0;
            int nonEmpty = 0;
            for (int j = start; j < stop; ++j) {
                mass += hist[std::size_t(j)];
                nonEmpty += hist[std::size_t(j)] > 0;
            }
            for (int j = start; j < stop; ++j)
                if (hist[std::size_t(j)] > 0)
                    q[std::size_t(j)] = mass / nonEmpty;
        }
        double pSum = 0, qSum = 0;
        for (int j = 0; j < i; ++j) {
            pSum += p[std::size_t(j)];
            qSum += q[std::size_t(j)];
        }
        if (pSum <= 0 || qSum <= 0)
            continue;
        double kl = 0;
        for (int j = 0; j < i; ++j) {
            const double pj = p[std::size_t(j)] / pSum;
            if (pj <= 0)
                continue;
            const double qj = q[std::size_t(j)] / qSum;
            kl += qj > 0 ? pj * std::log(pj / qj) : pj * 20; // an empty Q bin under mass: heavy penalty
        }
        if (kl < bestKl) {
            bestKl = kl;
            bestI = i;
        }
    }
    return (bestI + 0.5) * binWidth;
}

double percentileThreshold(const RangeCalibrator::Histogram &h, double percentile)
{
    double total = 0;
    for (double c : h.counts)
        total += c;
    const double target = total * percentile / 100.0;
    double sum = 0;
    for (int j = 0; j < kBins; ++j) {
        sum += h.counts[std::size_t(j)];
        if (sum >= target)
            return (j + 1) * h.absMax / kBins;
    }
    return h.absMax;
}

} // namespace

RangeCalibrator::RangeCalibrator(std::string method, double percentile)
    : m_method(std::move(method))
    , m_percentile(percentile)
{
    if (m_method != "minmax" && m_method != "percentile" && m_method != "entropy")
        throw EngineError("calibration method '" + m_method + "' is unknown (minmax, percentile, entropy)");
}

void RangeCalibrator::observe(const std::string &name, const torch::Tensor &value, bool histogramPass)
{
    const torch::Tensor x = value.to(torch::kFloat);
    auto it = m_stats.find(name);
    if (it == m_stats.end()) {
        Histogram fresh;
        fresh.lo = std::numeric_limits<double>::infinity();
        fresh.hi = -std::numeric_limits<double>::infinity();
        it = m_stats.emplace(name, fresh).first;
    }
    Histogram &h = it->second;
    if (!histogramPass) {
        h.lo = std::min(h.lo, double(x.min().item<float>()));
        h.hi = std::max(h.hi, double(x.max().item<float>()));
        h.absMax = std::max(std::abs(h.lo), std::abs(h.hi));
        return;
    }
    if (h.counts.empty())
        h.counts.assign(kBins, 0);
    if (h.absMax <= 0)
        return;
    // Exact zeros (half of every ReLU output) are exact in any quantisation: counted, their
    // spike in the first bin would pull the entropy threshold far down.
    torch::Tensor magnitudes = x.abs();
    if (m_method == "entropy")
        magnitudes = magnitudes.masked_select(magnitudes > 0);
    torch::Tensor hist = torch::histc(magnitudes, kBins, 0, float(h.absMax)).to(torch::kDouble).contiguous();
    const double *counts = hist.data_ptr<double>();
    for (int j = 0; j < kBins; ++j)
        h.counts[std::size_t(j)] += counts[j];
}

std::pair<double, double> RangeCalibrator::range(const std::string &name, const std::string &what) const
{
    auto it = m_stats.find(name);
    if (it == m_stats.end())
        throw EngineError(what + " was never computed during calibration");
    const Histogram &h = it->second;
    double lo = h.lo, hi = h.hi;
    if (m_method != "minmax" && h.absMax > 0 && !h.counts.empty()) {
        const double t = m_method == "percentile" ? percentileThreshold(h, m_percentile) : entropyThreshold(h, h.lo >= 0 ? 255 : 128);
        lo = std::max(lo, -t);
        hi = std::min(hi, t);
    }
    return {lo, hi};
}

} // namespace lathe::engine
