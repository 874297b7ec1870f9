#pragma once

// Engine-internal (LibTorch): activation ranges for post-training INT8 quantisation, shared by
// the ONNX QDQ quantiser and the TFLite one. Values are observed by name in one pass (min/max)
// and, for "percentile" and "entropy", a second pass (histograms of |x| over [0, max|x|]).

#include <torch/types.h>

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace lathe::engine {

class RangeCalibrator
{
public:
    // method: "minmax", "percentile" (keeps percentile % of |x|) or "entropy" (TensorRT's KL
    // threshold). Throws EngineError for another method.
    RangeCalibrator(std::string method, double percentile);

    // Whether the values must be observed a second time (histogram pass).
    bool needsHistogramPass() const { return m_method != "minmax"; }
    void observe(const std::string &name, const torch::Tensor &value, bool histogramPass);
    bool has(const std::string &name) const { return m_stats.count(name) != 0; }
    // The calibrated [lo, hi] of an observed value (the method's threshold clips both ends);
    // throws EngineError naming what when it was never observed.
    std::pair<double, double> range(const std::string &name, const std::string &what) const;

    struct Histogram
    {
        double lo;
        double hi;
        double absMax = 0;
        std::vector<double> counts; // of |x| over [0, absMax]
    };

private:
    std::string m_method;
    double m_percentile;
    std::unordered_map<std::string, Histogram> m_stats;
};

} // namespace lathe::engine
