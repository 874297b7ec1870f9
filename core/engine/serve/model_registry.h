#pragma once

// Torch-free interface (its implementation includes LibTorch): the models a server answers
// for, each a plain export folder (version 1) or a folder of numbered version folders (TF
// Serving's layout, the highest that loads is served). A poller loads a new version when its
// folder appears, checks it (loadModelVersion) and switches to it atomically: requests in
// flight finish on the version they started with; a version that fails is refused, logged
// with the reason, and the one in service stays.

#include "engine/base/parse_limits.h"
#include "engine/serve/serve_metrics.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lathe::engine::serve {

struct ModelSource
{
    std::string name;
    std::string path;
};

struct RegistryOptions
{
    std::string device;            // "cpu", "cuda:N"; empty: the first GPU when there is one
    int maxBatch = 0;              // > 1: dynamic batching of up to this many instances
    int batchTimeoutMs = 2;        // how long the oldest request waits for a batch to fill
    int maxQueue = 256;            // requests waiting for a batch; more are refused (503)
    int maxInstances = int(parse_limits::kServeInstances.value); // instances per request
    std::int64_t maxImagePixels = std::int64_t(parse_limits::kServeImagePixels.value);
    double pollSeconds = 1;        // version folders are looked for this often; 0: never
};

// An answer: status and JSON body; retryAfter > 0 adds Retry-After. model/version/instances
// are for the access log.
struct Reply
{
    Reply() = default;
    Reply(int status, std::string body, int retryAfter = 0)
        : status(status)
        , body(std::move(body))
        , retryAfter(retryAfter)
    {
    }

    int status = 200;
    std::string body;
    int retryAfter = 0;
    std::int64_t version = 0;
    int instances = 0;
};

class ModelRegistry
{
public:
    // log receives one JSON object per event (loaded, refused, waiting).
    ModelRegistry(std::vector<ModelSource> sources, RegistryOptions options, ServeMetrics &metrics,
                  std::function<void(const nlohmann::json &)> log);
    ~ModelRegistry();

    // Loads every model's highest loadable version. Throws EngineError when a model has none.
    void load();
    // Starts and stops the version poller (stop also ends the batchers, after their queues ran).
    void startPolling();
    void stop();
    // Shutdown has begun: batches stop waiting to fill.
    void drain();

    std::vector<std::string> names() const;

    // GET /v1/models/NAME[/versions/V]: {"model_version_status": [...]}.
    Reply status(const std::string &name, std::optional<std::int64_t> version) const;
    // GET /v1/models/NAME[/versions/V]/metadata.
    Reply metadata(const std::string &name, std::optional<std::int64_t> version) const;
    // POST /v1/models/NAME[/versions/V]:predict or :classify (api), body as sent.
    Reply infer(const std::string &name, std::optional<std::int64_t> version, const std::string &api,
                const std::string &body);

    // For /healthz: every model with its served version.
    nlohmann::json health() const;
    ServeMetrics::Gauges gauges() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace lathe::engine::serve
