#pragma once

// Torch-free: the server's counters and histograms, in Prometheus' text exposition format
// (GET /monitoring/prometheus/metrics, TF Serving's path). Thread-safe.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace lathe::engine::serve {

class ServeMetrics
{
public:
    // One answered HTTP request: its model ("" for none), API ("predict", "classify",
    // "status", "metadata", "health", "metrics", "other"), HTTP status and seconds taken.
    void countRequest(const std::string &model, const std::string &api, int status, double seconds);
    // One forward pass of rows instances (batched or not).
    void countBatch(const std::string &model, int rows);
    // A version load attempt: result "loaded" or "refused".
    void countLoad(const std::string &model, const std::string &result);

    // The gauges are read when scraped: queue depth and served version per model, requests in
    // flight.
    struct Gauges
    {
        std::map<std::string, std::int64_t> queueDepth;
        std::map<std::string, std::int64_t> version;
        std::int64_t inFlight = 0;
    };
    std::string prometheusText(const Gauges &gauges) const;

private:
    struct Histogram
    {
        std::vector<std::uint64_t> buckets; // cumulative counts are made when printed
        std::uint64_t count = 0;
        double sum = 0;
    };
    static void observe(Histogram &h, const std::vector<double> &bounds, double value);

    mutable std::mutex m_mutex;
    std::map<std::vector<std::string>, std::uint64_t> m_requests; // model, api, status
    std::map<std::vector<std::string>, Histogram> m_latency;      // model, api
    std::map<std::string, Histogram> m_batchSizes;                // model
    std::map<std::vector<std::string>, std::uint64_t> m_loads;    // model, result
};

} // namespace lathe::engine::serve
