#include "engine/serve/serve_metrics.h"

#include <sstream>

namespace lathe::engine::serve {
namespace {

const std::vector<double> kLatencyBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
const std::vector<double> kBatchBounds{1, 2, 4, 8, 16, 32, 64, 128, 256, 512};

// A label value as Prometheus quotes it.
std::string quoted(const std::string &value)
{
    std::string out = "\"";
    for (char c : value) {
        if (c == '\\' || c == '"')
            out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string number(double v)
{
    std::ostringstream s;
    s.precision(10);
    s << v;
    return s.str();
}

} // namespace

void ServeMetrics::observe(Histogram &h, const std::vector<double> &bounds, double value)
{
    if (h.buckets.empty())
        h.buckets.assign(bounds.size(), 0);
    for (std::size_t i = 0; i < bounds.size(); ++i)
        if (value <= bounds[i]) {
            ++h.buckets[i];
            break;
        }
    ++h.count;
    h.sum += value;
}

void ServeMetrics::countRequest(const std::string &model, const std::string &api, int status, double seconds)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_requests[{model, api, std::to_string(status)}];
    observe(m_latency[{model, api}], kLatencyBounds, seconds);
}

void ServeMetrics::countBatch(const std::string &model, int rows)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    observe(m_batchSizes[model], kBatchBounds, double(rows));
}

void ServeMetrics::countLoad(const std::string &model, const std::string &result)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    ++m_loads[{model, result}];
}

std::string ServeMetrics::prometheusText(const Gauges &gauges) const
{
    std::lock_guard<std::mutex> lock(m_mutex);
    std::ostringstream out;
    const auto histogram = [&](const std::string &name, const std::string &labels, const Histogram &h,
                               const std::vector<double> &bounds) {
        std::uint64_t cumulative = 0;
        const std::string sep = labels.empty() ? "" : ",";
        for (std::size_t i = 0; i < bounds.size(); ++i) {
            cumulative += i < h.buckets.size() ? h.buckets[i] : 0;
            out << name << "_bucket{" << labels << sep << "le=\"" << number(bounds[i]) << "\"} " << cumulative << '\n';
        }
        out << name << "_bucket{" << labels << sep << "le=\"+Inf\"} " << h.count << '\n';
        out << name << "_sum{" << labels << "} " << number(h.sum) << '\n';
        out << name << "_count{" << labels << "} " << h.count << '\n';
    };

    out << "# HELP lathe_serve_requests_total HTTP requests answered, by model, API and status.\n"
           "# TYPE lathe_serve_requests_total counter\n";
    for (const auto &[key, n] : m_requests)
        out << "lathe_serve_requests_total{model=" << quoted(key[0]) << ",api=" << quoted(key[1])
            << ",status=" << quoted(key[2]) << "} " << n << '\n';
    out << "# HELP lathe_serve_request_latency_seconds Time from the request's headers to its answer.\n"
           "# TYPE lathe_serve_request_latency_seconds histogram\n";
    for (const auto &[key, h] : m_latency)
        histogram("lathe_serve_request_latency_seconds", "model=" + quoted(key[0]) + ",api=" + quoted(key[1]), h,
                  kLatencyBounds);
    out << "# HELP lathe_serve_batch_size Instances per forward pass.\n"
           "# TYPE lathe_serve_batch_size histogram\n";
    for (const auto &[model, h] : m_batchSizes)
        histogram("lathe_serve_batch_size", "model=" + quoted(model), h, kBatchBounds);
    out << "# HELP lathe_serve_model_loads_total Version load attempts, by result (loaded, refused).\n"
           "# TYPE lathe_serve_model_loads_total counter\n";
    for (const auto &[key, n] : m_loads)
        out << "lathe_serve_model_loads_total{model=" << quoted(key[0]) << ",result=" << quoted(key[1]) << "} " << n
            << '\n';
    out << "# HELP lathe_serve_queue_depth Requests waiting for a batch.\n"
           "# TYPE lathe_serve_queue_depth gauge\n";
    for (const auto &[model, n] : gauges.queueDepth)
        out << "lathe_serve_queue_depth{model=" << quoted(model) << "} " << n << '\n';
    out << "# HELP lathe_serve_model_version The version being served.\n"
           "# TYPE lathe_serve_model_version gauge\n";
    for (const auto &[model, v] : gauges.version)
        out << "lathe_serve_model_version{model=" << quoted(model) << "} " << v << '\n';
    out << "# HELP lathe_serve_requests_in_flight Requests being answered.\n"
           "# TYPE lathe_serve_requests_in_flight gauge\n"
        << "lathe_serve_requests_in_flight " << gauges.inFlight << '\n';
    return out.str();
}

} // namespace lathe::engine::serve
